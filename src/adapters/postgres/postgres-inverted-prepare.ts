import { availableParallelism } from 'node:os';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Piscina } from 'piscina';
import type { Paper } from '../../domain/paper.js';
import { workerModule } from '../../platform/worker-file.js';
import { type IndexedText, indexedText } from '../paper-index/index-fields.js';
import { recordJson } from '../sqlite/paper-record-codec.js';
import { type InvertedDocument, invertedDocument, Vocabulary } from './postgres-inverted-codec.js';
import { RecordMemo } from './record-memo.js';

/**
 * Preparing records for the inverted layout's writes (docs/decisions/0024): each record version's
 * words with their frequencies and positions (`InvertedDocument`) and its deflated JSON, computed
 * before an upsert waits for the write lock. Large batches are prepared on a thread of their own
 * (`postgres-inverted-prepare-worker.ts`), so that the main thread keeps driving the previous
 * batch's transaction; small ones, and records the batch meets later (merged versions, stored
 * versions), are prepared where they are needed.
 */

/** Each record version's inverted document, computed once. */
const documents = new RecordMemo<InvertedDocument>((paper) => invertedDocument(indexedText(paper)));
/** Records deflated ahead of the write, by record version (level 1: 1.4% larger than 6, a third faster). */
const deflatedRecords = new WeakMap<Paper, { json: string; bytes: Buffer }>();

export function documentOf(paper: Paper): InvertedDocument {
  return documents.of(paper);
}

/** The record's canonical JSON: the one prepared ahead, else computed now. */
export function jsonOf(paper: Paper): string {
  return deflatedRecords.get(paper)?.json ?? recordJson(paper);
}

/** The record's stored bytes: deflated ahead when its JSON is the one prepared. */
export function deflated(paper: Paper, json: string): Buffer {
  const ready = deflatedRecords.get(paper);
  return ready && ready.json === json ? ready.bytes : deflateRecord(json);
}

function deflateRecord(json: string): Buffer {
  return deflateRawSync(json, { level: 1 });
}

/** A stored record (deflated canonical JSON) as the paper it holds. */
export function decodeRecord(record: Buffer): Paper {
  return JSON.parse(inflateRawSync(record).toString('utf8')) as Paper;
}

/** Milliseconds this process's main thread spent preparing records, for `npm run bench`. */
export const preparedMs = { total: 0 };

/** What the preparing thread gets: each record's indexed text and the JSON to deflate (or null). */
export interface PrepareTask {
  texts: IndexedText[];
  jsons: Array<string | null>;
}

/**
 * What it returns, flat (one structured clone of a few arrays instead of objects per record): per
 * record its length, word count, occurrence count and deflated length (−1: none); the task's
 * distinct words joined by U+001F (words are runs of letters and digits); all records' word ids
 * (into those words), `starts` and `occurrences` one after another; the deflated bytes one after
 * another.
 */
export interface PrepareResult {
  lengths: Int32Array;
  wordCounts: Int32Array;
  occurrenceCounts: Int32Array;
  deflatedLengths: Int32Array;
  vocabulary: string;
  wordIds: Int32Array;
  starts: Int32Array;
  occurrences: Int32Array;
  deflated: Uint8Array;
}

/** Runs a task (on the preparing thread, or here when there is none). */
export function runPrepareTask(task: PrepareTask): PrepareResult {
  const count = task.texts.length;
  const lengths = new Int32Array(count);
  const wordCounts = new Int32Array(count);
  const occurrenceCounts = new Int32Array(count);
  const deflatedLengths = new Int32Array(count);
  const vocabulary = new Map<string, number>();
  const wordIds: Int32Array[] = [];
  const starts: Int32Array[] = [];
  const occurrences: Int32Array[] = [];
  const bytes: Buffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const document = invertedDocument(task.texts[i] as IndexedText);
    lengths[i] = document.length;
    wordCounts[i] = document.wordIds.length;
    occurrenceCounts[i] = document.occurrences.length;
    const ids = new Int32Array(document.wordIds.length);
    const words = document.vocabulary.words;
    for (let word = 0; word < ids.length; word += 1) {
      const text = words[document.wordIds[word] as number] as string;
      let id = vocabulary.get(text);
      if (id === undefined) {
        id = vocabulary.size;
        vocabulary.set(text, id);
      }
      ids[word] = id;
    }
    wordIds.push(ids);
    starts.push(document.starts);
    occurrences.push(document.occurrences);
    const json = task.jsons[i];
    if (json === null || json === undefined) deflatedLengths[i] = -1;
    else {
      const deflatedJson = deflateRecord(json);
      deflatedLengths[i] = deflatedJson.length;
      bytes.push(deflatedJson);
    }
  }
  return {
    lengths,
    wordCounts,
    occurrenceCounts,
    deflatedLengths,
    vocabulary: [...vocabulary.keys()].join('\x1f'),
    wordIds: concatenated(wordIds),
    starts: concatenated(starts),
    occurrences: concatenated(occurrences),
    deflated: Buffer.concat(bytes),
  };
}

function concatenated(arrays: Int32Array[]): Int32Array {
  let total = 0;
  for (const array of arrays) total += array.length;
  const all = new Int32Array(total);
  let at = 0;
  for (const array of arrays) {
    all.set(array, at);
    at += array.length;
  }
  return all;
}

/** Records per task: small enough that results come back while the batch is still being sent. */
const recordsPerTask = 128;
/** Batches smaller than this are prepared on the calling thread (a thread hop costs more). */
const smallBatch = 64;

/**
 * The preparing thread of one index (started on the first large batch, stopped after a minute
 * idle), or none on a one-core machine, where a second thread would only compete with the first.
 */
export class RecordPreparer {
  private pool: Piscina<PrepareTask, PrepareResult> | undefined;
  private readonly threaded: boolean;
  /** Tasks the thread has run (for tests). */
  tasksRun = 0;

  constructor(options: { threads?: number } = {}) {
    this.threaded = (options.threads ?? (availableParallelism() > 1 ? 1 : 0)) > 0;
  }

  /** Prepares the records not prepared yet; resolves when all are. */
  async prepare(papers: readonly Paper[]): Promise<void> {
    const todo = papers.filter((paper) => !documents.has(paper));
    if (todo.length === 0) return;
    if (!this.threaded || todo.length < smallBatch) {
      await prepareInSlices(todo);
      return;
    }
    this.pool ??= new Piscina<PrepareTask, PrepareResult>({
      ...workerModule(new URL('./postgres-inverted-prepare-worker.js', import.meta.url)),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 60_000,
      atomics: 'disabled',
    });
    const pool = this.pool;
    const tasks: Promise<void>[] = [];
    for (let start = 0; start < todo.length; start += recordsPerTask) {
      const slice = todo.slice(start, start + recordsPerTask);
      const started = performance.now();
      const jsons = slice.map((paper) =>
        deflatedRecords.has(paper) || !paper.title ? null : recordJson(paper),
      );
      const task: PrepareTask = { texts: slice.map(indexedText), jsons };
      preparedMs.total += performance.now() - started;
      tasks.push(
        pool.run(task).then((result) => {
          this.tasksRun += 1;
          const unpacking = performance.now();
          adopt(slice, jsons, result);
          preparedMs.total += performance.now() - unpacking;
        }),
      );
    }
    await Promise.all(tasks);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}

/** Stores a task's results as the records' prepared documents and deflated bytes. */
function adopt(papers: readonly Paper[], jsons: Array<string | null>, result: PrepareResult): void {
  const vocabulary = new Vocabulary(result.vocabulary.length > 0 ? result.vocabulary.split('\x1f') : []);
  let word = 0;
  let start = 0;
  let occurrence = 0;
  let byte = 0;
  for (let i = 0; i < papers.length; i += 1) {
    const paper = papers[i] as Paper;
    const wordCount = result.wordCounts[i] as number;
    const occurrenceCount = result.occurrenceCounts[i] as number;
    documents.remember(paper, {
      length: result.lengths[i] as number,
      vocabulary,
      wordIds: result.wordIds.subarray(word, word + wordCount),
      starts: result.starts.subarray(start, start + wordCount + 1),
      occurrences: result.occurrences.subarray(occurrence, occurrence + occurrenceCount),
    });
    word += wordCount;
    start += wordCount + 1;
    occurrence += occurrenceCount;
    const deflatedLength = result.deflatedLengths[i] as number;
    const json = jsons[i];
    if (deflatedLength >= 0 && json) {
      const bytes = result.deflated.subarray(byte, byte + deflatedLength);
      deflatedRecords.set(paper, { json, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) });
      byte += deflatedLength;
    }
  }
}

/** Records prepared on the calling thread between two turns of the event loop. */
const prepareChunk = 16;

/**
 * Prepares on the calling thread in slices of a few records, yielding to the event loop between
 * slices: the earlier batch's transaction goes on issuing its statements meanwhile (one synchronous
 * pass over 500 records held each of its round trips back by ~75 ms).
 */
async function prepareInSlices(papers: readonly Paper[]): Promise<void> {
  for (let start = 0; start < papers.length; start += prepareChunk) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const started = performance.now();
    for (const paper of papers.slice(start, start + prepareChunk)) {
      documentOf(paper);
      if (deflatedRecords.has(paper) || !paper.title) continue;
      const json = recordJson(paper);
      deflatedRecords.set(paper, { json, bytes: deflateRecord(json) });
    }
    preparedMs.total += performance.now() - started;
  }
}
