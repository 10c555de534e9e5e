import { describe, expect, it } from 'vitest';
import { findPassage, findQuote, letterKey, letterKeys, letterOffsets } from './letter-stream.js';

describe('letter stream', () => {
  it('keeps letters and digits, lower-cased, without accents, ligatures spelled out', () => {
    expect(letterKey('Tešanović, “ﬁne-tuning” (2020)')).toBe('tesanovicfinetuning2020');
    expect(letterOffsets('a ﬁ b')).toEqual([0, 2, 2, 4]);
  });

  it('gives one entry per UTF-16 unit, astral characters and lone surrogates included', () => {
    // 𝐀 (U+1D400) is two units: its letters, then an empty entry; a lone surrogate is no letter.
    expect(letterKeys('x𝐀\ud800Ⅻé²')).toEqual(['x', 'a', '', '', 'xii', 'e', '2']);
    expect(letterKey('x𝐀\ud800Ⅻé²')).toBe('xaxiie2');
    // The same character again is answered from the remembered table, with the same letters.
    expect(letterKey('ÉÉ ǄǄ')).toBe('eedzdz');
    expect(letterOffsets('𝐀b')).toEqual([0, 2]);
  });

  it('finds a quote across re-spacing, removed hyphens and markdown', () => {
    const chunk = '## 3 Method\n\nWe fine-tune the multi- lingual model on 12 tasks.';
    const span = findQuote(chunk, 'multilingual model on 12');
    expect(span).not.toBeNull();
    expect(chunk.slice(span?.start, span?.end)).toBe('multi- lingual model on 12');
    expect(findQuote(chunk, 'not in the chunk')).toBeNull();
    expect(findQuote(chunk, '— …')).toBeNull();
  });

  it('finds a passage led by its section heading, or cut around a figure link', () => {
    const filler = 'Filler words '.repeat(5);
    const chunk = `# Results\n\nThe first sentence is here. ${filler}![Figure 1](x) ${filler}and the end of it.`;
    const led = findPassage(chunk, 'Section two\nThe first sentence is here.');
    // Spans run from the first letter to the last: the closing period stays outside.
    expect(chunk.slice(led?.start, led?.end)).toBe('The first sentence is here');
    const body = `The first sentence is here. ${filler}${filler}and the end of it.`;
    const cut = findPassage(chunk, body);
    expect(chunk.slice(cut?.start, cut?.end)).toMatch(/^The first sentence.*end of it$/s);
  });
});
