import type { EmbeddingModel } from '../../ports/embedding-model.js';
import { FairLanes } from '../fair-lanes.js';

export interface FairEmbeddingQueueOptions {
  /**
   * Passages per model call when embedding a document (default 16, the ONNX batch size). A question
   * waits for at most the slice that is running when it arrives, and tenants take turns slice by slice.
   */
  sliceSize?: number | undefined;
}

/** What a document's embedding may leave out, and whom it tells as slices finish. */
export interface DocumentEmbeddingOptions {
  /**
   * Texts whose vectors the caller has or is getting elsewhere (a first question's candidate
   * passages): asked when a slice is cut, and left as holes in the result.
   */
  skip?: ((index: number) => boolean) | undefined;
  /** Told the vectors of each slice as it finishes (e.g. so a question can use them before the end). */
  onVectors?: ((indexes: readonly number[], vectors: readonly Float32Array[]) => void) | undefined;
}

/** One `embed` request waiting for (some of) its texts to be embedded. */
interface Job {
  texts: readonly string[];
  inputType: 'query' | 'document';
  vectors: Array<Float32Array | undefined>;
  skip: ((index: number) => boolean) | undefined;
  onVectors: DocumentEmbeddingOptions['onVectors'];
  /** Index of the first text not yet handed to the model. */
  next: number;
  /** Slices handed to the model and not yet answered. */
  running: number;
  done: boolean;
  signal: AbortSignal | undefined;
  resolve: (vectors: Array<Float32Array | undefined>) => void;
  reject: (error: unknown) => void;
  onAbort: (() => void) | undefined;
}

/**
 * The one door to the embedding model for questions: a question's own vector goes ahead of every
 * document, and documents are embedded in slices that take turns between lanes (tenants), round
 * robin. A tenant's 1,000-page document therefore never holds up another tenant's question or small
 * document for longer than one slice. One slice runs at a time — the local model has a single worker
 * thread, and a remote API is called one batch at a time as before. Fair within this process only;
 * replicas each have their own queue.
 */
export class FairEmbeddingQueue {
  private readonly sliceSize: number;
  private readonly queries: Job[] = [];
  /**
   * Documents waiting, one lane per tenant, in turn order. The lane whose slice is running rejoins
   * the order after it is done: a lane that turns up meanwhile goes ahead of it.
   */
  private readonly lanes = new FairLanes<Job>();
  private busy = false;

  constructor(
    private readonly model: EmbeddingModel,
    options: FairEmbeddingQueueOptions = {},
  ) {
    this.sliceSize = Math.max(1, Math.floor(options.sliceSize ?? 16));
  }

  /**
   * A question's vector; runs before any waiting document slice — or at once, beside the running
   * slice, when the model embeds questions on a path of their own (`separateQueryPath`).
   */
  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = this.model.separateQueryPath
      ? await this.model.embed([text], { inputType: 'query', ...(signal ? { signal } : {}) })
      : await this.enqueue([text], 'query', undefined, signal);
    return vector as Float32Array;
  }

  /** The vectors of a document's passages, embedded slice by slice in `lane`'s turns. */
  async embedDocument(lane: string, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return (await this.enqueue(texts, 'document', lane, signal)) as Float32Array[];
  }

  /**
   * Like `embedDocument`, but texts that `options.skip` names when their slice is cut are not
   * embedded (holes in the result), and each finished slice is reported (`options.onVectors`).
   */
  embedDocumentExcept(
    lane: string,
    texts: readonly string[],
    options: DocumentEmbeddingOptions,
    signal?: AbortSignal,
  ): Promise<Array<Float32Array | undefined>> {
    return this.enqueue(texts, 'document', lane, signal, options);
  }

  /**
   * A few passages a question is waiting for (a document's first question, before the rest of the
   * document is embedded): ahead of every waiting document slice. When the model has a separate
   * question path, half go there and half to the document worker's next turn, so both run at once.
   */
  async embedUrgent(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (!this.model.separateQueryPath || texts.length === 1)
      return (await this.enqueue(texts, 'document', undefined, signal)) as Float32Array[];
    const half = Math.ceil(texts.length / 2);
    const [first, second] = await Promise.all([
      this.model.embed(texts.slice(0, half), {
        inputType: 'document',
        urgent: true,
        ...(signal ? { signal } : {}),
      }),
      this.enqueue(texts.slice(half), 'document', undefined, signal),
    ]);
    return [...first, ...(second as Float32Array[])];
  }

  /** Requests waiting or running (questions, documents), for tests and metrics. */
  get waiting(): { queries: number; documents: number } {
    return { queries: this.queries.length, documents: this.lanes.waiting };
  }

  private enqueue(
    texts: readonly string[],
    inputType: 'query' | 'document',
    lane: string | undefined,
    signal: AbortSignal | undefined,
    options: DocumentEmbeddingOptions = {},
  ): Promise<Array<Float32Array | undefined>> {
    signal?.throwIfAborted();
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<Array<Float32Array | undefined>>((resolve, reject) => {
      const job: Job = {
        texts,
        inputType,
        vectors: new Array<Float32Array | undefined>(texts.length),
        skip: options.skip,
        onVectors: options.onVectors,
        next: 0,
        running: 0,
        done: false,
        signal,
        resolve,
        reject,
        onAbort: undefined,
      };
      if (signal) {
        // An aborted request leaves the queue at once; its slices not yet started never run.
        job.onAbort = () => this.finish(job, signal.reason, undefined);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      if (lane === undefined) this.queries.push(job);
      else this.lanes.push(lane, job);
      this.pump();
    });
  }

  /** Starts the next slice unless one is running: questions first, then the next lane in turn. */
  private pump(): void {
    if (this.busy) return;
    const picked = this.pick();
    if (!picked) return;
    const { job, indexes, lane } = picked;
    this.busy = true;
    job.running += 1;
    const options = { inputType: job.inputType, ...(job.signal ? { signal: job.signal } : {}) };
    // A model that throws synchronously is a failed slice like any other.
    Promise.resolve()
      .then(() =>
        this.model.embed(
          indexes.map((index) => job.texts[index] as string),
          options,
        ),
      )
      .then(
        (vectors) => {
          job.running -= 1;
          vectors.forEach((vector, offset) => {
            job.vectors[indexes[offset] as number] = vector;
          });
          job.onVectors?.(indexes, vectors);
          if (job.next >= job.texts.length && job.running === 0) this.finish(job, undefined, job.vectors);
        },
        (error: unknown) => {
          job.running -= 1;
          this.finish(job, error, undefined);
        },
      )
      .finally(() => {
        this.busy = false;
        if (lane !== undefined) this.lanes.done(lane);
        this.pump();
      });
  }

  private pick(): { job: Job; indexes: number[]; lane?: string } | undefined {
    const query = this.queries.shift();
    if (query) {
      query.next = query.texts.length;
      return { job: query, indexes: [...query.texts.keys()] };
    }
    for (;;) {
      // A job whose last slice is out leaves its lane; the lane rejoins the turn order when it is done.
      const taken = this.lanes.take((job) => this.slice(job).next >= job.texts.length);
      if (!taken) return undefined;
      const { lane, item: job } = taken;
      const { indexes, next } = this.slice(job);
      job.next = next;
      if (indexes.length > 0) return { job, indexes, lane };
      // Everything left was skipped: nothing for the model.
      this.lanes.done(lane);
      if (job.running === 0) this.finish(job, undefined, job.vectors);
    }
  }

  /** The job's next slice: up to `sliceSize` texts not skipped, and where the one after starts. */
  private slice(job: Job): { indexes: number[]; next: number } {
    const indexes: number[] = [];
    let at = job.next;
    while (at < job.texts.length && indexes.length < this.sliceSize) {
      if (!job.skip?.(at)) indexes.push(at);
      at += 1;
    }
    // Skipped texts right after the slice belong to it: the job ends with its last embedded slice.
    while (at < job.texts.length && job.skip?.(at)) at += 1;
    return { indexes, next: at };
  }

  /** Settles a job once (vectors or error) and removes whatever of it still waits. */
  private finish(job: Job, error: unknown, vectors: Array<Float32Array | undefined> | undefined): void {
    if (job.done) return;
    job.done = true;
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    const queryAt = this.queries.indexOf(job);
    if (queryAt >= 0) this.queries.splice(queryAt, 1);
    this.lanes.remove(job);
    if (vectors) job.resolve(vectors);
    else job.reject(error);
  }
}
