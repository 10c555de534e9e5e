/**
 * Issue 13's BibTeX expansion bomb: `@string` macros, each the previous one repeated `fanOut` times,
 * so macro number `levels` is `fanOut ** levels * 8` characters long from a few hundred bytes.
 */
const macroNames = 'abcdefghijklmnopqrstuvwxyz';

/** The macro definitions alone; the last one is named `macroNames[levels]`. */
export function nestedMacros(levels: number, fanOut = 8): string {
  let text = '@string{a = "xxxxxxxx"}\n';
  for (let level = 1; level <= levels; level += 1) {
    const previous = macroNames[level - 1] as string;
    text += `@string{${macroNames[level]} = ${Array(fanOut).fill(previous).join(' # ')}}\n`;
  }
  return text;
}

/** The macros and one entry whose title is the largest of them, with `fields` after it. */
export function nestedMacroBomb(levels: number, fields = 'year = 2020'): string {
  return `${nestedMacros(levels)}@article{bomb, title = ${macroNames[levels]}, ${fields}}\n`;
}
