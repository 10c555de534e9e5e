import { normalizeArxivId, normalizeDoi } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import { type CitationFormat, detectFormat, parseReferences } from '../citation/citation-formats.js';
import { firstSurname, sameSurname, searchRecords, titleSimilarity } from './record-matching.js';

/** The verdict on one entry of a bibliography. */
export type CheckStatus = 'exists' | 'mismatch' | 'not_found';
/** Fields that can disagree with the matched record. */
export type CheckedField = 'year' | 'authors' | 'venue' | 'doi';

export interface CheckResult {
  /** 0-based position of the entry in the file. */
  index: number;
  /** The entry's citation key (BibTeX key, RIS ID), when it has one. */
  key: string | null;
  title: string | null;
  status: CheckStatus;
  /** For `mismatch`: the fields that differ from the record. */
  fields: CheckedField[];
  /** The record the entry was matched to (null for `not_found`). */
  paper: Paper | null;
  /** Title similarity of the match (0–1), null for `not_found`. */
  confidence: number | null;
}

export interface CheckReport {
  results: CheckResult[];
  counts: Record<CheckStatus, number>;
}

/** Titles at least this similar name the same work (stricter than linking: nothing else is checked first). */
const sameTitle = 0.9;

/**
 * Checks a BibTeX, RIS or CSL-JSON bibliography against the local index, offline: each entry is
 * found by its DOI, then its arXiv id, then by searching its title; an entry whose title no record
 * matches is `not_found`; a match whose year, authors, venue or DOI disagree is a `mismatch` naming
 * them; otherwise it `exists`. Bad files are refused as `import` refuses them (400/413/422, `file`).
 */
export async function checkReferences(
  index: PaperIndex,
  text: string,
  format?: CitationFormat,
): Promise<CheckReport> {
  const { papers, skipped } = parseReferences(text, format);
  const keys = citationKeys(text, format ?? detectFormat(text));
  const skippedAt = new Set(skipped.map((item) => item.index));
  const results: CheckResult[] = [];
  let next = 0;
  const total = papers.length + skipped.length;
  for (let position = 0; position < total; position++) {
    const key = keys.length === total ? (keys[position] ?? null) : null;
    if (skippedAt.has(position)) {
      results.push({
        index: position,
        key,
        title: null,
        status: 'not_found',
        fields: [],
        paper: null,
        confidence: null,
      });
      continue;
    }
    const entry = papers[next++];
    if (entry) results.push({ index: position, key, ...(await checkEntry(index, entry)) });
  }
  const counts: Record<CheckStatus, number> = { exists: 0, mismatch: 0, not_found: 0 };
  for (const result of results) counts[result.status] += 1;
  return { results, counts };
}

async function checkEntry(index: PaperIndex, entry: Paper): Promise<Omit<CheckResult, 'index' | 'key'>> {
  const doi = normalizeDoi(entry.doi ?? entry.identifiers?.doi ?? null);
  const arxiv = normalizeArxivId(entry.identifiers?.arxiv ?? null);
  let best: { paper: Paper; similarity: number } | null = null;
  for (const key of [doi ? `doi:${doi}` : null, arxiv ? `arxiv:${arxiv}` : null]) {
    if (!key) continue;
    const paper = await index.findByKeys([key]);
    const similarity = paper ? titleSimilarity(entry.title, paper.title) : 0;
    if (paper && similarity >= sameTitle) {
      best = { paper, similarity };
      break;
    }
  }
  if (!best) {
    for (const paper of await searchRecords(index, entry.title, { phrase: true })) {
      const similarity = titleSimilarity(entry.title, paper.title);
      if (similarity >= sameTitle && (!best || similarity > best.similarity)) best = { paper, similarity };
    }
  }
  if (!best) {
    return { title: entry.title, status: 'not_found', fields: [], paper: null, confidence: null };
  }
  const fields = differingFields(entry, best.paper);
  return {
    title: entry.title,
    status: fields.length > 0 ? 'mismatch' : 'exists',
    fields,
    paper: best.paper,
    confidence: Math.round(best.similarity * 1000) / 1000,
  };
}

/** The fields of the entry that disagree with the record; a field either side lacks is not judged. */
export function differingFields(entry: Paper, record: Paper): CheckedField[] {
  const fields: CheckedField[] = [];
  const entryYear = yearOf(entry);
  const recordYear = yearOf(record);
  if (entryYear !== null && recordYear !== null && entryYear !== recordYear) fields.push('year');
  if (entry.authors.length > 0 && record.authors.length > 0 && !authorsAgree(entry.authors, record.authors)) {
    fields.push('authors');
  }
  if (entry.venue && record.venue && !venuesAgree(entry.venue, record.venue)) fields.push('venue');
  const entryDoi = normalizeDoi(entry.doi ?? entry.identifiers?.doi ?? null);
  const recordDoi = normalizeDoi(record.doi ?? record.identifiers?.doi ?? null);
  if (entryDoi && recordDoi && entryDoi !== recordDoi) fields.push('doi');
  return fields;
}

function yearOf(paper: Paper): number | null {
  if (paper.year) return paper.year;
  const year = Number(paper.publication_date?.slice(0, 4));
  return Number.isInteger(year) && year > 0 ? year : null;
}

/** Same first author, and at least half of the record's surnames among the entry's. */
function authorsAgree(entryAuthors: readonly string[], recordAuthors: readonly string[]): boolean {
  const first = firstSurname(entryAuthors);
  const recordFirst = firstSurname(recordAuthors);
  if (first && recordFirst && !sameSurname(first, recordFirst)) return false;
  const surnames = (authors: readonly string[]) =>
    authors.map((name) => firstSurname([name])).filter((name): name is string => name !== null);
  const printed = surnames(entryAuthors);
  const known = surnames(recordAuthors);
  const found = known.filter((name) => printed.some((other) => sameSurname(name, other))).length;
  return found >= Math.min(known.length, printed.length) / 2;
}

/** Words that say nothing about which venue it is. */
const venueNoise = new Set(
  'proceedings of the and in on for annual meeting conference international workshop association journal volume vol papers long short main findings'.split(
    ' ',
  ),
);

/**
 * Venues agree when one's significant words (years and filler removed) are mostly in the other, or
 * an acronym of one is a word of the other ("EMNLP" in "Empirical Methods … (EMNLP)").
 */
function venuesAgree(a: string, b: string): boolean {
  const words = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^\p{L}\s]/gu, ' ')
      .split(/\s+/)
      .filter((word) => word.length > 1 && !venueNoise.has(word));
  const left = new Set(words(a));
  const right = new Set(words(b));
  if (left.size === 0 || right.size === 0) return true;
  const shared = [...left].filter((word) => right.has(word)).length;
  if (shared / Math.min(left.size, right.size) >= 0.5) return true;
  // Acronyms from every word but the smallest ("Annual Meeting of the Association for Computational
  // Linguistics" → "amacl", which holds "acl").
  const acronym = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^\p{L}\s]/gu, ' ')
      .split(/\s+/)
      .filter((word) => word.length > 1 && !/^(?:of|the|and|in|on|for|th|st|nd|rd)$/.test(word))
      .map((word) => word[0])
      .join('');
  return (
    [...left].some((word) => word.length >= 3 && acronym(b).includes(word)) ||
    [...right].some((word) => word.length >= 3 && acronym(a).includes(word))
  );
}

/** Citation keys in file order (BibTeX `@type{key,`, RIS `ID  -`, CSL `id`); [] when they cannot be read. */
function citationKeys(text: string, format: CitationFormat | null): string[] {
  if (format === 'bibtex') {
    return [...text.matchAll(/@(\w+)\s*[{(]\s*([^,\s]*)\s*,/g)]
      .filter((match) => !/^(?:string|comment|preamble)$/i.test(match[1] ?? ''))
      .map((match) => match[2] ?? '');
  }
  if (format === 'ris') {
    return text
      .split(/^ER\s+-.*$/m)
      .filter((record) => /^TY\s+-/m.test(record))
      .map((record) => /^ID\s+-\s*(.+)$/m.exec(record)?.[1]?.trim() ?? '');
  }
  return [];
}
