/**
 * Minimal LaTeX-to-Unicode for metadata fields (arXiv author lists write `Bal\'azs`, `M\"uller`,
 * `{\o}`): accent commands become combining marks, braces go. Math (`$…$`) is left alone.
 */
const accentMarks: Record<string, string> = {
  "'": '\u0301',
  '`': '\u0300',
  '^': '\u0302',
  '"': '\u0308',
  '~': '\u0303',
  '=': '\u0304',
  '.': '\u0307',
  u: '\u0306',
  v: '\u030c',
  H: '\u030b',
  c: '\u0327',
  k: '\u0328',
  r: '\u030a',
};

const letters: Record<string, string> = {
  o: 'ø',
  O: 'Ø',
  l: 'ł',
  L: 'Ł',
  ss: 'ß',
  ae: 'æ',
  AE: 'Æ',
  oe: 'œ',
  OE: 'Œ',
  aa: 'å',
  AA: 'Å',
  i: 'ı',
  j: 'ȷ',
};

const accentPattern = /\\([`'^"~=.]|[uvHckr](?![a-zA-Z]))\s*\{?\\?([a-zA-Z])\}?/g;
const letterPattern = /\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![a-zA-Z])\s?/g;

/** Decodes LaTeX accents and special letters; drops grouping braces outside math. */
export function latexToUnicode(text: string): string {
  if (!text.includes('\\') && !text.includes('{')) return text;
  const decoded = text
    .replace(
      accentPattern,
      (_whole, accent: string, letter: string) => `${letter}${accentMarks[accent] ?? ''}`,
    )
    .replace(letterPattern, (_whole, name: string) => letters[name] ?? name)
    .normalize('NFC');
  return text.includes('$') ? decoded : decoded.replace(/[{}]/g, '');
}
