import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { indexedText, keyHash, kindCodes, paperColumns } from '../paper-index/index-fields.js';
import {
  ByteWriter,
  DocBlock,
  docsPerBlock,
  documentWords,
  encodePosting,
  type InvertedDocument,
  type Vocabulary,
} from './postgres-inverted-codec.js';
import { decodeRecord, deflated, documentOf, jsonOf } from './postgres-inverted-prepare.js';
import { StagedRecords } from './postgres-staged-records.js';

/**
 * The write side of the PostgreSQL index (its one layout, inverted: docs/decisions/0024, 0058). A record keeps
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

  /** A batch that has seen no stored record yet (the next id and document number read). */
  static async start(client: pg.PoolClient): Promise<InvertedBatch> {
    const stats = await client.query<{ next_id: string; next_doc: string }>(
      'SELECT next_id, next_doc FROM paper_index_stats',
    );
    return new InvertedBatch(Number(stats.rows[0]?.next_id ?? 1), Number(stats.rows[0]?.next_doc ?? 1));
  }

  /** A batch for an upsert of `papers`: the stored records owning any of their keys read. */
  static async load(client: pg.PoolClient, papers: readonly Paper[]): Promise<InvertedBatch> {
    const batch = await InvertedBatch.start(client);
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

  protected override jsonOf(paper: Paper): string {
    return jsonOf(paper);
  }

  async write(client: pg.PoolClient): Promise<void> {
    let lapStart = performance.now();
    const lap = (phase: WritePhase) => {
      const now = performance.now();
      invertedWriteTimings[phase] += now - lapStart;
      lapStart = now;
    };
    const words = new BatchWords();
    const edits: DocEdit[] = [];
    let recordChange = 0;
    let tokenChange = 0;
    const forget = (doc: number, paper: Paper) => {
      const text = documentOf(paper);
      recordChange -= 1;
      tokenChange -= text.length;
      for (const word of documentWords(text)) words.count(word, -1);
      edits.push({ doc, apply: (block) => block.kill(doc) });
    };
    for (const id of this.deleted) {
      const stored = this.stored.get(id);
      if (stored) forget(stored.doc, stored.paper);
    }
    // Staged records in id order; new text gets document numbers in that order.
    const rows = this.stagedInOrder();
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
      words.post(doc, text);
      edits.push({ doc, apply: (block) => block.put(doc, docEntry(paper)) });
    }
    const encoded = words.encode();

    lap('postings');
    await this.writeRemovals(client);
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
      await this.writeKeys(client, rows);
    }
    lap('keys');
    const sealed = invertedWriteTimings.seal;
    await writeWords(client, encoded);
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

/** A batch's words as the words statement takes them: sorted, with frequency changes and new postings. */
interface EncodedWords {
  words: string[];
  records: number[];
  docs: { blob: Buffer; lengths: number[] };
  positions: { blob: Buffer; lengths: number[] };
}

/**
 * The words a batch changes: each word's document-frequency change and its new postings. Postings
 * are collected as references (word, document, word of the document) and encoded word by word into
 * one buffer at the end, rather than into a growing buffer per word.
 */
class BatchWords {
  private readonly slots = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly records: number[] = [];
  private readonly postings: number[] = [];
  /** Per posting: its word's slot, its document number, its document (index) and word in it. */
  private refs = new Int32Array(4 * 4096);
  private refCount = 0;
  private readonly documents: InvertedDocument[] = [];

  count(word: string, change: number): number {
    let slot = this.slots.get(word);
    if (slot === undefined) {
      slot = this.names.length;
      this.slots.set(word, slot);
      this.names.push(word);
      this.records.push(0);
      this.postings.push(0);
    }
    this.records[slot] = (this.records[slot] as number) + change;
    return slot;
  }

  /** A new document's postings (documents come in ascending number). */
  post(doc: number, document: InvertedDocument): void {
    const index = this.documents.length;
    this.documents.push(document);
    const slots = this.slotsOf(document.vocabulary);
    const names = document.vocabulary.words;
    for (let word = 0; word < document.wordIds.length; word += 1) {
      const id = document.wordIds[word] as number;
      let slot = slots[id] as number;
      if (slot < 0) {
        slot = this.count(names[id] as string, 0);
        slots[id] = slot;
      }
      this.records[slot] = (this.records[slot] as number) + 1;
      this.postings[slot] = (this.postings[slot] as number) + 1;
      if (4 * (this.refCount + 1) > this.refs.length) {
        const bigger = new Int32Array(this.refs.length * 2);
        bigger.set(this.refs);
        this.refs = bigger;
      }
      const at = 4 * this.refCount;
      this.refs[at] = slot;
      this.refs[at + 1] = doc;
      this.refs[at + 2] = index;
      this.refs[at + 3] = word;
      this.refCount += 1;
    }
  }

  /** The batch slots of a vocabulary's words (looked up once per batch and vocabulary). */
  private slotsOf(vocabulary: Vocabulary): Int32Array {
    if (vocabulary.slotsOwner !== this || !vocabulary.slots) {
      vocabulary.slots = new Int32Array(vocabulary.words.length).fill(-1);
      vocabulary.slotsOwner = this;
    }
    return vocabulary.slots;
  }

  /** The changed words sorted (rows locked in one order by every writer), postings encoded. */
  encode(): EncodedWords {
    const slotCount = this.names.length;
    // Postings grouped by word, each group in document order (a counting sort keeps the order).
    const first = new Int32Array(slotCount + 1);
    for (let slot = 0; slot < slotCount; slot += 1) {
      first[slot + 1] = (first[slot] as number) + (this.postings[slot] as number);
    }
    const order = new Int32Array(this.refCount);
    const next = first.slice(0, slotCount);
    for (let ref = 0; ref < this.refCount; ref += 1) {
      const slot = this.refs[4 * ref] as number;
      order[next[slot] as number] = ref;
      next[slot] = (next[slot] as number) + 1;
    }
    const changed: number[] = [];
    for (let slot = 0; slot < slotCount; slot += 1) {
      if (this.records[slot] !== 0 || this.postings[slot] !== 0) changed.push(slot);
    }
    const names = this.names;
    changed.sort((a, b) => {
      const x = names[a] as string;
      const y = names[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const docs = new ByteWriter(8 * this.refCount + 64);
    const positions = new ByteWriter(16 * this.refCount + 64);
    const docLengths: number[] = [];
    const positionLengths: number[] = [];
    for (const slot of changed) {
      if (this.postings[slot] === 0) {
        docLengths.push(-1);
        positionLengths.push(-1);
        continue;
      }
      const docsStart = docs.length;
      const positionsStart = positions.length;
      let last = 0;
      for (let i = first[slot] as number; i < (first[slot + 1] as number); i += 1) {
        const at = 4 * (order[i] as number);
        const doc = this.refs[at + 1] as number;
        const document = this.documents[this.refs[at + 2] as number] as InvertedDocument;
        const word = this.refs[at + 3] as number;
        encodePosting(
          docs,
          positions,
          doc - last,
          document.occurrences,
          document.starts[word] as number,
          document.starts[word + 1] as number,
        );
        last = doc;
      }
      docLengths.push(docs.length - docsStart);
      positionLengths.push(positions.length - positionsStart);
    }
    return {
      words: changed.map((slot) => names[slot] as string),
      records: changed.map((slot) => this.records[slot] as number),
      docs: { blob: docs.toBuffer(), lengths: docLengths },
      positions: { blob: positions.toBuffer(), lengths: positionLengths },
    };
  }
}

/**
 * Document frequencies and new postings of the batch's words in one statement (a new word gets its
 * id there); tails that grew past `sealBytes` are then moved into sealed blocks.
 */
async function writeWords(client: pg.PoolClient, words: EncodedWords): Promise<void> {
  if (words.words.length === 0) return;
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
      words.words.join('\x1f'),
      words.records,
      words.docs.blob,
      words.docs.lengths,
      words.positions.blob,
      words.positions.lengths,
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
