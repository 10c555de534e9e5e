import type { ReferenceEntry } from '../../bibliography/references.js';
import { normalizeArxivId, normalizeDoi } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import { type CitationFormat, detectFormat, parseReferences } from '../export/citation-formats.js';
import type { OnlineRecords } from './online-records.js';
import {
  arxivInVenue,
  fieldsOfPaper,
  isPreprint,
  isPublished,
  publishedVersionOf,
  type WorkFields,
} from './preprints.js';
import { firstSurname, sameSurname, searchRecords, titleSimilarity } from './record-matching.js';
import type { ReferenceLink } from './reference-linker.js';

/** The verdict on one entry of a bibliography. */
export const checkStatuses = ['exists', 'mismatch', 'not_found', 'preprint_now_published'] as const;
export type CheckStatus = (typeof checkStatuses)[number];
/** Fields that can disagree with the matched record. */
export type CheckedField = 'year' | 'authors' | 'venue' | 'doi';

export interface CheckResult {
  /** 0-based position of the entry in the file (or in the PDF's reference list). */
  index: number;
  /** The entry's citation key (BibTeX key, RIS ID; a PDF entry's label or number), when it has one. */
  key: string | null;
  title: string | null;
  status: CheckStatus;
  /** For `mismatch`: the fields that differ from the record (for `preprint_now_published`: from the preprint record). */
  fields: CheckedField[];
  /** The record the entry was matched to (null for `not_found`). */
  paper: Paper | null;
  /** Title similarity of the match (0–1), null for `not_found`. */
  confidence: number | null;
  /** For `preprint_now_published`: the preprint record matched (null when only the entry itself is the preprint form). */
  preprint: Paper | null;
  /** For `preprint_now_published`: the published version of the work. */
  published: Paper | null;
  /** The entry as printed, for entries of a PDF's reference list. */
  raw?: string;
}

export interface CheckReport {
  results: CheckResult[];
  counts: Record<CheckStatus, number>;
  /** False when a federated source failed or was skipped for some entry (online checks only). */
  complete: boolean;
}

/**
 * How far a check got: the results of the entries checked so far, in order, and whether every
 * source answered for them. A check fills it as it goes and starts after the results it already
 * holds, so a check stopped by its time budget goes on where it stopped (decision 0042).
 */
export interface CheckProgress {
  results: CheckResult[];
  complete: boolean;
}

/** Where a check looks: the local index, and the federated sources when online. */
export interface CheckContext {
  index: PaperIndex;
  online?: OnlineRecords | undefined;
  signal?: AbortSignal | undefined;
  /** `performance.now()` after which the sources are no longer asked (the report is then incomplete). */
  onlineUntil?: number | undefined;
}

/** One entry to check: its fields, and (for a PDF's list) the record linking already found. */
export interface CheckItem {
  index: number;
  key: string | null;
  fields: WorkFields;
  link?: ReferenceLink | null;
  raw?: string;
}

/** Titles at least this similar name the same work (stricter than linking: nothing else is checked first). */
const sameTitle = 0.9;
/** A title at least this similar is the same title whoever is named as its author. */
const nearlySameTitle = 0.97;
/** Candidates within this title similarity of the best are told apart by the fields that differ. */
const similarityTie = 0.02;

/**
 * Checks a BibTeX, RIS or CSL-JSON bibliography against the local index (and, when `online` is
 * given, the federated sources for entries the index does not resolve): each entry is found by
 * its DOI, then its arXiv id, then by searching its title; an entry whose title no record matches
 * is `not_found`; a preprint whose published version is known is `preprint_now_published`; a
 * match whose year, authors, venue or DOI disagree is a `mismatch` naming them; otherwise it
 * `exists`. Bad files are refused as `import` refuses them (400/413/422, `file`).
 */
export async function checkReferences(
  index: PaperIndex | CheckContext,
  text: string,
  format?: CitationFormat,
  progress: CheckProgress = { results: [], complete: true },
): Promise<CheckReport> {
  const context: CheckContext = 'search' in index ? { index } : index;
  const { papers, skipped } = parseReferences(text, format);
  const keys = citationKeys(text, format ?? detectFormat(text));
  const skippedAt = new Set(skipped.map((item) => item.index));
  const items: Array<CheckItem | { index: number; key: string | null; skipped: true }> = [];
  let next = 0;
  const total = papers.length + skipped.length;
  for (let position = 0; position < total; position++) {
    const key = keys.length === total ? (keys[position] ?? null) : null;
    if (skippedAt.has(position)) {
      items.push({ index: position, key, skipped: true });
      continue;
    }
    const entry = papers[next++];
    if (entry) items.push({ index: position, key, fields: fieldsOfEntry(entry) });
  }
  for (const item of items.slice(progress.results.length)) {
    context.signal?.throwIfAborted();
    if ('skipped' in item) {
      progress.results.push({ ...notFound(null), index: item.index, key: item.key });
      continue;
    }
    const checked = await checkItem(context, item);
    progress.complete &&= checked.complete;
    progress.results.push(checked.result);
  }
  const { results, complete } = progress;
  return { results, counts: countStatuses(results), complete };
}

/** Checks the parsed entries of a PDF's reference list, reusing the links `/api/references` made. */
export async function checkReferenceEntries(
  context: CheckContext,
  entries: readonly ReferenceEntry[],
  links: ReadonlyArray<ReferenceLink | null>,
  progress: CheckProgress = { results: [], complete: true },
): Promise<CheckReport> {
  for (let at = progress.results.length; at < entries.length; at++) {
    const entry = entries[at] as ReferenceEntry;
    context.signal?.throwIfAborted();
    const checked = await checkItem(context, {
      index: at,
      key: entry.label ?? (entry.number === null ? null : String(entry.number)),
      fields: {
        title: entry.title,
        authors: entry.authors,
        year: entry.year,
        venue: entry.venue,
        doi: normalizeDoi(entry.doi),
        arxiv: normalizeArxivId(entry.arxiv) ?? arxivInVenue(entry.venue),
      },
      link: links[at] ?? null,
      raw: entry.raw,
    });
    progress.complete &&= checked.complete;
    progress.results.push(checked.result);
  }
  const { results, complete } = progress;
  return { results, counts: countStatuses(results), complete };
}

function countStatuses(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = {
    exists: 0,
    mismatch: 0,
    not_found: 0,
    preprint_now_published: 0,
  };
  for (const result of results) counts[result.status] += 1;
  return counts;
}

/** A BibTeX/RIS/CSL record as the fields a check compares (an arXiv id printed in the venue too). */
function fieldsOfEntry(entry: Paper): WorkFields {
  const fields = fieldsOfPaper(entry);
  return { ...fields, arxiv: fields.arxiv ?? arxivInVenue(fields.venue) };
}

function notFound(title: string | null, raw?: string): Omit<CheckResult, 'index' | 'key'> {
  return {
    title,
    status: 'not_found',
    fields: [],
    paper: null,
    confidence: null,
    preprint: null,
    published: null,
    ...(raw === undefined ? {} : { raw }),
  };
}

interface Match {
  paper: Paper;
  similarity: number;
}

async function checkItem(
  context: CheckContext,
  item: CheckItem,
): Promise<{ result: CheckResult; complete: boolean }> {
  const entry = item.fields;
  const head = { index: item.index, key: item.key };
  const raw = item.raw === undefined ? {} : { raw: item.raw };
  let complete = true;
  // Out of time for the sources: this entry is checked against the index alone.
  const late =
    context.online !== undefined &&
    context.onlineUntil !== undefined &&
    performance.now() > context.onlineUntil;
  if (late) context = { ...context, online: undefined };
  // Records of the same work seen on the way: where a preprint's published version is looked for.
  const pool: Paper[] = [];
  let best: Match | null = null;
  if (item.link) {
    best = {
      paper: item.link.paper,
      similarity: entry.title ? titleSimilarity(entry.title, item.link.paper.title) : item.link.confidence,
    };
  }
  if (!best) best = await byIdentifiers(context, entry);
  if (!best && entry.title) {
    const candidates = await searchRecords(context.index, entry.title, { phrase: true });
    pool.push(...candidates);
    best = choose(entry, candidates);
  }
  if (!best && context.online) {
    for (const [type, value] of [
      ['DOI', entry.doi],
      ['ARXIV', entry.arxiv],
    ] as const) {
      if (!value || best) continue;
      const found = await context.online.byIdentifier({ type, value }, context.signal);
      complete &&= found.complete;
      if (found.paper && entry.title && titleSimilarity(entry.title, found.paper.title) >= sameTitle) {
        best = { paper: found.paper, similarity: titleSimilarity(entry.title, found.paper.title) };
      }
    }
    if (!best && entry.title) {
      const found = await context.online.searchTitle(entry.title, context.signal);
      complete &&= found.complete;
      pool.push(...found.papers);
      best = choose(entry, found.papers);
    }
  }
  if (!best) return { result: { ...head, ...notFound(entry.title, item.raw) }, complete: complete && !late };
  const confidence = Math.round(best.similarity * 1000) / 1000;
  const matched = { ...head, title: entry.title, paper: best.paper, confidence, ...raw };

  const record = fieldsOfPaper(best.paper);
  if (isPreprint(record)) {
    const published = await findPublished(context, record, best.paper, pool);
    complete &&= published.complete && !(late && !published.paper);
    if (published.paper) {
      return {
        result: {
          ...matched,
          status: 'preprint_now_published',
          fields: differingFields(entry, best.paper),
          preprint: best.paper,
          published: published.paper,
        },
        complete,
      };
    }
  } else if (
    isPreprint(entry) &&
    isPublished(best.paper) &&
    !differingFields(entry, best.paper).includes('authors')
  ) {
    // The entry cites the preprint form of a work whose published record is what was found.
    return {
      result: {
        ...matched,
        status: 'preprint_now_published',
        fields: [],
        preprint: null,
        published: best.paper,
      },
      complete,
    };
  }
  const fields = differingFields(entry, best.paper);
  return {
    result: {
      ...matched,
      status: fields.length > 0 ? 'mismatch' : 'exists',
      fields,
      preprint: null,
      published: null,
    },
    complete,
  };
}

/** The local record of the entry's DOI, then of its arXiv id, when its title is the entry's. */
async function byIdentifiers(context: CheckContext, entry: WorkFields): Promise<Match | null> {
  for (const key of [entry.doi ? `doi:${entry.doi}` : null, entry.arxiv ? `arxiv:${entry.arxiv}` : null]) {
    if (!key) continue;
    const paper = await context.index.findByKeys([key]);
    const similarity = paper && entry.title ? titleSimilarity(entry.title, paper.title) : 0;
    if (paper && similarity >= sameTitle) return { paper, similarity };
  }
  return null;
}

/**
 * The candidate naming the entry's work: title ≥ 0.9; among titles about as similar as the best,
 * the record with the fewest fields differing from the entry (so an entry citing the preprint finds
 * the preprint record, and one citing the proceedings finds the proceedings, when both are known).
 */
function choose(entry: WorkFields, candidates: readonly Paper[]): Match | null {
  if (!entry.title) return null;
  const title = entry.title;
  const entrySurname = firstSurname(entry.authors);
  const scored = candidates
    .map((paper) => ({ paper, similarity: titleSimilarity(title, paper.title) }))
    .filter((match) => {
      if (match.similarity < sameTitle) return false;
      // A title that is close but not the same ("Language Models are Few-shot Learners" and
      // "… Few-shot Multilingual Learners") names the work only with the same first author.
      if (match.similarity >= nearlySameTitle) return true;
      const recordSurname = firstSurname(match.paper.authors);
      return !entrySurname || !recordSurname || sameSurname(entrySurname, recordSurname);
    });
  const top = Math.max(0, ...scored.map((match) => match.similarity));
  const close = scored
    .filter((match) => match.similarity >= top - similarityTie)
    .map((match) => ({ ...match, differing: differingFields(entry, match.paper).length }))
    .sort((a, b) => a.differing - b.differing || b.similarity - a.similarity);
  const first = close[0];
  return first ? { paper: first.paper, similarity: first.similarity } : null;
}

/** The published version of a preprint record: among the records seen, the index's, then the sources'. */
async function findPublished(
  context: CheckContext,
  preprint: WorkFields,
  record: Paper,
  pool: readonly Paper[],
): Promise<{ paper: Paper | null; complete: boolean }> {
  const others = (papers: readonly Paper[]) => papers.filter((paper) => paper !== record);
  const seen = publishedVersionOf(preprint, others(pool));
  if (seen) return { paper: seen, complete: true };
  const local = publishedVersionOf(
    preprint,
    others(await searchRecords(context.index, record.title, { phrase: true, limit: 10 })),
  );
  if (local || !context.online) return { paper: local, complete: true };
  const found = await context.online.searchTitle(record.title, context.signal);
  return { paper: publishedVersionOf(preprint, others(found.papers)), complete: found.complete };
}

/** The fields of the entry that disagree with the record; a field either side lacks is not judged. */
export function differingFields(entry: WorkFields, record: Paper): CheckedField[] {
  const fields: CheckedField[] = [];
  const entryYear = entry.year;
  const recordYear = yearOf(record);
  if (entryYear !== null && recordYear !== null && entryYear !== recordYear) fields.push('year');
  if (entry.authors.length > 0 && record.authors.length > 0 && !authorsAgree(entry.authors, record.authors)) {
    fields.push('authors');
  }
  if (entry.venue && record.venue && !venuesAgree(entry.venue, record.venue)) fields.push('venue');
  const entryDoi = normalizeDoi(entry.doi);
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
  'proceedings of the and in on for annual meeting conference international workshop association journal volume vol papers long short main findings page pages pp no'.split(
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
  // Linguistics" → "amacl", which holds "acl"), and without the words an acronym skips ("North
  // American Chapter of the Association …" → "naacl…", "European Chapter …" → "eacl").
  const acronyms = (text: string) => {
    const words = text
      .toLowerCase()
      .replace(/[^\p{L}\s]/gu, ' ')
      .split(/\s+/)
      .filter((word) => word.length > 1 && !/^(?:of|the|and|in|on|for|th|st|nd|rd)$/.test(word));
    const initials = (list: string[]) => list.map((word) => word[0]).join('');
    return [
      initials(words),
      initials(
        words.filter(
          (word) => !/^(?:proceedings|conference|chapter|annual|meeting|international|volume)$/.test(word),
        ),
      ),
    ];
  };
  const holds = (venue: string, word: string) => acronyms(venue).some((acronym) => acronym.includes(word));
  return (
    [...left].some((word) => word.length >= 3 && holds(b, word)) ||
    [...right].some((word) => word.length >= 3 && holds(a, word))
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
