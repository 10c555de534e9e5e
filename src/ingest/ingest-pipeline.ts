import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAppError } from '../domain/errors.js';
import type { Paper } from '../domain/paper.js';
import type { PaperIndex, UpsertSummary } from '../ports/paper-index.js';
import {
  detectFormat,
  detectionHeadLength,
  findFormat,
  type IngestFormat,
  ingestFormats,
} from './formats/index.js';
import { decodeText } from './formats/lines.js';
import { decompressed, displayName, fileInput, type IngestInput } from './ingest-inputs.js';

/** Where a rejected record was, and why. */
export interface Rejection {
  file: string;
  location: string;
  reason: string;
}

/** What happened to one input. */
export interface FileReport {
  file: string;
  /** The format used, or null when none was recognised (the file is skipped). */
  format: string | null;
  read: number;
  rejected: number;
  /** Why the whole file could not be read (unknown format, corrupt gzip…), when it could not. */
  error?: string;
}

/** Progress of a run, reported about twice a second and once at the end. */
export interface IngestProgress {
  file: string;
  fileIndex: number;
  fileCount: number;
  /** Records read so far in the run (accepted + rejected). */
  read: number;
  inserted: number;
  merged: number;
  unchanged: number;
  rejected: number;
  /** Raw bytes read so far across the run, and the total when every input's size is known. */
  bytes: number;
  totalBytes: number | undefined;
  elapsedMs: number;
}

/** The summary of a run. */
export interface IngestReport extends UpsertSummary {
  read: number;
  rejected: number;
  /** Rejections counted by reason, most frequent first. */
  reasons: Array<{ reason: string; count: number }>;
  /** The first rejections with their file and location (at most `maxExamples`). */
  examples: Rejection[];
  files: FileReport[];
  elapsedMs: number;
}

/**
 * Records per transaction unless asked otherwise: 1,000 ingested the real corpora fastest into the
 * PostgreSQL index (fewer rewrites of each word's row than 500, a shorter pipeline fill than 2,000;
 * docs/decisions/0024) and no slower into SQLite.
 */
export const defaultIngestBatchSize = 1000;

export interface IngestOptions {
  /** Format name (`--format`); detected per file when absent. */
  format?: string;
  /** Records per transaction (`defaultIngestBatchSize`): an interruption loses at most the batch in flight. */
  batchSize?: number;
  onProgress?: (progress: IngestProgress) => void;
  /** Milliseconds between progress reports (default 500). */
  progressIntervalMs?: number;
  maxExamples?: number;
  signal?: AbortSignal;
}

/**
 * Streams every input through its format reader into the index, in batches of one transaction each.
 * A bad record is counted with its location and reason and never stops the run; a file that cannot
 * be read at all (unknown format, corrupt compression) is reported and the next one goes on. Memory
 * stays bounded by one batch plus the reader's own buffer, whatever the input size.
 */
export async function ingest(
  index: PaperIndex,
  inputs: readonly IngestInput[],
  options: IngestOptions = {},
): Promise<IngestReport> {
  const chosen = options.format === undefined ? undefined : requireFormat(options.format);
  const batchSize = options.batchSize ?? defaultIngestBatchSize;
  const interval = options.progressIntervalMs ?? 500;
  const maxExamples = options.maxExamples ?? 20;
  const started = performance.now();
  const totals = { read: 0, inserted: 0, merged: 0, unchanged: 0, rejected: 0 };
  const reasons = new Map<string, number>();
  const examples: Rejection[] = [];
  const files: FileReport[] = [];
  const knownSizes = inputs.every((input) => input.size !== undefined);
  const totalBytes = knownSizes ? inputs.reduce((sum, input) => sum + (input.size ?? 0), 0) : undefined;
  let bytesBefore = 0;
  let lastReport = 0;
  const companionsOfOthers = companionInputs(inputs);

  for (const [fileIndex, input] of inputs.entries()) {
    options.signal?.throwIfAborted();
    const file = displayName(input);
    const report: FileReport = { file: input.name, format: null, read: 0, rejected: 0 };
    files.push(report);
    if (companionsOfOthers.has(input.name)) {
      // Read with its main table (PatentsView's g_patent.tsv in the same folder), not on its own.
      report.format = 'companion table';
      bytesBefore += input.size ?? 0;
      continue;
    }
    const opened = decompressed(input);
    const progress = (force = false) => {
      const now = performance.now();
      if (!options.onProgress || (!force && now - lastReport < interval)) return;
      lastReport = now;
      options.onProgress({
        file,
        fileIndex,
        fileCount: inputs.length,
        ...totals,
        bytes: bytesBefore + Math.min(opened.rawBytes(), input.size ?? Number.POSITIVE_INFINITY),
        totalBytes,
        elapsedMs: now - started,
      });
    };
    const reject = (location: string, reason: string) => {
      totals.rejected += 1;
      report.rejected += 1;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      if (examples.length < maxExamples) examples.push({ file: input.name, location, reason });
    };
    let batch: Array<{ paper: Paper; location: string }> = [];
    // One batch stays in flight while the next is read: an index whose writes wait on a server
    // (PostgreSQL) overlaps them with parsing. Adapters apply upserts in call order.
    let inFlight: Promise<void> | null = null;
    const settle = async () => {
      const pending = inFlight;
      inFlight = null;
      if (pending) await pending;
    };
    const flush = async (final = false) => {
      const previous = inFlight;
      inFlight = null;
      if (batch.length > 0) {
        const written = batch;
        batch = [];
        inFlight = upsertBatch(index, written, reject).then(
          (summary) => {
            totals.inserted += summary.inserted;
            totals.merged += summary.merged;
            totals.unchanged += summary.unchanged;
          },
          (error: unknown) => {
            throw new StoreError(error);
          },
        );
        // Awaited below or by the next flush; never left unhandled meanwhile.
        inFlight.catch(() => undefined);
      }
      if (previous) await previous;
      if (final) await settle();
    };
    try {
      const { format, text } = await withFormat(input.name, opened.chunks, chosen);
      if (!format) {
        report.error = 'format not recognised (give --format)';
        continue;
      }
      report.format = format.name;
      const items = format.readWithCompanions
        ? format.readWithCompanions(text, await siblingCompanions(input.name, format.companions ?? {}))
        : format.read(text);
      for await (const item of items) {
        totals.read += 1;
        report.read += 1;
        if (item.ok) {
          batch.push({ paper: item.paper, location: item.location });
          if (batch.length >= batchSize) {
            await flush();
            options.signal?.throwIfAborted();
          }
        } else {
          reject(item.location, item.reason);
        }
        if ((totals.read & 255) === 0) progress();
      }
      await flush(true);
    } catch (error) {
      if (options.signal?.aborted || error instanceof StoreError) {
        await settle().catch(() => undefined);
        throw error;
      }
      await flush(true);
      report.error = `reading stopped: ${(error as Error).message}`;
    } finally {
      progress(true);
      bytesBefore += input.size ?? opened.rawBytes();
    }
  }

  return {
    ...totals,
    reasons: [...reasons.entries()]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count),
    examples,
    files,
    elapsedMs: performance.now() - started,
  };
}

const companionNames = new Set(ingestFormats.flatMap((format) => Object.values(format.companions ?? {})));

/** A file name without a trailing `.gz`. */
function plainName(path: string): string {
  return basename(path).replace(/\.gz$/i, '');
}

/**
 * Inputs named like a companion table (`g_inventor_disambiguated.tsv`, …) that sit in the same folder
 * as another input that is not one: they are read through that main table.
 */
function companionInputs(inputs: readonly IngestInput[]): Set<string> {
  const companions = new Set<string>();
  for (const input of inputs) {
    if (input.name === '-' || !companionNames.has(plainName(input.name))) continue;
    const folder = dirname(input.name);
    const hasMain = inputs.some(
      (other) =>
        other.name !== '-' && dirname(other.name) === folder && !companionNames.has(plainName(other.name)),
    );
    if (hasMain) companions.add(input.name);
  }
  return companions;
}

/** The companion tables found beside `path` (plain or .gz), opened as text streams, by role. */
async function siblingCompanions(
  path: string,
  names: Readonly<Record<string, string>>,
): Promise<Partial<Record<string, AsyncIterable<Uint8Array>>>> {
  const found: Partial<Record<string, AsyncIterable<Uint8Array>>> = {};
  if (path === '-') return found;
  for (const [role, name] of Object.entries(names)) {
    for (const candidate of [join(dirname(path), name), join(dirname(path), `${name}.gz`)]) {
      const info = await stat(candidate).catch(() => undefined);
      if (!info?.isFile()) continue;
      found[role] = decompressed(fileInput(candidate, info.size)).chunks;
      break;
    }
  }
  return found;
}

/** The index failed (not the input): the run stops, to be re-run once the cause is fixed. */
export class StoreError extends Error {
  constructor(cause: unknown) {
    super(`the index could not store a batch: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'StoreError';
  }
}

function requireFormat(name: string): IngestFormat {
  const format = findFormat(name);
  if (!format) {
    throw new Error(
      `Unknown format "${name}"; known formats: ${ingestFormats.map((known) => known.name).join(', ')}`,
    );
  }
  return format;
}

/**
 * Reads up to the detection head of the decompressed text, picks the format (given, or detected),
 * and returns a text stream that replays the head before the rest.
 */
async function withFormat(
  name: string,
  chunks: AsyncIterable<Uint8Array>,
  chosen: IngestFormat | undefined,
): Promise<{ format: IngestFormat | undefined; text: AsyncIterable<string> }> {
  const iterator = decodeText(chunks)[Symbol.asyncIterator]();
  const head: string[] = [];
  let length = 0;
  let done = false;
  while (!chosen && length < detectionHeadLength) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  const format =
    chosen ?? detectFormat(name === '-' ? '-' : name, head.join('').slice(0, detectionHeadLength));
  const text = (async function* () {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  return { format, text };
}

/**
 * Upserts one batch in one transaction. When the index refuses a record (an `AppError`: the record,
 * not the store, is at fault), the batch is retried one record at a time so that only the bad one is
 * rejected, with its location. Any other failure (disk full, database locked) ends the run: it can
 * be re-run, and the batches already written are recognised as unchanged.
 */
async function upsertBatch(
  index: PaperIndex,
  batch: Array<{ paper: Paper; location: string }>,
  reject: (location: string, reason: string) => void,
): Promise<UpsertSummary> {
  try {
    return await index.upsert(batch.map((entry) => entry.paper));
  } catch (error) {
    if (!isAppError(error)) throw error;
    const summary: UpsertSummary = { inserted: 0, merged: 0, unchanged: 0 };
    for (const entry of batch) {
      try {
        const one = await index.upsert([entry.paper]);
        summary.inserted += one.inserted;
        summary.merged += one.merged;
        summary.unchanged += one.unchanged;
      } catch (error) {
        if (!isAppError(error)) throw error;
        reject(entry.location, `not stored: ${error.message}`);
      }
    }
    return summary;
  }
}
