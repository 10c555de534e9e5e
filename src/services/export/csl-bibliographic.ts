import type { CslItem, CslName } from '@citation-js/core';
import type { Bibliographic, PersonName } from '../../domain/paper.js';

/**
 * The bibliographic fields of a paper record (decision 0049) ↔ their CSL-JSON variables. A thesis's
 * university and a report's institution are CSL's `publisher`; an arXiv id goes out as CSL `number`
 * "arXiv:1810.04805 [cs.CL]" (the form arXiv asks citations to use) when the item has no number of
 * its own.
 */

/** Item types whose CSL `publisher` is the institution (university, agency). */
const institutionTypes = new Set(['thesis', 'report']);

/** A BibTeX `and others` as CSL reads it: a name that is only "others". */
export function isOthers(name: CslName): boolean {
  const only = (name.literal ?? (name.given ? '' : name.family) ?? '').trim().toLowerCase();
  return only === 'others' || only === 'et al.' || only === 'et al';
}

/**
 * LaTeX left in a value by the BibTeX reader: a dotless i or j under an accent (`{\'\i}` reads as
 * "ı" + U+0301) becomes the accented letter, and the TeX logos become words.
 */
export function cleanLatex(value: string): string {
  return value
    .replace(/ı(?=[\u0300-\u036f])/g, 'i')
    .replace(/ȷ(?=[\u0300-\u036f])/g, 'j')
    .replace(/\\(La)?TeX\b\s*(\{\})?/g, (_match, la: string | undefined) => `${la ?? ''}TeX`)
    .normalize('NFC');
}

function nameText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const clean = cleanLatex(value.replace(/\s+/g, ' ').trim());
  return clean.length > 0 ? clean : null;
}

export function personOfCsl(name: CslName): PersonName {
  const person: PersonName = {};
  const family = nameText(name.family);
  const given = nameText(name.given);
  const particle = nameText(name['non-dropping-particle'] ?? name['dropping-particle']);
  const suffix = nameText(name.suffix);
  const literal = nameText(name.literal);
  if (literal) person.literal = literal;
  if (family) person.family = family;
  if (given) person.given = given;
  if (particle) person.particle = particle;
  if (suffix) person.suffix = suffix;
  return person;
}

export function cslOfPerson(person: PersonName): CslName {
  if (person.literal) return { literal: person.literal };
  return {
    ...(person.family ? { family: person.family } : {}),
    ...(person.given ? { given: person.given } : {}),
    ...(person.particle ? { 'non-dropping-particle': person.particle } : {}),
    ...(person.suffix ? { suffix: person.suffix } : {}),
  };
}

/** "Given particle Family, Suffix" as the record's display string. */
export function displayName(person: PersonName): string {
  if (person.literal) return person.literal;
  return [person.given, person.particle, person.family, person.suffix].filter(Boolean).join(' ');
}

function text(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const clean = cleanLatex(value.replace(/\s+/g, ' ').trim());
  return clean.length > 0 ? clean : null;
}

const arxivNumber = /^arXiv:\s*([^\s[\]]+)(?:\s*\[([^\]]+)\])?$/i;

/** The fields of `bibliographic` a CSL item has, and an arXiv id and class it names as its number. */
export function bibliographicOfCsl(item: CslItem): { bibliographic: Bibliographic; arxiv: string | null } {
  const record: Bibliographic = {};
  const names = (item.author ?? []).filter((name) => typeof name === 'object' && name !== null);
  const authors = names.filter((name) => !isOthers(name)).map(personOfCsl);
  if (authors.length > 0) record.author_names = authors;
  if (names.some(isOthers)) record.more_authors = true;
  const editorList = (item as { editor?: unknown }).editor;
  const editors = (Array.isArray(editorList) ? (editorList as CslName[]) : []).filter(
    (name) => typeof name === 'object' && name !== null && !isOthers(name),
  );
  if (editors.length > 0) record.editors = editors.map(personOfCsl);
  const set = (key: keyof Bibliographic, value: unknown) => {
    const found = text(value);
    if (found) (record as Record<string, unknown>)[key] = found;
  };
  set('volume', item.volume);
  set('issue', item.issue);
  set('pages', typeof item.page === 'string' ? item.page.replace(/(\d)\s*-+\s*(\d)/, '$1–$2') : item.page);
  set(institutionTypes.has(item.type ?? '') ? 'institution' : 'publisher', item.publisher);
  set('place', item['publisher-place'] ?? item['event-place']);
  set('isbn', item.ISBN);
  set('issn', item.ISSN);
  set('edition', item.edition);
  set('series', item['collection-title']);
  set('note', item.note);
  let arxiv: string | null = null;
  const number = text(item.number);
  const arxivMatch = number ? arxivNumber.exec(number) : null;
  if (arxivMatch) {
    arxiv = arxivMatch[1] ?? null;
    if (arxivMatch[2]) record.arxiv_class = arxivMatch[2].trim();
  } else if (number && item.type !== 'patent') {
    record.number = number;
  }
  const keywords = text(item.keyword)
    ?.split(/\s*[,;]\s*/)
    .filter((keyword) => keyword.length > 0);
  if (keywords && keywords.length > 0) record.keywords = keywords;
  return { bibliographic: record, arxiv };
}

/** The CSL variables of a record's bibliographic fields (names and arXiv number included). */
export function cslOfBibliographic(
  record: Bibliographic,
  type: string,
  arxiv: string | null,
): Partial<CslItem> {
  const item: Record<string, unknown> = {};
  const put = (key: string, value: string | null | undefined) => {
    if (value) item[key] = value;
  };
  if (record.editors?.length) item.editor = record.editors.map(cslOfPerson);
  put('volume', record.volume);
  put('issue', record.issue);
  put('page', record.pages);
  put('publisher', institutionTypes.has(type) ? (record.institution ?? record.publisher) : record.publisher);
  put('publisher-place', record.place);
  put('ISBN', record.isbn);
  put('ISSN', record.issn);
  put('edition', record.edition);
  put('collection-title', record.series);
  put('note', record.note);
  if (record.keywords?.length) item.keyword = record.keywords.join(', ');
  if (record.number) item.number = record.number;
  else if (arxiv) item.number = `arXiv:${arxiv}${record.arxiv_class ? ` [${record.arxiv_class}]` : ''}`;
  return item as Partial<CslItem>;
}
