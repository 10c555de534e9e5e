import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEmbeddingModel } from '../../../test/fakes/recording-embedding-model.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import type { ChunkRanker } from '../documents/full-text-service.js';
import { QuestionRanker } from './question-ranker.js';

const chunks = [
  '## Methods\n\nDNA molecules were prepared by digestion of a plasmid. Each end was ligated to a biotinylated handle.',
  '## Results\n\nSupercoiled DNA compacted fastest when Dps was added. Relaxed DNA compacted slowly. Linear stretched DNA did not compact at all.',
  '## Discussion\n\nDps dodecamers bind DNA through lysine-rich N-terminal tails. Bridging contacts between strands nucleate condensation.',
];

describe('QuestionRanker', () => {
  let folder: string;
  let blobs: FsBlobStore;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'alexandria-ranker-'));
    blobs = new FsBlobStore(folder);
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('returns the chunk of the best passage, with the passage and both scores', async () => {
    const ranker = new QuestionRanker({ model: new RecordingEmbeddingModel(), blobs });
    // It is what FullTextService.ask needs (checked by the compiler).
    const asChunkRanker: ChunkRanker = ranker;
    expect(asChunkRanker).toBe(ranker);
    const [best, second] = await ranker.rank({
      documentKey: 'sha256:abc',
      chunks,
      question: 'Which DNA compacted fastest with Dps?',
      topK: 2,
    });
    expect(best?.index).toBe(1);
    expect(best?.passage.text).toContain('Supercoiled DNA compacted fastest');
    expect(best?.passage.bm25).toBeGreaterThan(0);
    expect(best?.passage.dense).toBeGreaterThan(0);
    expect(second?.index).not.toBe(1);
    expect(best?.score).toBeGreaterThanOrEqual(second?.score ?? 0);
  });

  it('embeds a document’s passages once: the second question embeds only the question', async () => {
    const model = new RecordingEmbeddingModel();
    const ranker = new QuestionRanker({ model, blobs });
    const request = { documentKey: 'sha256:abc', chunks, question: 'What do Dps tails bind?' };
    await ranker.rank(request);
    const passages = model.documentTexts.length;
    expect(passages).toBeGreaterThanOrEqual(3);
    await ranker.rank({ ...request, question: 'How was DNA prepared?' });
    expect(model.documentTexts).toHaveLength(passages);
    expect(model.calls.filter((call) => call.inputType === 'query')).toHaveLength(2);
  });

  it('reads stored vectors back in a new process (blob store), and re-embeds for another model', async () => {
    const request = { documentKey: 'sha256:abc', chunks, question: 'What nucleates condensation?' };
    await new QuestionRanker({ model: new RecordingEmbeddingModel(), blobs }).rank(request);
    const restarted = new RecordingEmbeddingModel();
    const [best] = await new QuestionRanker({ model: restarted, blobs }).rank(request);
    expect(restarted.documentTexts).toEqual([]);
    expect(best?.index).toBe(2);
    const otherModel = new RecordingEmbeddingModel('fake:other-model');
    await new QuestionRanker({ model: otherModel, blobs }).rank(request);
    expect(otherModel.documentTexts.length).toBeGreaterThan(0);
  });

  it('shares one embedding between concurrent first questions, and re-cuts when the chunks change', async () => {
    const model = new RecordingEmbeddingModel();
    const ranker = new QuestionRanker({ model });
    const request = { documentKey: 'sha256:abc', chunks, question: 'Which DNA compacted?' };
    await Promise.all([
      ranker.rank(request),
      ranker.rank(request),
      ranker.rank({ ...request, question: 'How?' }),
    ]);
    expect(model.calls.filter((call) => call.inputType === 'document')).toHaveLength(1);
    // Same key, new chunker output: never matched against the old passages.
    const [best] = await ranker.rank({
      ...request,
      chunks: [...chunks, 'An appendix about compacted DNA tables.'],
    });
    expect(model.calls.filter((call) => call.inputType === 'document')).toHaveLength(2);
    expect(best?.index).toBeGreaterThanOrEqual(0);
  });

  it('ranks by one score alone in dense and bm25 modes, and returns nothing for an empty document', async () => {
    const ranker = new QuestionRanker({ model: new RecordingEmbeddingModel() });
    const base = { documentKey: 'k', chunks, question: 'lysine-rich tails' };
    const [bm25] = await ranker.rank({ ...base, mode: 'bm25' });
    expect(bm25?.index).toBe(2);
    expect(bm25?.score).toBe(bm25?.passage.bm25);
    const [dense] = await ranker.rank({ ...base, mode: 'dense' });
    expect(dense?.score).toBe(dense?.passage.dense);
    expect(await ranker.rank({ ...base, documentKey: 'empty', chunks: [] })).toEqual([]);
  });

  it('stops waiting when the caller aborts, and keeps the embedding for the next question', async () => {
    const model = new RecordingEmbeddingModel();
    model.delayMs = 200;
    const ranker = new QuestionRanker({ model });
    const controller = new AbortController();
    const first = ranker.rank({ documentKey: 'k', chunks, question: 'Why?', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 20);
    await expect(first).rejects.toThrow('client went away');
    model.delayMs = 0;
    const [best] = await ranker.rank({ documentKey: 'k', chunks, question: 'How was DNA prepared?' });
    expect(best?.index).toBe(0);
    expect(model.calls.filter((call) => call.inputType === 'document')).toHaveLength(1);
  });
});
