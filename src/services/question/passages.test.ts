import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitPassages, splitSentences } from './passages.js';

/** One token per word or punctuation mark (the shape of WordPiece counts, without a vocabulary). */
const countWords = (text: string) => text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)?.length ?? 0;

describe('splitSentences', () => {
  it('breaks at sentence ends, headings and paragraphs but not after abbreviations or initials', () => {
    const chunk = [
      '## Results',
      '',
      'Dps from E. coli condenses DNA (Smith et al. 2020). It binds plectonemes first, see Fig. 2 for details! Does it bind linear DNA? No.',
      '',
      '![Figure 2, page 4](https://example.org/figure.png)',
      '- Supercoiled DNA compacts fastest',
      '- Relaxed DNA compacts slowly',
    ].join('\n');
    expect(splitSentences(chunk)).toEqual([
      'Results',
      'Dps from E. coli condenses DNA (Smith et al. 2020).',
      'It binds plectonemes first, see Fig. 2 for details!',
      'Does it bind linear DNA?',
      'No.',
      '- Supercoiled DNA compacts fastest',
      '- Relaxed DNA compacts slowly',
    ]);
  });
});

describe('splitPassages', () => {
  const sizes = { targetTokens: 20, maxTokens: 30, overlapSentences: 1 };

  it('packs sentences into windows that overlap by one sentence and never span chunks', () => {
    const first =
      'Alpha beta gamma delta epsilon zeta eta. Theta iota kappa lambda mu nu. Xi omicron pi rho sigma tau upsilon. Phi chi psi omega.';
    const passages = splitPassages([first, 'Second chunk sentence here.'], sizes, countWords);
    expect(passages).toEqual([
      {
        chunk: 0,
        text: 'Alpha beta gamma delta epsilon zeta eta. Theta iota kappa lambda mu nu. Xi omicron pi rho sigma tau upsilon.',
      },
      { chunk: 0, text: 'Xi omicron pi rho sigma tau upsilon. Phi chi psi omega.' },
      { chunk: 1, text: 'Second chunk sentence here.' },
    ]);
  });

  it('cuts a sentence longer than the limit between words', () => {
    const long = `${Array.from({ length: 70 }, (_, index) => `w${index}`).join(' ')}.`;
    const passages = splitPassages([long], sizes, countWords);
    expect(passages.length).toBeGreaterThanOrEqual(3);
    for (const passage of passages) expect(countWords(passage.text)).toBeLessThanOrEqual(30);
    expect(passages.map((passage) => passage.text).join(' ')).toContain('w0 w1');
    expect(passages.at(-1)?.text).toContain('w69');
  });

  it('never exceeds the limit and loses no sentence, whatever the text (property)', () => {
    const sentence = fc
      .array(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 45 })
      .map((words) => `${words.join(' ')}.`.replace(/^./, (letter) => letter.toUpperCase()));
    const chunk = fc.array(sentence, { minLength: 0, maxLength: 12 }).map((sentences) => sentences.join(' '));
    fc.assert(
      fc.property(
        fc.array(chunk, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 5, max: 40 }),
        (chunks, target) => {
          const passages = splitPassages(
            chunks,
            { targetTokens: target, maxTokens: 32, overlapSentences: 1 },
            countWords,
          );
          for (const passage of passages) expect(countWords(passage.text)).toBeLessThanOrEqual(32);
          chunks.forEach((chunk, index) => {
            const words = chunk.match(/[a-z]+/gi) ?? [];
            const covered = new Set(
              passages
                .filter((passage) => passage.chunk === index)
                .flatMap((passage) => passage.text.match(/[a-z]+/gi) ?? []),
            );
            for (const word of words) expect(covered.has(word)).toBe(true);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('splitPassages with section headings', () => {
  const sizes = { targetTokens: 40, maxTokens: 60, overlapSentences: 1 };
  const body = (topic: string) =>
    `${topic} was measured in three independent replicates with a calibrated assay and the results were consistent across all strains and all temperatures tested here.`;

  it('starts a new window at a heading and puts the section heading in front of its passages', () => {
    const chunks = [
      `## Results\n\n### Growth in serum\n\n${body('Growth')}`,
      // A run-in heading (no #, no final period) before a long paragraph, as PDFs give them.
      `A. baumannii readily evolved resistance to ciprofloxacin\n\n${body('Resistance')}`,
    ];
    const passages = splitPassages(chunks, sizes, countWords);
    expect(passages.map((passage) => passage.text.split('\n')[0])).toEqual([
      'Results — Growth in serum',
      'A. baumannii readily evolved resistance to ciprofloxacin',
    ]);
    for (const passage of passages) expect(countWords(passage.text)).toBeLessThanOrEqual(60);
  });

  it('keeps the heading in force across a chunk boundary', () => {
    const passages = splitPassages([`## Methods\n\n${body('Binding')}`, body('Elution')], sizes, countWords);
    expect(passages.at(-1)?.text).toMatch(/^Methods\nElution was measured/);
  });
});
