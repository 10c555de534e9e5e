import { describe, expect, it } from 'vitest';
import { collectVocabulary, joinLines, normalizeText } from './text-cleaning.js';

const vocabulary = collectVocabulary([
  ['multilingual models are trained on data-driven corpora', 'the state-of-the-art approach', 'an example'],
]);

describe('joinLines', () => {
  it('joins a word hyphenated at a line end when the whole word occurs elsewhere', () => {
    expect(joinLines(['Large multilin-', 'gual models'], vocabulary)).toBe('Large multilingual models');
  });

  it('keeps the hyphen of a compound that occurs hyphenated elsewhere', () => {
    expect(joinLines(['a data-', 'driven method'], vocabulary)).toBe('a data-driven method');
    expect(joinLines(['the state-of-the-', 'art model'], vocabulary)).toBe('the state-of-the-art model');
  });

  it('joins a syllable break it has never seen, but not before a capital or a digit', () => {
    expect(joinLines(['an unusu-', 'ally long line'], vocabulary)).toBe('an unusually long line');
    expect(joinLines(['after SARS-', 'CoV-2 infection'], vocabulary)).toBe('after SARS-CoV-2 infection');
    expect(joinLines(['labelled with Cy5-', 'labeled Dps'], vocabulary)).toBe(
      'labelled with Cy5-labeled Dps',
    );
  });

  it('treats a suffix as a syllable and an -ly adverb as the first half of a compound', () => {
    expect(joinLines(['by applying label-', 'ing rules'], vocabulary)).toBe('by applying labeling rules');
    expect(joinLines(['clean, properly-', 'structured text'], vocabulary)).toBe(
      'clean, properly-structured text',
    );
  });

  // Regression: "SciB-ERT" in PaperMage's references never linked to SciBERT in the index.
  it('joins a break before capitals when the document writes the joined word elsewhere', () => {
    const paper = collectVocabulary([
      ['SciBERT (Beltagy et al., 2019) and GROBID (Grobid, 2008-2023)'],
      ['Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciB-', 'ERT: A pretrained language model'],
    ]);
    expect(joinLines(['Iz Beltagy. 2019. SciB-', 'ERT: A pretrained language model'], paper)).toBe(
      'Iz Beltagy. 2019. SciBERT: A pretrained language model',
    );
    expect(joinLines(['For example, GRO-', 'BID (Grobid, 2008–2023)'], paper)).toBe(
      'For example, GROBID (Grobid, 2008–2023)',
    );
    // Without the whole word elsewhere, a capital after the break opens a compound's second word.
    expect(joinLines(['Designing for Real-', 'World Tasks'], paper)).toBe('Designing for Real-World Tasks');
  });

  it('joins where the English word list has the joined word, and words in capitals too', () => {
    const none = new Set<string>();
    expect(joinLines(['a compact repre-', 'sentation of text'], none)).toBe(
      'a compact representation of text',
    );
    expect(joinLines(['1 INTRO-', 'DUCTION'], none)).toBe('1 INTRODUCTION');
  });

  it('keeps the hyphen where both halves are words, or TeX could not have broken the word', () => {
    const none = new Set<string>();
    expect(joinLines(['a data-', 'driven method'], none)).toBe('a data-driven method');
    expect(joinLines(['lazy call-', 'by-need evaluation'], none)).toBe('lazy call-by-need evaluation');
    // A name's syllables are no words: joined.
    expect(joinLines(['Nicola Baldas-', 'sari and others'], none)).toBe('Nicola Baldassari and others');
  });

  it('joins plain lines with a space and URLs without one', () => {
    expect(joinLines(['first line', 'second line'], vocabulary)).toBe('first line second line');
    expect(joinLines(['see https://doi.', 'org/10.1111/imm.13445'], vocabulary)).toBe(
      'see https://doi.org/10.1111/imm.13445',
    );
  });
});

describe('normalizeText', () => {
  it('expands ligatures, collapses whitespace and removes invisible characters', () => {
    expect(normalizeText('e\ufb03cient  \u00adﬁnd\u200b\tthe\nﬂow')).toBe('efficient find the flow');
  });

  it('puts accents that TeX drew as separate glyphs back on their letters', () => {
    expect(normalizeText('Teˇsanovi ́c and Erd˝os')).toBe('Tešanović and Erdős');
  });
});
