import { describe, expect, it } from 'vitest';
import { SerialEmbeddingModel } from '../../../test/fakes/serial-embedding-model.js';
import { FairEmbeddingQueue } from './fair-embedding-queue.js';

const texts = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
const owner = (run: { inputType: string; texts: string[] }) =>
  run.inputType === 'query' ? 'Q' : (run.texts[0]?.split(' ')[0] ?? '?');

describe('FairEmbeddingQueue', () => {
  it('takes lanes in turn, slice by slice, with questions first, and returns vectors in order', async () => {
    const model = new SerialEmbeddingModel();
    const queue = new FairEmbeddingQueue(model, { sliceSize: 4 });
    model.hold();
    const a1 = queue.embedDocument('a', texts('a1', 12));
    const a2 = queue.embedDocument('a', texts('a2', 4));
    const b = queue.embedDocument('b', texts('b', 8));
    const question = queue.embedQuery('what?');
    model.release();
    const [a1Vectors, , bVectors, questionVector] = await Promise.all([a1, a2, b, question]);
    // The first slice was handed over before the others arrived; then the question, then turns.
    expect(model.runs.map(owner)).toEqual(['a1', 'Q', 'b', 'a1', 'b', 'a1', 'a2']);
    expect(a1Vectors).toHaveLength(12);
    expect(bVectors).toHaveLength(8);
    expect(questionVector).toHaveLength(model.dimensions);
    // Order kept across slices: each vector is its own text's.
    const again = await queue.embedDocument('c', texts('a1', 12));
    expect(again.map((vector) => [...vector])).toEqual(a1Vectors.map((vector) => [...vector]));
    expect(queue.waiting).toEqual({ queries: 0, documents: 0 });
  });

  it('drops the slices of an aborted request and of a failed one, and carries on with the rest', async () => {
    const model = new SerialEmbeddingModel();
    const queue = new FairEmbeddingQueue(model, { sliceSize: 2 });
    model.hold();
    const controller = new AbortController();
    const aborted = queue.embedDocument('a', texts('a', 10), controller.signal);
    const kept = queue.embedDocument('b', texts('b', 4));
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    model.release();
    expect(await kept).toHaveLength(4);
    // At most the slice already handed to the model ran for the aborted request.
    expect(model.runs.filter((run) => owner(run) === 'a').length).toBeLessThanOrEqual(1);

    let calls = 0;
    const flaky = Object.assign(Object.create(model) as SerialEmbeddingModel, {
      embed: async (batch: string[]) => {
        calls += 1;
        if (calls === 2) throw new Error('worker crashed');
        return batch.map(() => new Float32Array(4));
      },
    });
    const failing = new FairEmbeddingQueue(flaky, { sliceSize: 2 });
    await expect(failing.embedDocument('a', texts('a', 10))).rejects.toThrow('worker crashed');
    expect(calls).toBe(2);
    expect(await failing.embedQuery('still there?')).toHaveLength(4);
    await expect(queue.embedQuery('x', AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
    expect(await queue.embedDocument('a', [])).toEqual([]);
  });

  it('leaves out the texts a caller skips, reports each slice, and ends when only skipped texts are left', async () => {
    const model = new SerialEmbeddingModel();
    const queue = new FairEmbeddingQueue(model, { sliceSize: 4 });
    const skipped = new Set([0, 1, 5, 9, 10, 11]);
    const reported: number[] = [];
    const vectors = await queue.embedDocumentExcept('a', texts('a', 12), {
      skip: (index) => skipped.has(index),
      onVectors: (indexes, batch) => {
        expect(batch).toHaveLength(indexes.length);
        reported.push(...indexes);
      },
    });
    // Slices of four texts not skipped; the skipped tail (9–11) costs no model call.
    expect(model.runs.map((run) => run.texts)).toEqual([
      ['a 2', 'a 3', 'a 4', 'a 6'],
      ['a 7', 'a 8'],
    ]);
    expect(reported).toEqual([2, 3, 4, 6, 7, 8]);
    expect(vectors).toHaveLength(12);
    expect([...vectors.keys()].filter((index) => vectors[index] === undefined)).toEqual([...skipped]);
    const none = await queue.embedDocumentExcept('a', texts('b', 3), { skip: () => true });
    expect(none).toEqual([undefined, undefined, undefined]);
    expect(model.runs).toHaveLength(2);
    expect(queue.waiting).toEqual({ queries: 0, documents: 0 });
  });

  it('runs urgent passages ahead of waiting document slices, split over a separate question path', async () => {
    const model = new SerialEmbeddingModel();
    const queue = new FairEmbeddingQueue(model, { sliceSize: 4 });
    model.hold();
    const document = queue.embedDocument('a', texts('doc', 12));
    const urgent = queue.embedUrgent(texts('urgent', 6));
    model.release();
    const [, urgentVectors] = await Promise.all([document, urgent]);
    expect(urgentVectors).toHaveLength(6);
    // One model path: after the slice already handed over, before every other slice.
    expect(model.runs.map(owner)).toEqual(['doc', 'urgent', 'doc', 'doc']);

    const calls: Array<{ texts: string[]; urgent: boolean | undefined }> = [];
    const twoPaths = Object.assign(Object.create(model) as SerialEmbeddingModel, {
      separateQueryPath: true,
      embed: async (batch: string[], options: { urgent?: boolean } = {}) => {
        calls.push({ texts: batch, urgent: options.urgent });
        return batch.map((text) => Float32Array.from([text.length]));
      },
    });
    const split = await new FairEmbeddingQueue(twoPaths).embedUrgent(texts('u', 5));
    // Half on the question path, half as the document worker's next job; vectors in the texts' order.
    expect(calls).toEqual([
      { texts: ['u 0', 'u 1', 'u 2'], urgent: true },
      { texts: ['u 3', 'u 4'], urgent: undefined },
    ]);
    expect(split.map((vector) => vector[0])).toEqual([3, 3, 3, 3, 3]);
  });
});
