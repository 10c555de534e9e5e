import type { Paper } from '../domain/paper.js';
import type { SortOrder } from '../domain/search.js';

/**
 * One clause of an index query. `term` is one word as the user wrote it (the index applies its own
 * tokenising and stemming); `phrase` is words that must appear together in this order. Clauses are
 * plain text: adapters escape them, so no query-language syntax can leak through.
 */
export type IndexClause = { kind: 'term'; text: string } | { kind: 'phrase'; text: string };

/** Which records a query searches: scholarly papers or patents (patents and applications). */
export type IndexKind = 'paper' | 'patent';

/**
 * A search of the local index, already validated and parsed by the search service. Ranking is
 * BM25 over the fields title > abstract > authors, venue and identifiers (field weights), in every
 * adapter (SQLite FTS5 today; PostgreSQL must not fall back to `ts_rank`).
 */
export interface IndexQuery {
  kind: IndexKind;
  /** Clauses every result contains. */
  must: IndexClause[];
  /**
   * Clauses that only rank. When `must` is empty a result contains at least one of them; an adapter
   * may then, for very broad queries, draw candidates from the most selective clauses only (rare
   * words decide BM25 top ranks) while still scoring with all of them.
   */
  should: IndexClause[];
  /** Inclusive publication-year bounds; records without a year are excluded when either is set. */
  startYear?: number;
  endYear?: number;
  /** Keep only peer-reviewed types (`isPeerReviewed` in src/domain/peer-review.ts). */
  peerReviewedOnly: boolean;
  /** `relevance` (BM25), `cited_by_count` (most cited first) or `publication_date` (newest first); ties by BM25. */
  sort: SortOrder;
  /** Results to skip (≥ 0) and to return (1–100). */
  offset: number;
  limit: number;
  /**
   * Only ids, scores and totals: `papers` may come back empty (the records are not read). For
   * callers that re-rank candidates and then read a page of them with `recordsByIds`.
   */
  withoutRecords?: boolean;
}

/** One page of results. */
export interface IndexPage {
  papers: Paper[];
  /** BM25 score of each paper (higher is better), parallel to `papers`. */
  scores: number[];
  /** How many records match; a lower bound when `totalIsExact` is false (counting is capped). */
  total: number;
  totalIsExact: boolean;
  /**
   * The index's internal id of each paper, parallel to `papers` (for `recordVectors`). Adapters
   * that store record vectors fill it; ids are never reused for another record.
   */
  ids?: number[];
}

/** A stored record that has no vector for a model yet (see `recordsWithoutVectors`). */
export interface RecordToEmbed {
  /** The index's internal id. */
  id: number;
  /**
   * The record's version as the index stored it: `putRecordVectors` stores a vector only while the
   * record is still at this version (a record changed meanwhile is embedded again).
   */
  stamp: string;
  paper: Paper;
}

/** A vector computed for `RecordToEmbed` (L2-normalised; adapters may store it quantised). */
export interface RecordVectorEntry {
  id: number;
  stamp: string;
  vector: Float32Array;
}

/** What one `upsert` call did. */
export interface UpsertSummary {
  /** New records. */
  inserted: number;
  /** Records merged into a stored record of the same paper (and stored records folded together). */
  merged: number;
  /** Records identical to what was stored already (a re-run). */
  unchanged: number;
}

/** Figures of the index for monitoring (`/metrics`, `alexandria status`); see `PaperIndex.stats`. */
export interface IndexStats {
  /** Records stored: papers and patents. */
  records: number;
  /**
   * For the model asked about, on an index that stores record vectors: records with a vector for it
   * (`stored`) and records waiting for one (`pending`: new records, records whose title or abstract
   * changed). Absent when no model was asked about or the index stores no vectors.
   */
  vectors?: { model: string; stored: number; pending: number };
}

/**
 * The local index of papers and patents: idempotent upserts keyed by identifiers, BM25 search with
 * filters and sorts, lookup by identity key. Adapters: SQLite FTS5 (embedded; its own file, WAL, so
 * an ingest can write while the server reads). All adapters pass `test/contract/paper-index.contract.ts`.
 */
export interface PaperIndex {
  /**
   * Searches this process sent to the primary database and to read replicas, for an index that has
   * read replicas (PostgreSQL); absent otherwise.
   */
  readonly searchesServed?: { readonly primary: number; readonly replicas: number };
  /**
   * Adds or merges records in ONE transaction (all or nothing). A record is the same paper as a
   * stored one when they share a strong identity key (DOI, arXiv, PMID, PMCID, S2, corpus id, ACL,
   * MAG, OpenAlex, patent number — see `identityKeys`), or else the same normalised title and year
   * with no conflicting identifier. Merged fields follow `unitePapers` (src/domain/paper-union.ts).
   * A record without a title only completes a stored paper it shares a strong key with; otherwise
   * it is refused with an `unprocessable` AppError (the whole call rolls back; callers may retry
   * record by record). `answer` and `entry_id` are not stored. Other errors
   * mean the store itself failed.
   */
  upsert(papers: readonly Paper[]): Promise<UpsertSummary>;
  /** One page of matches for a parsed query. Never throws for odd text: clauses are escaped. */
  search(query: IndexQuery): Promise<IndexPage>;
  /**
   * The stored record that owns any of these identity keys (strings as `identityKeys` and
   * `identifierKey` write them, e.g. `doi:10.1000/x`, `acl:P19-1001`), or null.
   */
  findByKeys(keys: readonly string[]): Promise<Paper | null>;
  /**
   * A short opaque token naming this index and the state of its data: it changes with every
   * committed write that changed a record, whichever process made it (an `alexandria ingest`
   * beside the server included), and two different indexes (two replicas' own files) never share
   * one. Caches of answers computed from the index key them with it, read before computing, so an
   * answer is never served after a newer commit, nor by a replica with another index. Cheap: one
   * small read per call.
   */
  dataVersion(): Promise<string>;
  /** How many papers and patents are stored. */
  count(): Promise<{ papers: number; patents: number }>;
  /**
   * How many records are stored and, with `vectorModel`, how many of them have a vector for it and
   * how many wait for one. Read at every /metrics scrape (at most every few seconds): costs no more
   * than counting the stored vectors of one model (PostgreSQL reads the record total from its
   * statistics row). Reads the primary (PostgreSQL), so a backlog drains as the writes land.
   */
  stats(vectorModel?: string): Promise<IndexStats>;
  /**
   * Compacts the index after a bulk load (SQLite: merges the FTS5 segments into one, which takes
   * about a minute per million records and speeds up queries). Adapters with nothing to do resolve.
   */
  optimize(): Promise<void>;
  /**
   * Record vectors (dense search, docs/decisions/0036-hybrid-paper-search.md): optional, together.
   * Vectors are keyed by record id and model id; a re-upsert that changes a record's title or
   * abstract drops its vectors (they are computed again), a record folded into another loses its.
   *
   * Up to `limit` records with an id above `afterId` that have no vector for `model`, by id.
   */
  recordsWithoutVectors?(model: string, afterId: number, limit: number): Promise<RecordToEmbed[]>;
  /**
   * Stores vectors for `model`; an entry whose record is gone or no longer at `stamp` is skipped.
   * Returns how many were stored.
   */
  putRecordVectors?(model: string, entries: readonly RecordVectorEntry[]): Promise<number>;
  /** The stored vectors of these records for `model` (records without one are absent). */
  recordVectors?(model: string, ids: readonly number[]): Promise<Map<number, Float32Array>>;
  /** Stored records by internal id (ids no longer stored are absent). */
  recordsByIds?(ids: readonly number[]): Promise<Map<number, Paper>>;
  /** How many records have a vector for `model`, and how many records there are. */
  vectorCoverage?(model: string): Promise<{ withVectors: number; records: number }>;
  /** Throws when the index cannot answer (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
