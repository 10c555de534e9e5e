import type pg from 'pg';
import type { Paper } from '../../domain/paper.js';
import type { IndexClause, IndexPage, IndexQuery } from '../../ports/paper-index.js';
import { bm25Idf, kindCodes } from '../paper-index/index-fields.js';
import { indexTokens } from '../paper-index/index-tokenizer.js';
import { type PlanOptions, planClauses, scoredPhrases } from '../paper-index/query-plan.js';
import { fitsWord } from './postgres-inverted-codec.js';
import { decodeRecord } from './postgres-inverted-prepare.js';

/**
 * Searches of the PostgreSQL index (docs/decisions/0024, 0058): the plan, the phrases scored and
 * their IDF are the SQLite index's; matching, filters, BM25 and the top-k run in
 * `alexandria_inverted_search` over the posting lists, which returns document numbers, their
 * scores and the total; the page's records are then read by document number.
 */
export class InvertedSearch {
  /** Whole-index document counts of clauses (a word, or a phrase's words), for one data version. */
  private documents = new Map<string, number>();
  private documentsVersion = '';
  /** Word ids (never change once given). */
  private readonly wordIds = new Map<string, string>();

  constructor(
    /** Weights of the title, the abstract and the other fields. */
    private readonly weights: [number, number, number],
    private readonly plan: PlanOptions,
    /** The schema of the index's tables: the extension reads them there, not through search_path. */
    private readonly schema: string,
  ) {}

  async search(
    client: pg.PoolClient,
    query: IndexQuery,
    stats: { data_version: string; records: string; tokens: string },
  ): Promise<IndexPage> {
    if (stats.data_version !== this.documentsVersion) {
      this.documents = new Map();
      this.documentsVersion = stats.data_version;
    }
    const records = Number(stats.records);
    // Clauses are told apart by their text, as in the SQLite index's MATCH expression.
    const wordsOf = new Map<string, string[]>();
    const textOf = (clause: IndexClause): string | null => {
      const text = clause.text.trim();
      const words = indexTokens(text).filter(fitsWord);
      if (words.length === 0) return null;
      wordsOf.set(text, words);
      return text;
    };
    const must = unique(query.must.map(textOf));
    const should = unique(query.should.map(textOf)).filter((clause) => !must.includes(clause));
    if (must.length === 0 && should.length === 0) return emptyPage();
    const clauses = [...must, ...should];
    const keyOf = (text: string) => (wordsOf.get(text) as string[]).join(' ');
    await this.lookUp(
      client,
      clauses.map((text) => wordsOf.get(text) as string[]),
    );
    const documents = (text: string) => this.documents.get(keyOf(text)) ?? 0;
    const plan = planClauses(must, should, documents, records, this.plan);
    const phrases = scoredPhrases(plan);
    const index = new Map(clauses.map((text, at) => [text, at]));
    const at = (text: string) => index.get(text) as number;
    const idf = phrases.map((phrase) => bm25Idf(records, documents(phrase)));
    const sort = query.sort === 'cited_by_count' ? 1 : query.sort === 'publication_date' ? 2 : 0;
    const result = await this.run(
      client,
      clauses.map((text) => wordsOf.get(text) as string[]),
      {
        required: plan.must.map(at),
        candidates: plan.must.length > 0 ? [] : plan.candidates.map(at),
        scored: phrases.map(at),
        idf,
        avgdl: records > 0 ? Number(stats.tokens) / records : 1,
        kind: kindCodes[query.kind],
        reviewedOnly: query.peerReviewedOnly,
        startYear: query.startYear ?? null,
        endYear: query.endYear ?? null,
        sort,
        limit: query.limit,
        offset: query.offset,
      },
    );
    const docs = result.rows.map((row) => row.doc);
    const found = await client.query<{ id: string; doc: string; record: Buffer | null }>(
      `SELECT id, doc, ${query.withoutRecords ? 'NULL::bytea AS record' : 'record'} FROM paper_records
       WHERE doc = ANY($1::bigint[])`,
      [docs],
    );
    const byDoc = new Map(found.rows.map((row) => [row.doc, row]));
    const papers: Paper[] = [];
    const ids: number[] = [];
    const scores: number[] = [];
    for (const row of result.rows) {
      const stored = byDoc.get(row.doc);
      if (!stored) continue;
      ids.push(Number(stored.id));
      scores.push(row.score);
      if (stored.record) papers.push(decodeRecord(stored.record));
    }
    return { papers, scores, total: result.total, totalIsExact: true, ids };
  }

  /** Word ids and document counts of the clauses' words; phrase counts (once per data version). */
  private async lookUp(client: pg.PoolClient, clauses: string[][]): Promise<void> {
    const words = [...new Set(clauses.flat())].filter(
      (word) => !this.wordIds.has(word) || !this.documents.has(word),
    );
    if (words.length > 0) {
      const found = await client.query<{ word: string; id: string; records: number }>(
        'SELECT word, id, records FROM paper_words WHERE word = ANY($1::text[])',
        [words],
      );
      for (const word of words) this.documents.set(word, 0);
      if (this.wordIds.size > 200_000) this.wordIds.clear();
      for (const row of found.rows) {
        this.wordIds.set(row.word, row.id);
        this.documents.set(row.word, row.records);
      }
    }
    for (const phrase of clauses.filter((clause) => clause.length > 1)) {
      const key = phrase.join(' ');
      if (this.documents.has(key)) continue;
      const counted = await this.run(client, [phrase], {
        required: [0],
        candidates: [],
        scored: [],
        idf: [],
        avgdl: 1,
        kind: -1,
        reviewedOnly: false,
        startYear: null,
        endYear: null,
        sort: 0,
        limit: 0,
        offset: 0,
      });
      this.documents.set(key, counted.total);
    }
    if (this.documents.size > 100_000) this.documents.clear();
  }

  private async run(
    client: pg.PoolClient,
    clauses: string[][],
    options: {
      required: number[];
      candidates: number[];
      scored: number[];
      idf: number[];
      avgdl: number;
      kind: number;
      reviewedOnly: boolean;
      startYear: number | null;
      endYear: number | null;
      sort: number;
      limit: number;
      offset: number;
    },
  ): Promise<{ rows: Array<{ doc: string; score: number }>; total: number }> {
    // A word the index has never seen gets id 0, which has no postings.
    const words = clauses.flatMap((clause) => clause.map((word) => this.wordIds.get(word) ?? '0'));
    const found = await client.query<{ doc: string | null; score: number | null; total: string }>(
      `SELECT doc, score, total FROM alexandria_inverted_search($1::regnamespace, $2::int8[], $3::int4[], $4::int4[],
         $5::int4[], $6::int4[], $7::float8[], $8::float8[], $9::float8, $10::int4, $11::bool, $12::int4, $13::int4,
         $14::int4, $15::int4, $16::int4)`,
      [
        this.schema,
        words,
        clauses.map((clause) => clause.length),
        options.required,
        options.candidates,
        options.scored,
        options.idf,
        this.weights,
        options.avgdl,
        options.kind,
        options.reviewedOnly,
        options.startYear,
        options.endYear,
        options.sort,
        options.limit,
        options.offset,
      ],
    );
    const rows = found.rows.flatMap((row) =>
      row.doc === null ? [] : [{ doc: row.doc, score: Number(row.score) }],
    );
    return { rows, total: Number(found.rows[0]?.total ?? 0) };
  }
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}

function emptyPage(): IndexPage {
  return { papers: [], scores: [], total: 0, totalIsExact: true, ids: [] };
}
