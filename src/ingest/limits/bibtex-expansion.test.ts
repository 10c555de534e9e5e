import { describe, expect, it } from 'vitest';
import { nestedMacroBomb } from '../../../test/fakes/bibtex-bomb.js';
import { parseRawEntries } from '../formats/citation-parser.js';
import { measureBibtex } from './bibtex-expansion.js';

interface RawEntry {
  label: string;
  properties: Record<string, string>;
}

/** What citation-js really expands each field to (only for small inputs). */
function expandedByCitationJs(text: string): Record<string, number> {
  const lengths: Record<string, number> = {};
  for (const entry of parseRawEntries(text, '@biblatex/text') as RawEntry[]) {
    for (const [field, value] of Object.entries(entry.properties)) {
      lengths[`field ${field} of entry ${entry.label}`] = String(value).length;
    }
  }
  return lengths;
}

describe('measureBibtex', () => {
  it('measures nested @string macros exactly as citation-js expands them, without expanding', () => {
    const text = nestedMacroBomb(3);
    const expansion = measureBibtex(text);
    expect(expansion.entries).toBe(1);
    expect(expansion.defined).toEqual(['a', 'b', 'c', 'd']);
    expect(expansion.largest?.length).toBe(8 ** 3 * 8);
    expect(expandedByCitationJs(text)['field title of entry bomb']).toBe(8 ** 3 * 8);
    // Macros a, b, c, d, then the title (= d) and the year.
    expect(expansion.total).toBe(8 + 64 + 512 + 4096 + 4096 + 4);
  });

  it('measures a 600-byte bomb of 2^30 characters in well under a second', () => {
    const text = nestedMacroBomb(10);
    expect(text.length).toBeLessThan(700);
    const started = performance.now();
    const expansion = measureBibtex(text);
    expect(performance.now() - started).toBeLessThan(200);
    expect(expansion.largest?.length).toBe(8 ** 10 * 8);
  });

  it('agrees with citation-js on literals, escapes, comments, numbers, months and ( ) entries', () => {
    const text = [
      '@comment this line is junk @string{ignored = "xxxxxxxxxxxxxxxx"}',
      '@STRING(j = "Journal of {T}ests")',
      '@preamble{ "\\newcommand{\\x}{y}" }',
      '@Article{key1,',
      '  title = "A {\\"u}ber " # j # { and {Nested} \\{ braces}, % a comment',
      '  month = jan,',
      '  year = 2020,',
      '  note = undefinedmacro # "tail",',
      '  pages = "1--2"',
      '}',
      '@misc(key2, title = {Second}, howpublished = "x \\\\ y")',
    ].join('\n');
    const measured = measureBibtex(text);
    const real = expandedByCitationJs(text);
    expect(measured.entries).toBe(2);
    expect(measured.defined).toEqual(['j']);
    expect(Object.keys(real)).toHaveLength(7);
    // The measured total is every field as citation-js expands it, plus @string j and the preamble.
    const fields = Object.values(real).reduce((sum, length) => sum + length, 0);
    expect(measured.total).toBe(fields + 'Journal of {T}ests'.length + '\\newcommand{\\x}{y}'.length);
  });

  it('carries macro lengths across calls through the shared map (a stream split into entries)', () => {
    const macros = new Map<string, number>();
    measureBibtex('@string{a = "0123456789"}', macros);
    measureBibtex('@string{b = a # a # a}', macros);
    expect(macros.get('b')).toBe(30);
    expect(measureBibtex('@book{k, title = b # b}', macros).largest?.length).toBe(60);
  });

  it('skips what it cannot follow and goes on at the next entry', () => {
    const expansion = measureBibtex('@article{broken title = }\n@article{ok, title = {Fine}}');
    expect(expansion.entries).toBe(2);
    expect(expansion.largest).toEqual({ where: 'field title of entry ok', length: 4 });
  });
});
