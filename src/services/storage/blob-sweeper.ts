import type { Logger } from '../../platform/logger.js';
import { type BlobSweepOptions, type BlobSweepReport, sweepBlobs } from './blob-sweep.js';

/**
 * Runs `sweepBlobs` at start and then every `intervalMs`, in the background (the timers never keep
 * the process alive), logging what it removed and keeping the last report (for /metrics).
 */
export class BlobSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<BlobSweepReport> | undefined;
  private readonly abort = new AbortController();
  private last: { report: BlobSweepReport; finishedAt: Date } | undefined;

  constructor(
    private readonly options: Omit<BlobSweepOptions, 'signal'> & {
      intervalMs: number;
      logger: Logger;
    },
  ) {}

  /** The report of the last sweep that finished, and when; undefined before the first. */
  get lastReport(): { report: BlobSweepReport; finishedAt: Date } | undefined {
    return this.last;
  }

  /** Schedules the first sweep now and the next ones every `intervalMs`. */
  start(): void {
    const tick = () => {
      this.runOnce().catch((error: unknown) => {
        if (!this.abort.signal.aborted)
          this.options.logger.warn({ err: error }, 'sweeping the blob store failed');
      });
      this.timer = setTimeout(tick, this.options.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /** One sweep; a call while one runs shares it. */
  runOnce(): Promise<BlobSweepReport> {
    this.running ??= sweepBlobs({ ...this.options, signal: this.abort.signal })
      .then((report) => {
        this.last = { report, finishedAt: new Date() };
        const removed =
          report.released.length + report.deleted + report.temporaryFiles + report.interruptedReleases;
        if (removed > 0 || report.unfiledDocuments > 0) {
          this.options.logger.info(
            {
              released: report.released.length,
              deleted: report.deleted,
              interruptedReleases: report.interruptedReleases,
              unfiledDocuments: report.unfiledDocuments,
              temporaryFiles: report.temporaryFiles,
            },
            'freed blobs that no stored document references',
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
