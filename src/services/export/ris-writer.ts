import type { CslItem, CslName } from '@citation-js/core';

/**
 * CSL-JSON items as RIS (decision 0049), one value per line. Written here rather than by
 * citation-js, which wrapped values mid-word, put a conference's year in a stray `C2` line and its
 * place in `C1`, its proceedings in `C3`, a series in `T2` and dropped name particles. Tags are the
 * RIS specification's as Zotero, EndNote and rispy read them.
 */

const risTypeOfCsl: Record<string, string> = {
  'article-journal': 'JOUR',
  'article-magazine': 'MGZN',
  'article-newspaper': 'NEWS',
  article: 'JOUR',
  'paper-conference': 'CONF',
  book: 'BOOK',
  chapter: 'CHAP',
  thesis: 'THES',
  report: 'RPRT',
  dataset: 'DATA',
  patent: 'PAT',
};

/** Values are one line: whitespace collapsed. */
function oneLine(value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value).replace(/\s+/g, ' ').trim();
  return text.length > 0 ? text : null;
}

/** "particle Family, Given, Suffix" (RIS's name form). */
function risName(name: CslName): string {
  if (name.literal) return name.literal;
  const family = [name['non-dropping-particle'] ?? name['dropping-particle'], name.family]
    .filter(Boolean)
    .join(' ');
  return [family, name.given, name.suffix].filter(Boolean).join(', ');
}

/** One RIS record, `TY` to `ER`. */
export function risRecord(item: CslItem): string {
  const type = item.type ?? 'document';
  const lines: string[] = [`TY  - ${risTypeOfCsl[type] ?? 'GEN'}`];
  const tag = (key: string, value: unknown) => {
    const text = oneLine(value);
    if (text) lines.push(`${key}  - ${text}`);
  };
  for (const name of item.author ?? []) tag('AU', risName(name));
  for (const name of (item as { editor?: CslName[] }).editor ?? []) tag('ED', risName(name));
  tag('TI', item.title);
  tag(type === 'article-journal' ? 'JO' : 'T2', item['container-title']);
  tag('T3', item['collection-title']);
  const [year, month, day] = item.issued?.['date-parts']?.[0] ?? [];
  tag('PY', year);
  if (year !== undefined && month !== undefined) {
    const pad = (value: unknown) => String(value).padStart(2, '0');
    tag('DA', `${year}/${pad(month)}/${day === undefined ? '' : pad(day)}/`);
  }
  tag('VL', item.volume);
  tag('IS', item.issue);
  const [start, end] = (oneLine(item.page) ?? '').split(/\s*[-–—]+\s*/);
  tag('SP', start);
  tag('EP', end);
  tag('ET', item.edition);
  tag('PB', item.publisher);
  tag('CY', item['publisher-place']);
  // SN is the ISBN of a book, the ISSN of a serial, the number of a report.
  tag('SN', type === 'report' ? item.number : (item.ISBN ?? item.ISSN));
  if (type !== 'report' && item.ISBN && item.ISSN) tag('SN', item.ISSN);
  // Any other number (an arXiv id "arXiv:1810.04805 [cs.CL]", a patent's) is the accession number.
  if (type !== 'report') tag('AN', item.number);
  tag('DO', item.DOI);
  tag('UR', item.URL);
  const keywords = oneLine(item.keyword);
  for (const keyword of keywords ? keywords.split(/\s*[,;]\s*/) : []) tag('KW', keyword);
  tag('N1', item.note);
  tag('AB', item.abstract);
  tag('ID', item.id);
  lines.push('ER  - ');
  return `${lines.join('\n')}\n`;
}
