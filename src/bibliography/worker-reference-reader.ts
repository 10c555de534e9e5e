import { Piscina } from 'piscina';
import { AppError } from '../domain/errors.js';
import { workerModule } from '../platform/worker-file.js';
import { type ReferenceReader, type ReferenceReading, readReferences } from './reference-reading.js';
import type { ChunkText } from './references.js';

export interface WorkerReferenceReaderOptions {
  /**
   * Texts shorter than this many characters are read in the caller's thread: a paper's list takes
   * a few ms, about what a thread hop costs; 2,000 entries (some 200,000 characters) took ~100 ms.
   * Default 50,000 (some 15 pages).
   */
  inlineBelowCharacters?: number;
  /** Longest one reading may take, in ms; the thread is then stopped (default 60 s). */
  timeoutMs?: number;
  /** How long an idle thread stays alive, in ms (default 60 s). */
  idleTimeoutMs?: number;
}

/**
 * Reads big texts' references on a worker thread (one; it starts when first needed and stops when
 * idle), small ones inline. Parsing a 10,000-entry list held the event loop for 0.7–1.4 s and
 * stalled every other tenant's requests meanwhile (decision 0042). The thread is stopped when the
 * caller's signal aborts (its time budget) or the reading passes `timeoutMs`.
 */
export class WorkerReferenceReader implements ReferenceReader {
  private readonly pool: Piscina<{ texts: string[] }, ReferenceReading>;
  private readonly inlineBelow: number;
  private readonly timeoutMs: number;

  constructor(options: WorkerReferenceReaderOptions = {}) {
    this.inlineBelow = options.inlineBelowCharacters ?? 50_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.pool = new Piscina({
      ...workerModule(new URL('./reference-worker.js', import.meta.url)),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      atomics: 'disabled',
    });
  }

  /** Readings done on the worker thread so far (tests check that big texts went there). */
  offThread = 0;

  async read(chunks: readonly ChunkText[], signal?: AbortSignal): Promise<ReferenceReading> {
    signal?.throwIfAborted();
    let characters = 0;
    for (const chunk of chunks) characters += chunk.text.length;
    if (characters < this.inlineBelow) return readReferences(chunks);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      const reading = await this.pool.run({ texts: chunks.map((chunk) => chunk.text) }, { signal: stop });
      this.offThread += 1;
      return reading;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) {
        throw new AppError('timeout', `Reading the reference list took longer than ${this.timeoutMs} ms.`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
