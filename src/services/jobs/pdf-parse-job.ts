import { AppError } from '../../domain/errors.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { JobHandler, JobQueue } from '../../ports/job-queue.js';
import type { DocumentStorage } from '../documents/document-storage.js';
import type { DocumentText } from '../documents/document-text.js';
import { isLastingParseFailure, type ParseCache, type ParseOptions } from '../documents/parse-cache.js';
import type { PdfParsing } from '../documents/pdf-parsing.js';
import { documentBlobKey } from '../storage/blob-layout.js';

/** Parses a stored PDF into the parse cache, for whichever replica asked. */
export const parsePdfJob = 'parse-pdf';

export type ParsePdfPayload = {
  /** The PDF's content hash: where its parse is stored. */
  sha256: string;
  /** Where its bytes are in the shared blob store. */
  blobKey: string;
  /** The parser version of the replica that asked; a worker of another release leaves the job. */
  parserVersion: string;
};

/**
 * The job's de-duplication id: content hash and parser version, so every replica given the same
 * bytes joins one job, and a new release parses once more.
 */
export function parsePdfJobId(sha256: string, parserVersion: string): string {
  return `${sha256}:${parserVersion}`;
}

/**
 * Runs a `parse-pdf` job: parses the stored bytes through the parse cache, in the tenant's (the
 * lane's) turn of this process's parse threads, which stores the parse (figures first, then the
 * JSON) where every replica reads it. Idempotent: a parse already stored is found and nothing is
 * parsed. A parse that fails for a reason of the bytes (422, 413, 504) is remembered by the parse
 * cache in the shared cache and the job is done (no retry would parse differently); other failures
 * are retried. A job this worker cannot do (another parser version, bytes gone) ends without a
 * parse, and the replica that waits for it parses itself.
 */
export function pdfParseHandler(parses: ParseCache, blobs: BlobStore): JobHandler<ParsePdfPayload> {
  return async (payload, { lane, signal }) => {
    if (payload.parserVersion !== parses.parserVersion) return;
    let missing = false;
    try {
      await parses.get(
        payload.sha256,
        async () => {
          const bytes = await blobs.get(payload.blobKey);
          if (bytes) return bytes;
          missing = true;
          throw new Error(`the PDF ${payload.blobKey} is not in the blob store`);
        },
        { lane, signal },
      );
    } catch (error) {
      if (missing || isLastingParseFailure(error)) return;
      throw error;
    }
  };
}

export interface QueuedPdfParsingOptions {
  jobs: JobQueue;
  /**
   * Longest a request waits for the parse job, in ms (default: no limit). Past it the request fails
   * with 503 + Retry-After (the job goes on; a retry answers from the stored parse): a job waiting
   * out a blob-store or database outage does not hold the request for as long as the outage lasts.
   */
  waitTimeoutMs?: number | undefined;
  parses: ParseCache;
  /** Puts the bytes where a worker reads them. */
  documents: DocumentStorage;
}

/**
 * Parsing as a `parse-pdf` job on a queue shared through Redis: the bytes go to the shared blob
 * store (the row follows once the parse succeeded), the job is queued in the tenant's lane or
 * joined when any replica queued it already, and the caller waits for it to finish, then reads the
 * parse from the parse cache. The caller's abort ends its wait, not the job: the parse is stored
 * for the next try. Bytes whose parse failed (422, 413, 504) are not kept.
 */
export class QueuedPdfParsing implements PdfParsing {
  constructor(private readonly options: QueuedPdfParsingOptions) {}

  async parse(sha256: string, bytes: Uint8Array, options: ParseOptions): Promise<DocumentText> {
    const { parses, documents } = this.options;
    const cached = await parses.lookup(sha256, options);
    if (cached) return cached;
    const remembered = await parses.rememberedFailure(sha256);
    if (remembered) throw remembered;
    const staged = await documents.putBytes(sha256, bytes);
    try {
      return await this.parseByJob(sha256, bytes, options);
    } catch (error) {
      // As with a parse in process, a broken PDF leaves nothing stored (what a kill leaves, the sweep takes).
      if (staged && isLastingParseFailure(error)) await documents.discardUnreferenced(sha256).catch(() => {});
      throw error;
    }
  }

  private async parseByJob(sha256: string, bytes: Uint8Array, options: ParseOptions): Promise<DocumentText> {
    const { jobs, parses } = this.options;
    const parserVersion = parses.parserVersion;
    const id = parsePdfJobId(sha256, parserVersion);
    const payload: ParsePdfPayload = { sha256, blobKey: documentBlobKey(sha256), parserVersion };
    await jobs.enqueue(parsePdfJob, payload, { id, lane: options.lane ?? 'default' });
    // With no worker running, the wait would last until one starts: the job stays queued (a retry
    // finds its parse stored) and this request fails now (docs/decisions/0046).
    if ((await jobs.workerCount(parsePdfJob)) === 0) {
      throw new AppError(
        'unavailable',
        'No worker is running background jobs right now: the PDF is queued and is parsed when one starts; retry later',
        { retryAfterSeconds: 30 },
      );
    }
    const waitTimeoutMs = this.options.waitTimeoutMs;
    const deadline = waitTimeoutMs === undefined ? undefined : AbortSignal.timeout(waitTimeoutMs);
    const signal =
      deadline && options.signal ? AbortSignal.any([options.signal, deadline]) : (deadline ?? options.signal);
    try {
      await jobs.wait(parsePdfJob, id, { signal });
    } catch (error) {
      if (!deadline?.aborted || options.signal?.aborted) throw error;
      throw new AppError(
        'unavailable',
        'The PDF is still being parsed (a dependency may be recovering); retry shortly, the parse is kept',
        { retryAfterSeconds: 30 },
      );
    }
    const parsed = await parses.lookup(sha256);
    if (parsed) return parsed;
    const failure = await parses.rememberedFailure(sha256);
    if (failure) throw failure;
    // The job ended without a parse for this release (taken by a worker of another release, bytes
    // gone, or failed for a reason of its own): parse here rather than fail the request.
    return parses.get(sha256, async () => bytes, options);
  }
}
