import { deflateRawSync } from 'node:zlib';
import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { indexedText, keyHash, kindCodes, paperColumns } from '../paper-index/index-fields.js';
import { recordJson } from '../sqlite/paper-record-codec.js';
import { decodeRecord } from './postgres-index-writes.js';
import {
  DocBlock,
  docsPerBlock,
  type InvertedDocument,
  invertedDocument,
  PostingWriter,
} from './postgres-inverted-codec.js';
import { StagedRecords } from './postgres-staged-records.js';

/**
 * The write side of the PostgreSQL index's inverted layout (docs/decisions/0024). A record keeps
 * its id for life; its text lives under a document number. New text (an insert, or a merge that
 * changes the indexed fields) gets the next document number, whose postings are appended to each
 * word's tail (`paper_words.tail_*`, sealed into `paper_postings` when large enough); the old
 * document number becomes a tombstone (its `paper_docs` entry no longer live; its postings stay
 * until they are rewritten). Document frequencies and totals change in the same transaction.
 */

type WritePhase = 'postings' | 'deflate' | 'records' | 'keys' | 'words' | 'seal' | 'docs';

/**
 * Milliseconds this process's inverted-layout writes spent per phase (for `npm run bench`): encoding
 * postings, deflating records, writing records, keys, words (frequencies, tails, sealing), metadata
 * rows and totals.
 */
export const invertedWriteTimings: Record<WritePhase, number> = {
  postings: 0,
  deflate: 0,
  records: 0,
  keys: 0,
  words: 0,
  seal: 0,
  docs: 0,
};

/** A tail is sealed into a block of its own once its docs list reaches this many bytes. */
const sealBytes = 384;

export class InvertedBatch extends StagedRecords {
  /** The stored version and document number of every stored record the batch has seen. */
  private readonly stored = new Map<number, { paper: Paper; doc: number }>();

  private constructor(
    nextId: number,
    private nextDoc: number,
  ) {
    super(nextId);
  }

  static async load(client: pg.PoolClient, papers: readonly Paper[]): Promise<InvertedBatch> {
    const stats = await client.query<{ next_id: string; next_doc: string }>(
      'SELECT next_id, next_doc FROM paper_index_stats',
    );
    const batch = new InvertedBatch(
      Number(stats.rows[0]?.next_id ?? 1),
      Number(stats.rows[0]?.next_doc ?? 1),
    );
    const hashes = [...new Set(papers.flatMap((paper) => identityKeys(paper).map(keyHash)))];
    const found = await client.query<{ hash: string; id: string; doc: string; record: Buffer }>(
      `SELECT k.hash, r.id, r.doc, r.record FROM paper_keys k JOIN paper_records r ON r.id = k.paper_id
       WHERE k.hash = ANY($1::bigint[])`,
      [hashes],
    );
    for (const hash of hashes) batch.keyOwners.set(hash, new Set());
    for (const row of found.rows) {
      const id = Number(row.id);
      batch.keyOwners.get(Number(row.hash))?.add(id);
      if (!batch.records.has(id)) {
        const paper = decodeRecord(row.record);
        batch.records.set(id, paper);
        batch.stored.set(id, { paper, doc: Number(row.doc) });
      }
    }
    return batch;
  }

  async write(client: pg.PoolClient): Promise<void> {
    let lapStart = performance.now();
    const lap = (phase: WritePhase) => {
      const now = performance.now();
      invertedWriteTimings[phase] += now - lapStart;
      lapStart = now;
    };
    const words = new Map<string, { records: number; postings: PostingWriter | null }>();
    const wordOf = (word: string) => {
      let entry = words.get(word);
      if (!entry) {
        entry = { records: 0, postings: null };
        words.set(word, entry);
      }
      return entry;
    };
    const edits: DocEdit[] = [];
    let recordChange = 0;
    let tokenChange = 0;
    const forget = (doc: number, paper: Paper) => {
      const text = documentOf(paper);
      recordChange -= 1;
      tokenChange -= text.length;
      for (const word of text.words.keys()) wordOf(word).records -= 1;
      edits.push({ doc, apply: (block) => block.kill(doc) });
    };
    for (const id of this.deleted) {
      const stored = this.stored.get(id);
      if (stored) forget(stored.doc, stored.paper);
    }
    // Staged records in id order; new text gets document numbers in that order.
    const rows = [...this.staged.entries()].sort(([a], [b]) => a - b);
    const docOf = new Map<number, number>();
    const fresh: Array<[number, Paper]> = [];
    for (const [id, { paper }] of rows) {
      const stored = this.stored.get(id);
      if (stored && sameText(stored.paper, paper)) {
        docOf.set(id, stored.doc);
        edits.push({ doc: stored.doc, apply: (block) => block.put(stored.doc, docEntry(paper)) });
        continue;
      }
      if (stored) forget(stored.doc, stored.paper);
      const doc = this.nextDoc;
      this.nextDoc += 1;
      docOf.set(id, doc);
      fresh.push([doc, paper]);
    }
    for (const [doc, paper] of fresh) {
      const text = documentOf(paper);
      recordChange += 1;
      tokenChange += text.length;
      for (const [word, occurrences] of text.words) {
        const entry = wordOf(word);
        entry.records += 1;
        entry.postings ??= new PostingWriter();
        entry.postings.add(doc, occurrences);
      }
      edits.push({ doc, apply: (block) => block.put(doc, docEntry(paper)) });
    }

    lap('postings');
    if (this.deleted.size > 0) {
      await client.query('DELETE FROM paper_records WHERE id = ANY($1::bigint[])', [[...this.deleted]]);
    }
    if (this.dropKeys.length > 0) {
      await client.query(
        'DELETE FROM paper_keys WHERE (hash, paper_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))',
        [this.dropKeys.map(([hash]) => hash), this.dropKeys.map(([, id]) => id)],
      );
    }
    if (this.staleVectors.size > 0) {
      await client.query('DELETE FROM paper_record_vectors WHERE id = ANY($1::bigint[])', [
        [...this.staleVectors],
      ]);
    }
    if (rows.length > 0) {
      const columns = rows.map(([id, { paper, json }]) => ({
        id,
        doc: docOf.get(id) as number,
        columns: paperColumns(paper),
        length: documentOf(paper).length,
        record: deflated(paper, json),
      }));
      lap('deflate');
      const records = packed(columns.map((row) => row.record));
      await client.query(
        `INSERT INTO paper_records (id, doc, kind, year, published, cited_by_count, reviewed, doclen, record)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int2[], $4::int4[], $5::text[], $6::int8[], $7::bool[],
                              $8::int4[], alexandria_slices($9, $10::int4[]))
         ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, kind = excluded.kind, year = excluded.year,
           published = excluded.published, cited_by_count = excluded.cited_by_count, reviewed = excluded.reviewed,
           doclen = excluded.doclen, record = excluded.record`,
        [
          columns.map((row) => row.id),
          columns.map((row) => row.doc),
          columns.map((row) => row.columns.kind),
          columns.map((row) => row.columns.year),
          columns.map((row) => row.columns.published),
          columns.map((row) => row.columns.citedByCount),
          columns.map((row) => row.columns.reviewed),
          columns.map((row) => row.length),
          records.blob,
          records.lengths,
        ],
      );
      lap('records');
      const keys = rows.flatMap(([id, { keys }]) => keys.map((key): [number, number] => [keyHash(key), id]));
      await client.query(
        'INSERT INTO paper_keys (hash, paper_id) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING',
        [keys.map(([hash]) => hash), keys.map(([, id]) => id)],
      );
    }
    lap('keys');
    const sealed = invertedWriteTimings.seal;
    await writeWords(client, words);
    lap('words');
    invertedWriteTimings.words -= invertedWriteTimings.seal - sealed;
    await writeDocBlocks(client, edits);
    await client.query(
      `UPDATE paper_index_stats SET data_version = data_version + 1, records = records + $1,
         tokens = tokens + $2, next_id = greatest(next_id, $3), next_doc = greatest(next_doc, $4)`,
      [recordChange, tokenChange, this.nextId, this.nextDoc],
    );
    lap('docs');
  }
}

/**
 * Document frequencies and new postings of the batch's words in one statement (a new word gets its
 * id there); tails that grew past `sealBytes` are then moved into sealed blocks.
 */
async function writeWords(
  client: pg.PoolClient,
  words: Map<string, { records: number; postings: PostingWriter | null }>,
): Promise<void> {
  const changed = [...words.entries()]
    .filter(([, entry]) => entry.records !== 0 || entry.postings !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (changed.length === 0) return;
  const docs = packed(changed.map(([, entry]) => entry.postings?.docs.toBuffer() ?? null));
  const positions = packed(changed.map(([, entry]) => entry.postings?.positions.toBuffer() ?? null));
  const written = await client.query<{ id: string; bytes: number | null }>(
    `INSERT INTO paper_words (word, records, tail_docs, tail_positions)
     SELECT * FROM unnest(string_to_array($1, E'\\x1f'), $2::int4[], alexandria_slices($3, $4::int4[]),
                          alexandria_slices($5, $6::int4[]))
     ON CONFLICT (word) DO UPDATE SET records = paper_words.records + excluded.records,
       tail_docs = alexandria_docs_append(paper_words.tail_docs, excluded.tail_docs),
       tail_positions = CASE WHEN excluded.tail_positions IS NULL THEN paper_words.tail_positions
                             WHEN paper_words.tail_positions IS NULL THEN excluded.tail_positions
                             ELSE paper_words.tail_positions || excluded.tail_positions END
     RETURNING id, octet_length(tail_docs) AS bytes`,
    [
      // Words are runs of letters and digits: never the unit separator.
      changed.map(([word]) => word).join('\x1f'),
      changed.map(([, entry]) => entry.records),
      docs.blob,
      docs.lengths,
      positions.blob,
      positions.lengths,
    ],
  );
  const full = written.rows.filter((row) => (row.bytes ?? 0) >= sealBytes).map((row) => row.id);
  const sealing = performance.now();
  if (full.length > 0) {
    await client.query(
      `WITH old AS (SELECT id, tail_docs, tail_positions FROM paper_words WHERE id = ANY($1::int8[]) FOR UPDATE),
            cleared AS (UPDATE paper_words w SET tail_docs = NULL, tail_positions = NULL FROM old
                        WHERE w.id = old.id RETURNING w.id)
       INSERT INTO paper_postings (word, seq, docs, positions)
       SELECT id, nextval('paper_postings_seq'), tail_docs, tail_positions FROM old ORDER BY id`,
      [full],
    );
  }
  invertedWriteTimings.seal += performance.now() - sealing;
}

/** Byte strings as one binary parameter and their lengths (−1: NULL), for `alexandria_slices`. */
function packed(pieces: Array<Buffer | null>): { blob: Buffer; lengths: number[] } {
  return {
    blob: Buffer.concat(pieces.filter((piece): piece is Buffer => piece !== null)),
    lengths: pieces.map((piece) => (piece ? piece.length : -1)),
  };
}

/** A change to one document's metadata entry. */
interface DocEdit {
  doc: number;
  apply: (block: DocBlock) => void;
}

/** Applies the entry edits to the metadata rows they touch (read, changed, written back). */
async function writeDocBlocks(client: pg.PoolClient, edits: DocEdit[]): Promise<void> {
  if (edits.length === 0) return;
  const numbers = [...new Set(edits.map((edit) => Math.floor(edit.doc / docsPerBlock)))].sort(
    (a, b) => a - b,
  );
  const found = await client.query<{ block: number; core: Buffer; keys: Buffer }>(
    'SELECT block, core, keys FROM paper_docs WHERE block = ANY($1::int4[])',
    [numbers],
  );
  const blocks = new Map(found.rows.map((row) => [row.block, new DocBlock(row.core, row.keys)]));
  for (const edit of edits) {
    const number = Math.floor(edit.doc / docsPerBlock);
    let block = blocks.get(number);
    if (!block) {
      block = new DocBlock();
      blocks.set(number, block);
    }
    edit.apply(block);
  }
  await client.query(
    `INSERT INTO paper_docs (block, core, keys) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
     ON CONFLICT (block) DO UPDATE SET core = excluded.core, keys = excluded.keys`,
    [
      numbers,
      numbers.map((n) => (blocks.get(n) as DocBlock).core),
      numbers.map((n) => (blocks.get(n) as DocBlock).keys),
    ],
  );
}

function docEntry(paper: Paper) {
  const columns = paperColumns(paper);
  return {
    length: documentOf(paper).length,
    year: columns.year,
    patent: columns.kind === kindCodes.patent,
    reviewed: columns.reviewed,
    citedByCount: columns.citedByCount,
    published: columns.published,
  };
}

/** Whether two versions of a record index the same text (then its document and postings stay). */
function sameText(a: Paper, b: Paper): boolean {
  const x = indexedText(a);
  const y = indexedText(b);
  return (
    x.title === y.title &&
    x.abstract === y.abstract &&
    x.authors === y.authors &&
    x.venue === y.venue &&
    x.extra === y.extra
  );
}

/** Records deflated ahead of the write, by record version (level 1: 1.4% larger than 6, a third faster). */
const deflatedRecords = new WeakMap<Paper, { json: string; bytes: Buffer }>();

/**
 * Tokenises the records and deflates their JSON before an upsert waits for the write lock, so that
 * this CPU work overlaps the database's work on the previous batch.
 */
export function prepareRecords(papers: readonly Paper[]): void {
  const started = performance.now();
  for (const paper of papers) {
    documentOf(paper);
    if (deflatedRecords.has(paper) || !paper.title) continue;
    const json = recordJson(paper);
    deflatedRecords.set(paper, { json, bytes: deflateRawSync(json, { level: 1 }) });
  }
  preparedMs.total += performance.now() - started;
}

/** Milliseconds this process spent preparing records (tokenising, deflating), for `npm run bench`. */
export const preparedMs = { total: 0 };

/** Records prepared between two turns of the event loop. */
const prepareChunk = 16;

/**
 * `prepareRecords` in slices of a few records, yielding to the event loop between slices: the
 * earlier batch's transaction goes on issuing its statements meanwhile (one synchronous pass over
 * 500 records held each of its round trips back by ~75 ms).
 */
export async function prepareRecordsInSlices(papers: readonly Paper[]): Promise<void> {
  for (let start = 0; start < papers.length; start += prepareChunk) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    prepareRecords(papers.slice(start, start + prepareChunk));
  }
}

function deflated(paper: Paper, json: string): Buffer {
  const ready = deflatedRecords.get(paper);
  return ready && ready.json === json ? ready.bytes : deflateRawSync(json, { level: 1 });
}

/** Each record version's inverted document, computed once (when prepared, and when written). */
const documents = new WeakMap<Paper, InvertedDocument>();

export function documentOf(paper: Paper): InvertedDocument {
  let document = documents.get(paper);
  if (!document) {
    document = invertedDocument(indexedText(paper));
    documents.set(paper, document);
  }
  return document;
}
