/**
 * Lower-case words that belong to a person's family name when written before it ("van", "de la",
 * "bin"): shared by the PDF byline reader and the citation exporters, which split names alike.
 */
export const nameParticles: ReadonlySet<string> = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'di',
  'da',
  'du',
  'la',
  'le',
  'ter',
  'ten',
  'dos',
  'das',
  'bin',
  'ibn',
  'al',
  'el',
  'y',
]);
