import { describe, expect, it } from 'vitest';
import type { Paper } from '../domain/paper.js';
import { keyTerms, notAnsweredText, relatedSources, relatedText, termsNeeded } from './relevance.js';
import { SourceLedger } from './source-ledger.js';

const paper = (title: string, abstract: string, doi: string): Paper =>
  ({ title, abstract, doi, url: `https://doi.org/${doi}`, authors: ['A. Author'], year: 2020 }) as Paper;

describe('relevance of retrieved records to the question', () => {
  it('takes the subject terms of the question, not its study talk', () => {
    // Inflections off only (`minimal` stemming, decision 0057): words of three letters stay whole.
    expect(keyTerms('Which DNA topology does Dps condense fastest?')).toEqual([
      'dna',
      'topology',
      'dps',
      'condense',
      'fastest',
    ]);
    expect(keyTerms('How many patients were included in the trials?')).toEqual([]);
    expect([1, 2, 3, 6, 7, 12, 20].map(termsNeeded)).toEqual([1, 2, 2, 2, 3, 4, 4]);
  });

  it('calls a record related only when it shares enough of the key terms', () => {
    const keys = keyTerms('Which DNA topology does Dps condense fastest?');
    expect(relatedText(keys, 'Bridging DNA contacts allow Dps from E. coli to condense DNA')).toBe(true);
    // One shared word ("DNA") is not the subject.
    expect(relatedText(keys, 'DNA repair by homologous recombination in yeast')).toBe(false);
  });

  it("finds the README's example question unrelated to NLP papers, related to the paper on it", () => {
    const keys = keyTerms('Which antibiotics did Acinetobacter lwoffii evolve resistance to?');
    expect(
      relatedText(
        keys,
        'Adversarial training improves the resistance of question answering models to distractor sentences.',
      ),
    ).toBe(false);
    expect(
      relatedText(
        keys,
        'A. baumannii readily evolved resistance to meropenem, but Acinetobacter lwoffii only evolved resistance to ciprofloxacin.',
      ),
    ).toBe(true);
  });

  it('finds no related record among papers on other subjects, and says what was searched', () => {
    const ledger = new SourceLedger();
    const sources = [
      ledger.add(
        paper(
          'A survey of parsing algorithms for natural language',
          'Chart parsers and transition-based parsers are compared.',
          '10.1/parse',
        ),
      ),
      ledger.add(
        paper(
          'Neural machine translation by jointly learning to align',
          'Attention lets a decoder align with source words.',
          '10.1/nmt',
        ),
      ),
    ];
    const question = 'What tools exist for collaborative text annotation, and how do they differ?';
    expect(relatedSources(question, sources, [])).toEqual([]);
    const text = notAnsweredText('collaborative, text, annotation, tools', sources);
    expect(text).toMatch(
      /^The papers found do not answer this\. Searched for: collaborative, text, annotation, tools; 2 record\(s\) were found \(“A survey of parsing/,
    );
    const annotation = ledger.add(
      paper(
        'WebAnno: a flexible web-based collaborative annotation tool',
        'WebAnno supports collaborative text annotation by several users.',
        '10.1/webanno',
      ),
    );
    expect(relatedSources(question, [...sources, annotation], [])).toEqual([annotation]);
    // Records on the subject that the answerability judge found not to answer (decision 0064).
    expect(notAnsweredText('annotation tools', [annotation], true)).toBe(
      'The papers found do not answer this. Searched for: annotation tools; 1 record(s) were found (“WebAnno: a flexible web-based collaborative annotation tool”), none of which answers the question. Try other words, or add papers on the subject to a project.\n',
    );
  });

  it('counts what the run read of a record, not only its title and abstract', () => {
    const ledger = new SourceLedger();
    const source = ledger.add(paper('Bridging contacts in nucleoids', '', '10.1/nuc'));
    const question = 'Which DNA topology does Dps condense fastest?';
    expect(relatedSources(question, [source], [])).toEqual([]);
    expect(
      relatedSources(
        question,
        [source],
        [
          {
            source,
            text: 'Of the DNA topologies tested, Dps condensed supercoiled DNA most quickly.',
            kind: 'fulltext',
          },
        ],
      ),
    ).toEqual([source]);
  });
});
