import type { CslItem, CslName } from '@citation-js/core';
import { readReferenceFields } from '../../bibliography/reference-fields.js';
import { type ParsedReference, parseReference } from '../../bibliography/reference-parser.js';
import { type ReferenceEntry, splitReferenceText } from '../../bibliography/references.js';
import { AppError, invalid } from '../../domain/errors.js';
import { splitPersonName } from '../export/csl-mapping.js';

/**
 * Plain-text reference lists (issue 37 part 2, decision 0048): the text a researcher pastes — one
 * reference per line, a numbered or bracketed list, or a "References" section — cut into entries
 * and read by the same reference parser that reads PDFs' reference lists, as CSL-JSON items or as
 * the entries `verify_references` checks.
 */

/**
 * Bounds of one request's text. Parsing runs on the request's thread at about 2,000 references a
 * second, so the bounds keep one request under a second: a long book's bibliography fits.
 */
export const referenceTextLimits = { maxChars: 400_000, maxEntries: 2_000 } as const;

/** The entries of `text`, refused (400, `param`) when it is empty, too long or holds too many. */
function entriesOf(text: string, param: string) {
  if (text.trim() === '') throw invalid(param, `${param} must not be empty: paste a reference list`);
  if (text.length > referenceTextLimits.maxChars) {
    throw invalid(
      param,
      `${param} is longer than ${referenceTextLimits.maxChars} characters; send fewer references`,
    );
  }
  const entries = splitReferenceText(text);
  if (entries.length === 0) throw new AppError('unprocessable', `${param} holds no references`, { param });
  if (entries.length > referenceTextLimits.maxEntries) {
    throw invalid(
      param,
      `${param} holds ${entries.length} references, more than ${referenceTextLimits.maxEntries}; send them in parts`,
    );
  }
  return entries;
}

/** "Bange EM" (Vancouver: family name, then initials without periods) → Bange, E. M. */
function personName(text: string): CslName {
  const vancouver = /^((?:\p{Lu}[\p{L}'’-]+\s)*\p{Lu}[\p{L}'’-]+)\s(\p{Lu}{1,3})$/u.exec(text.trim());
  if (vancouver?.[1] && vancouver[2] && !/,/.test(text)) {
    return { family: vancouver[1], given: [...vancouver[2]].map((initial) => `${initial}.`).join(' ') };
  }
  const name = splitPersonName(text.replace(/\s+-\s*|-\s+/g, '-'));
  return Object.fromEntries(Object.entries(name).filter(([, value]) => value)) as CslName;
}

/** The CSL type the parsed fields suggest. */
function cslType(parsed: ParsedReference): string {
  const genre = `${parsed.genre ?? ''} ${parsed.note ?? ''}`;
  if (/thesis|dissertation|diss\./i.test(genre)) return 'thesis';
  if (/report|working paper/i.test(genre)) return 'report';
  if (parsed.containerTitle) {
    if (/proceedings|proc\.|conference|workshop|symposium|congress/i.test(parsed.containerTitle)) {
      return 'paper-conference';
    }
    if (parsed.journal) return 'article-journal';
    return parsed.publisher || parsed.editors.length > 0 ? 'chapter' : 'article-journal';
  }
  if (parsed.arxiv) return 'article';
  if (parsed.publisher) return 'book';
  return parsed.url ? 'webpage' : 'document';
}

/** One parsed reference as a CSL-JSON item (fields the reference does not print are left out). */
export function referenceToCsl(parsed: ParsedReference, id: string): CslItem {
  const item: CslItem = { id, type: cslType(parsed) };
  const set = (field: string, value: string | null | undefined) => {
    if (value) item[field] = value;
  };
  set('title', parsed.title);
  if (parsed.authors.length > 0) item.author = parsed.authors.map(personName);
  if (parsed.editors.length > 0) item.editor = parsed.editors.map(personName);
  if (parsed.translators.length > 0) item.translator = parsed.translators.map(personName);
  set('container-title', parsed.containerTitle);
  if (parsed.year) item.issued = { 'date-parts': [[parsed.year]] };
  set('volume', parsed.volume);
  set('issue', parsed.issue);
  set('page', parsed.pages);
  set('publisher', parsed.publisher);
  set('publisher-place', parsed.place);
  set('edition', parsed.edition);
  set('genre', parsed.genre);
  set('DOI', parsed.doi);
  set('URL', parsed.url ?? (parsed.arxiv ? `https://arxiv.org/abs/${parsed.arxiv}` : null));
  set('ISBN', parsed.isbn?.replace(/^isbn:?\s*/i, ''));
  if (parsed.arxiv) item.number = `arXiv:${parsed.arxiv}`;
  set('note', parsed.note);
  return item;
}

/** `POST /api/parse_references`: the references of a pasted list as CSL-JSON items, in input order. */
export function parseReferenceText(text: string, param = 'text'): { entries: CslItem[] } {
  const entries = entriesOf(text, param);
  return {
    entries: entries.map((entry, index) => {
      const parsed = parseReference(entry.raw);
      const item = referenceToCsl(parsed, `ref-${index + 1}`);
      if (entry.number !== null) item['citation-number'] = String(entry.number);
      if (entry.label) item['citation-label'] = entry.label;
      return item;
    }),
  };
}

/** The entries of a pasted list as a PDF's reference list holds them, for `verify_references`. */
export function referenceEntriesOfText(text: string, param = 'text'): ReferenceEntry[] {
  return entriesOf(text, param).map((entry) => ({
    number: entry.number,
    label: entry.label,
    raw: entry.raw,
    chunk: 1,
    ...readReferenceFields(entry.raw),
  }));
}
