import { hash } from 'node:crypto';
import { normalizeTitle } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import { isPatent, isPeerReviewed } from '../../domain/peer-review.js';
import type { IndexKind } from '../../ports/paper-index.js';

/**
 * What every PaperIndex adapter indexes of a record, and how it ranks: the fields and their BM25
 * weights, the filter columns, the facet tokens, the identity-key hash. One place, so that the
 * SQLite and PostgreSQL indexes rank the same records the same way (docs/decisions/0013 and 0024).
 */

/** BM25 weight of each text field (the facet tokens always weigh 0). */
export interface FieldWeights {
  title: number;
  abstract: number;
  authors: number;
  venue: number;
  extra: number;
}

/** Chosen on SciFact and known-title search (docs/decisions, search ranking). */
export const defaultFieldWeights: FieldWeights = {
  title: 3,
  abstract: 1,
  authors: 0.5,
  venue: 0.5,
  extra: 0.5,
};

/** FTS5's IDF: ln((N − n + 0.5) / (n + 0.5)), clamped to 1e-6 when not positive. */
export function bm25Idf(records: number, holding: number): number {
  const idf = Math.log((records - holding + 0.5) / (holding + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

export const kindCodes: Record<IndexKind, number> = { paper: 0, patent: 1 };

/**
 * Filter tokens (kind, year, reviewed). The SQLite index keeps them in a `facets` column of weight
 * 0; their `zz` prefix keeps them apart from anything a user writes. They count in a record's
 * length (in every adapter, so that lengths agree).
 */
export const facetTokens = {
  kind: (kind: IndexKind) => `zzk${kind}`,
  reviewed: (reviewed: boolean) => `zzr${reviewed ? 1 : 0}`,
  year: (year: number | null) => `zzy${year ?? 0}`,
};

/** The facet tokens of one record, as stored with it and counted per token. */
export function facetsOf(kind: IndexKind, year: number | null, reviewed: boolean): string[] {
  return [facetTokens.kind(kind), facetTokens.year(year), facetTokens.reviewed(reviewed)];
}

const isoPrefix = /^\d{4}(-\d{2}(-\d{2})?)?/;

/** The sort and filter columns of a record. */
export interface PaperColumns {
  kind: number;
  year: number | null;
  /** Sortable ISO date text (year alone when only the year is known). */
  published: string | null;
  citedByCount: number | null;
  reviewed: boolean;
}

export function paperColumns(paper: Paper): PaperColumns {
  const date = paper.publication_date ? isoPrefix.exec(paper.publication_date)?.[0] : undefined;
  const year = paper.year ?? (date ? Number(date.slice(0, 4)) : null);
  return {
    kind: isPatent(paper) ? kindCodes.patent : kindCodes.paper,
    year,
    published: date ?? (year !== null ? String(year) : null),
    citedByCount: paper.cited_by_count ?? null,
    reviewed: isPeerReviewed(paper),
  };
}

/** The facet tokens of a record (kind, year, reviewed). */
export function facetsFor(paper: Paper): string[] {
  const { kind, year, reviewed } = paperColumns(paper);
  return facetsOf(kind === kindCodes.patent ? 'patent' : 'paper', year, reviewed);
}

/** The indexed text fields of a record, in order: title, abstract, authors, venue, extra. */
export interface IndexedText {
  title: string;
  abstract: string;
  authors: string;
  venue: string;
  /** Identifiers, patent numbers (also digits only) and assignees. */
  extra: string;
}

export function indexedText(paper: Paper): IndexedText {
  const ids = paper.identifiers ?? {};
  const patentNumber = paper.patent_number ?? ids.patent_number ?? null;
  const extra = [
    paper.doi ?? ids.doi,
    ids.arxiv,
    ids.pmid,
    ids.pmcid,
    ids.acl,
    ids.openalex,
    patentNumber,
    patentNumber?.replace(/\D/g, ''),
    ...(paper.assignees ?? []),
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
  return {
    title: paper.title,
    abstract: paper.abstract ?? '',
    authors: paper.authors.join('; '),
    venue: paper.venue ?? '',
    extra: extra.join(' ; '),
  };
}

/** Recent keys' hashes: an upsert hashes each key of a record three or four times. */
const keyHashes = new Map<string, number>();

/** 48 bits of SHA-1: a compact integer key; collisions are resolved by checking the stored record. */
export function keyHash(key: string): number {
  let hashed = keyHashes.get(key);
  if (hashed === undefined) {
    hashed = hash('sha1', key, 'buffer').readUIntBE(0, 6);
    if (keyHashes.size >= 65_536) keyHashes.clear();
    keyHashes.set(key, hashed);
  }
  return hashed;
}

/** Titles too generic to identify a paper on their own ("Introduction", "Preface") never merge. */
export function mergeableTitle(title: string): boolean {
  const normalized = normalizeTitle(title);
  return normalized.length >= 20 || normalized.split(' ').length >= 4;
}
