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
});
