import { describe, expect, it } from 'vitest';
import { recordSegments, recordWindows } from '../../eval/lib/record-windows.js';

/** Words as tokens: enough to check the packing. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('recordWindows (search eval: several vectors per record)', () => {
  it('packs whole sentences after the title while title and window stay within the limit', () => {
    const abstract = 'One two three. Four five six seven. Eight nine. Ten eleven twelve thirteen fourteen.';
    // "Title here." is 2 words; a window may add at most 6 more.
    expect(recordWindows('Title here', abstract, 8, words)).toEqual([
      'Title here. One two three.',
      'Title here. Four five six seven. Eight nine.',
      'Title here. Ten eleven twelve thirteen fourteen.',
    ]);
  });

  it('keeps a short abstract whole (the same text as the single record vector) and a sentence too long as its own window', () => {
    expect(recordWindows('T', 'A short abstract. Two sentences.', 254, words)).toEqual([
      'T. A short abstract. Two sentences.',
    ]);
    expect(recordWindows('T', 'a b c d e f g h. Next one.', 4, words)).toEqual([
      'T. a b c d e f g h.',
      'T. Next one.',
    ]);
  });

  it('does not split inside numbers or abbreviations followed by a lower-case word', () => {
    expect(recordWindows('T', 'Dose was 2.5 mg vs. placebo in 10 patients. Results held.', 5, words)).toEqual(
      ['T. Dose was 2.5 mg vs. placebo in 10 patients.', 'T. Results held.'],
    );
  });

  it('gives a record without an abstract one window, its title', () => {
    expect(recordWindows(' Only a title ', undefined, 128, words)).toEqual(['Only a title']);
    expect(recordWindows('Only a title', '  ', 128, words)).toEqual(['Only a title']);
  });
});

describe('recordSegments (search eval: the shipped vector and continuations)', () => {
  const abstract = 'A b c. D e f. G h i. J k l. M n o.';
  const first = `T. ${abstract}`;

  it('keeps the shipped text first and continues from the sentence the window cut, one sentence back', () => {
    // "T. A b c. D e f." is 7 words: the window of 8 reads two sentences whole and cuts the third.
    expect(recordSegments('T', abstract, { maxTokens: 8, overlap: 1, cap: 3 }, words)).toEqual([
      first,
      'T. D e f. G h i.',
      'T. G h i. J k l.',
    ]);
    expect(recordSegments('T', abstract, { maxTokens: 8, overlap: 1, cap: 2 }, words)).toEqual([
      first,
      'T. D e f. G h i.',
    ]);
  });

  it('without overlap, continues at the cut sentence', () => {
    expect(recordSegments('T', abstract, { maxTokens: 8, overlap: 0, cap: 3 }, words)).toEqual([
      first,
      'T. G h i. J k l.',
      'T. M n o.',
    ]);
  });

  it('gives a record the window reads whole one segment, the shipped text', () => {
    expect(recordSegments('T', abstract, { maxTokens: 254, overlap: 1, cap: 3 }, words)).toEqual([first]);
    expect(recordSegments(' Only ', undefined, { maxTokens: 8, overlap: 1, cap: 3 }, words)).toEqual([
      'Only',
    ]);
  });
});
