import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { ProjectStore } from '../../ports/project-store.js';

/** The shape `documentBlobKey` writes; anything else under `documents/` is not ours to delete. */
const documentKey = /^documents\/[0-9a-f]{2}\/[0-9a-f]{64}\.pdf$/;

/** Candidates checked against the project store per query. */
const batchSize = 500;

export interface DocumentBlobSweepOptions {
  blobs: BlobStore;
  store: ProjectStore;
  /**
   * Blobs written less than this long ago (ms) are left alone: an add in flight here or on another
   * instance writes its blob before its row.
   */
  graceMs: number;
  now?: () => Date;
  /** Stops the sweep between two blobs. */
  signal?: AbortSignal;
}

export interface DocumentBlobSweepReport {
  /** PDF blobs looked at. */
  scanned: number;
  /** Keys of the PDF blobs deleted. */
  deleted: string[];
  /** Temporary files of killed writes deleted (filesystem store only). */
  temporaryFiles: number;
}

/**
 * Deletes the stored PDFs that no document row of any tenant references and that are older than
 * the grace period: what a kill between writing a PDF's blob and its row leaves behind. Each
 * candidate is looked up again right before it is deleted, so a row written meanwhile saves it;
 * `DocumentStorage.save` puts back a blob it adopted if a sweep took it anyway. The temporary files
 * of writes killed before their rename, past the same grace period, go too.
 */
export async function sweepUnreferencedDocuments(
  options: DocumentBlobSweepOptions,
): Promise<DocumentBlobSweepReport> {
  const startedAt = (options.now ?? (() => new Date()))().getTime();
  const report: DocumentBlobSweepReport = { scanned: 0, deleted: [], temporaryFiles: 0 };
  let candidates: string[] = [];
  const settle = async () => {
    const referenced = await options.store.referencedBlobKeys(candidates);
    for (const key of candidates) {
      options.signal?.throwIfAborted();
      if (referenced.has(key) || (await options.store.referencedBlobKeys([key])).has(key)) continue;
      await options.blobs.delete(key);
      report.deleted.push(key);
    }
    candidates = [];
  };
  for await (const blob of options.blobs.list('documents')) {
    options.signal?.throwIfAborted();
    if (!documentKey.test(blob.key)) continue;
    report.scanned += 1;
    if (startedAt - blob.lastModified.getTime() < options.graceMs) continue;
    candidates.push(blob.key);
    if (candidates.length >= batchSize) await settle();
  }
  await settle();
  options.signal?.throwIfAborted();
  report.temporaryFiles =
    (await options.blobs.removeStaleTemporaryFiles?.(new Date(startedAt - options.graceMs))) ?? 0;
  return report;
}

/**
 * Runs `sweepUnreferencedDocuments` at start and then every `intervalMs`, in the background (the
 * timers never keep the process alive), logging what it removed.
 */
export class DocumentBlobSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DocumentBlobSweepReport> | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly options: Omit<DocumentBlobSweepOptions, 'signal'> & {
      intervalMs: number;
      logger: Logger;
    },
  ) {}

  /** Schedules the first sweep now and the next ones every `intervalMs`. */
  start(): void {
    const tick = () => {
      this.runOnce().catch((error: unknown) => {
        if (!this.abort.signal.aborted) this.options.logger.warn({ err: error }, 'sweeping PDF blobs failed');
      });
      this.timer = setTimeout(tick, this.options.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /** One sweep; a call while one runs shares it. */
  runOnce(): Promise<DocumentBlobSweepReport> {
    this.running ??= sweepUnreferencedDocuments({ ...this.options, signal: this.abort.signal })
      .then((report) => {
        if (report.deleted.length > 0 || report.temporaryFiles > 0) {
          this.options.logger.info(
            {
              deleted: report.deleted.length,
              scanned: report.scanned,
              temporaryFiles: report.temporaryFiles,
            },
            'removed stored PDFs that no document references (left by interrupted adds)',
          );
        }
        return report;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Cancels the schedule and the sweep in progress, and waits for it to stop. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }
}
