import { normalizeArxivId, normalizeDoi, normalizePmcid } from './identifiers.js';
import type { Paper, PaperIdentifiers, PaperType } from './paper.js';
import { peerReviewedTypes } from './peer-review.js';

/**
 * How the index merges two records of the same paper (one already stored, one arriving from another
 * source or a re-run). Known values win over missing ones; when both are known the more informative
 * wins (longer abstract and author list, more precise date, a specific or reviewed type over `other`
 * or `preprint`, the larger citation count); otherwise the stored value stays, so merging the same
 * record twice changes nothing (re-running an ingest is a no-op).
 */
export function unitePapers(stored: Paper, incoming: Paper): Paper {
  const merged: Paper = {
    ...withoutEmpty(incoming),
    ...withoutEmpty(stored),
    title: stored.title || incoming.title,
    authors: longer(stored.authors, incoming.authors),
    abstract: longerText(stored.abstract, incoming.abstract),
    publication_date: preciseDate(stored.publication_date, incoming.publication_date),
    cited_by_count: maxKnown(stored.cited_by_count, incoming.cited_by_count),
    url: stored.url ?? incoming.url,
    ss_id: stored.ss_id ?? incoming.ss_id,
    doi: stored.doi ?? incoming.doi,
  };
  // A record with no type at all stays without one (filing the same record again changes nothing).
  const type = betterType(stored.type ?? null, incoming.type ?? null);
  if (type !== null || stored.type === null || incoming.type === null) merged.type = type;
  else delete merged.type;
  const identifiers = uniteIdentifiers(stored.identifiers, incoming.identifiers);
  if (identifiers) merged.identifiers = identifiers;
  const assignees = longer(stored.assignees ?? [], incoming.assignees ?? []);
  if (assignees.length > 0) merged.assignees = assignees;
  if (merged.year === undefined || merged.year === null) {
    merged.year = stored.year ?? incoming.year ?? null;
  }
  return merged;
}

/** Strong identifier types that name one paper: two records disagreeing on one are different papers. */
const strongTypes = [
  'doi',
  'arxiv',
  'pmid',
  'pmcid',
  'ss_id',
  'corpus_id',
  'acl',
  'mag',
  'openalex',
  'patent_number',
  'openreview',
  'pmlr',
  'jmlr',
] as const;

/**
 * True when the two records carry a strong identifier of the same type with different values (two
 * DOIs, two patent numbers…). Such records are never merged on title and year alone: many patents
 * share a title, and a conference paper and its journal version have two DOIs.
 */
export function identifiersConflict(a: Paper, b: Paper): boolean {
  const left = strongIdentifiers(a);
  const right = strongIdentifiers(b);
  for (const type of strongTypes) {
    const x = left[type];
    const y = right[type];
    if (x && y && x !== y) return true;
  }
  return false;
}

function strongIdentifiers(paper: Paper): Partial<Record<(typeof strongTypes)[number], string>> {
  const ids = paper.identifiers ?? {};
  const doi = normalizeDoi(paper.doi ?? ids.doi ?? null);
  const ssId = paper.ss_id ?? ids.ss_id ?? null;
  const patent = paper.patent_number ?? ids.patent_number ?? null;
  const result: Partial<Record<(typeof strongTypes)[number], string>> = {};
  if (doi) result.doi = doi;
  const arxiv = normalizeArxivId(ids.arxiv ?? null);
  if (arxiv) result.arxiv = arxiv;
  if (ids.pmid) result.pmid = ids.pmid;
  const pmcid = normalizePmcid(ids.pmcid ?? null);
  if (pmcid) result.pmcid = pmcid;
  if (ssId) result.ss_id = ssId.toLowerCase();
  if (ids.corpus_id) result.corpus_id = ids.corpus_id;
  if (ids.acl) result.acl = ids.acl;
  if (ids.mag) result.mag = ids.mag;
  if (ids.openalex) result.openalex = ids.openalex.toUpperCase();
  if (patent) result.patent_number = patent.toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (ids.openreview) result.openreview = ids.openreview;
  if (ids.pmlr) result.pmlr = ids.pmlr.toLowerCase();
  if (ids.jmlr) result.jmlr = ids.jmlr.toLowerCase();
  return result;
}

function uniteIdentifiers(
  stored: PaperIdentifiers | undefined,
  incoming: PaperIdentifiers | undefined,
): PaperIdentifiers | undefined {
  if (!stored && !incoming) return undefined;
  return { ...withoutEmpty(incoming ?? {}), ...withoutEmpty(stored ?? {}) };
}

/** The object without null, undefined and empty-string fields (so spreading never erases a value). */
function withoutEmpty<T extends object>(value: T): Partial<T> {
  const result: Partial<T> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null || field === undefined || field === '') continue;
    (result as Record<string, unknown>)[key] = field;
  }
  return result;
}

function longer(a: string[], b: string[]): string[] {
  return b.length > a.length ? b : a;
}

function longerText(a: string | null, b: string | null): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return b.length > a.length ? b : a;
}

/** The more precise of two ISO dates (`2019-05-17` over `2019`); the stored one on a tie. */
function preciseDate(a: string | null, b: string | null): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return b.length > a.length && b.startsWith(a.slice(0, 4)) ? b : a;
}

function maxKnown(a: number | null, b: number | null): number | null {
  if (a === null || a === undefined) return b ?? null;
  if (b === null || b === undefined) return a;
  return Math.max(a, b);
}

/** A specific type beats `other`; a reviewed type beats a non-reviewed one (preprint → journal). */
function betterType(stored: string | null, incoming: string | null): string | null {
  if (!stored || stored === 'other') return incoming ?? stored;
  if (!incoming || incoming === 'other') return stored;
  const storedReviewed = peerReviewedTypes.has(stored as PaperType);
  const incomingReviewed = peerReviewedTypes.has(incoming as PaperType);
  return !storedReviewed && incomingReviewed ? incoming : stored;
}
