import { describe, expect, it } from 'vitest';
import type { EmbeddingModel, EmbedOptions } from '../../ports/embedding-model.js';
import { FairEmbeddingQueue } from './fair-embedding-queue.js';

/**
 * A model whose document batches wait until `release()` (a slice "in flight" for as long as the test
 * needs) and whose questions answer at once when it has a separate query path, as the ONNX model
 * with its query worker thread does.
 */
class HeldDocumentsModel implements EmbeddingModel {
  readonly id = 'fake:held-documents';
  readonly dimensions = 4;
  readonly maxTokens = 254;
  readonly calls: string[] = [];
  private readonly held: Array<() => void> = [];

  constructor(readonly separateQueryPath: boolean) {}

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    this.calls.push(`${options.inputType ?? 'document'}:${texts.length}`);
    if (options.inputType !== 'query') await new Promise<void>((release) => this.held.push(release));
    return texts.map(() => Float32Array.of(1, 0, 0, 0));
  }

  release(): void {
    for (const release of this.held.splice(0)) release();
  }

  countTokens(text: string): number {
    return text.split(/\s+/).length;
  }

  async close(): Promise<void> {}
}

/** Whether `promise` settles before the event loop turns a few times (every fake answer is a microtask). */
async function settlesNow(promise: Promise<unknown>): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  const later = new Promise<false>((resolve) => setImmediate(() => setImmediate(() => resolve(false))));
  return Promise.race([settled, later]);
}

/** Releases held document batches until `promise` settles (the queue hands slices over one by one). */
async function releaseUntilSettled(model: HeldDocumentsModel, promise: Promise<unknown>): Promise<void> {
  do model.release();
  while (!(await settlesNow(promise)));
}

const passages = Array.from({ length: 40 }, (_, index) => `passage ${index}`);

describe('FairEmbeddingQueue with a model that embeds questions apart (issue 13: one tenant stalls the others)', () => {
  it("answers tenant B's question while tenant A's document slice is in flight", async () => {
    const model = new HeldDocumentsModel(true);
    const queue = new FairEmbeddingQueue(model, { sliceSize: 16 });
    const document = queue.embedDocument('tenant-a', passages);
    expect(await settlesNow(document)).toBe(false);
    expect(model.calls).toEqual(['document:16']);
    const question = queue.embedQuery('What is a queue?');
    expect(await settlesNow(question)).toBe(true);
    expect(await question).toHaveLength(4);
    // A's first slice is still running; its other slices wait for it, one at a time as before.
    expect(model.calls).toEqual(['document:16', 'query:1']);
    await releaseUntilSettled(model, document);
    expect(await document).toHaveLength(40);
    expect(model.calls).toEqual(['document:16', 'query:1', 'document:16', 'document:8']);
  });

  it('makes the question wait for the slice in flight when the model has one path (as before)', async () => {
    const model = new HeldDocumentsModel(false);
    const queue = new FairEmbeddingQueue(model, { sliceSize: 16 });
    const document = queue.embedDocument('tenant-a', passages);
    expect(await settlesNow(document)).toBe(false);
    const question = queue.embedQuery('What is a queue?');
    expect(await settlesNow(question)).toBe(false);
    model.release();
    expect(await question).toHaveLength(4);
    expect(model.calls.slice(0, 2)).toEqual(['document:16', 'query:1']);
    await releaseUntilSettled(model, document);
    expect(await document).toHaveLength(40);
  });

  it('still rejects an aborted question on the separate path', async () => {
    const queue = new FairEmbeddingQueue(new HeldDocumentsModel(true));
    await expect(queue.embedQuery('x', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});
