import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEmbeddingModel } from '../../../test/fakes/recording-embedding-model.js';
import { SerialEmbeddingModel } from '../../../test/fakes/serial-embedding-model.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import type { ChunkRanker } from '../documents/full-text-service.js';
import { QuestionRanker, type RankTimings } from './question-ranker.js';

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
    await ranker.prepare('sha256:abc', chunks); // the background embedding is stored before the folder goes
  });

  it('embeds a document’s passages once: the second question embeds only the question', async () => {
    const model = new RecordingEmbeddingModel();
    const ranker = new QuestionRanker({ model, blobs });
    const request = { documentKey: 'sha256:abc', chunks, question: 'What do Dps tails bind?' };
    await ranker.rank(request);
    await ranker.prepare(request.documentKey, chunks);
    const passages = model.documentTexts.length;
    expect(passages).toBeGreaterThanOrEqual(3);
    await ranker.rank({ ...request, question: 'How was DNA prepared?' });
    expect(model.documentTexts).toHaveLength(passages);
    expect(model.calls.filter((call) => call.inputType === 'query')).toHaveLength(2);
  });

  it('reads stored vectors back in a new process (blob store), and re-embeds for another model', async () => {
    const request = { documentKey: 'sha256:abc', chunks, question: 'What nucleates condensation?' };
    const first = new QuestionRanker({ model: new RecordingEmbeddingModel(), blobs });
    await first.rank(request);
    // The first question answered from its candidates; the document's vectors are stored behind it.
    await first.prepare(request.documentKey, chunks);
    const restarted = new RecordingEmbeddingModel();
    const [best] = await new QuestionRanker({ model: restarted, blobs }).rank(request);
    expect(restarted.documentTexts).toEqual([]);
    expect(best?.index).toBe(2);
    const otherModel = new RecordingEmbeddingModel('fake:other-model');
    const other = new QuestionRanker({ model: otherModel, blobs });
    await other.rank(request);
    expect(otherModel.documentTexts.length).toBeGreaterThan(0);
    await other.prepare(request.documentKey, chunks);
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

/** A long document of `chunkCount` chunks of filler sentences; chunk `needleAt` also holds `needle`. */
function longDocument(marker: string, chunkCount: number, needleAt: number, needle: string): string[] {
  return Array.from({ length: chunkCount }, (_, chunk) => {
    const sentences = Array.from(
      { length: 60 },
      (_, k) => `The ${marker} team logged sample ${chunk}-${k} at room temperature.`,
    );
    if (chunk === needleAt) sentences.splice(30, 0, needle);
    return `## Part ${chunk + 1}\n\n${sentences.join(' ')}`;
  });
}

describe('QuestionRanker deadline and fair turns (one tenant never stalls the others)', () => {
  const needle = 'Zebrafish fins regrew completely after amputation within seven days.';

  it('answers a question on a large document whose vectors are not ready by BM25 within the deadline, then hybrid', async () => {
    const model = new SerialEmbeddingModel();
    model.hold(); // the document's embedding cannot finish until released
    const ranker = new QuestionRanker({ model });
    const chunks = longDocument('alpha', 30, 17, needle);
    const request = {
      documentKey: 'sha256:large',
      chunks,
      question: 'When did the zebrafish fins regrow after amputation?',
      deadlineMs: 50,
      lane: 'tenant-a',
    };
    const [words] = await ranker.rank(request);
    expect(words?.wordsOnly).toBe(true);
    expect(words?.index).toBe(17);
    expect(words?.passage.text).toContain('Zebrafish fins regrew');
    expect(words?.passage.bm25).toBeGreaterThan(0);
    expect(words?.passage.dense).toBe(0);
    // The vectors were still being built when it answered, and go on being built in the background.
    expect(model.runs.filter((run) => run.inputType === 'document')).toHaveLength(0);
    model.release();
    await ranker.prepare(request.documentKey, chunks);
    const documentRuns = model.runs.filter((run) => run.inputType === 'document').length;
    expect(documentRuns).toBeGreaterThan(10);
    const [hybrid] = await ranker.rank(request);
    expect(hybrid?.wordsOnly).toBeUndefined();
    expect(hybrid?.index).toBe(17);
    expect(hybrid?.passage.dense).toBeGreaterThan(0);
    // Embedded once: the question that gave up did not start a second embedding.
    expect(model.runs.filter((run) => run.inputType === 'document')).toHaveLength(documentRuns);
  });

  it('fails a question whose document cannot be embedded only when it fails before the deadline', async () => {
    const model = new SerialEmbeddingModel();
    const failing = Object.assign(Object.create(model) as SerialEmbeddingModel, {
      embed: async () => {
        throw new Error('model folder missing');
      },
    });
    const errors: unknown[] = [];
    const ranker = new QuestionRanker({ model: failing, onEmbedError: (error) => errors.push(error) });
    await expect(
      ranker.rank({ documentKey: 'k', chunks, question: 'Dps?', deadlineMs: 5_000 }),
    ).rejects.toThrow('model folder missing');
    // The document's own embedding (behind the question's candidates) fails too, and says so once.
    await expect.poll(() => errors.length).toBe(1);
  });

  it('runs a question’s vector next, and gives another tenant every other turn, while one tenant embeds three large documents', async () => {
    const model = new SerialEmbeddingModel();
    const ranker = new QuestionRanker({ model, sliceSize: 16 });
    model.hold();
    const bigDocuments = [1, 2, 3].map((number) => ({
      key: `sha256:alpha-${number}`,
      chunks: longDocument(`alpha${number}`, 20, 3, needle),
    }));
    let bigDone = 0;
    for (const document of bigDocuments) {
      void ranker.prepare(document.key, document.chunks, { lane: 'tenant-a' }).then(() => {
        bigDone += 1;
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    const small = longDocument('beta', 4, 2, 'Beta cells secrete insulin when glucose rises.');
    const asked = ranker.rank({
      documentKey: 'sha256:beta',
      chunks: small,
      question: 'What do beta cells secrete when glucose rises?',
      lane: 'tenant-b',
      topK: 1,
    });
    model.release();
    const [best] = await asked;
    expect(best?.index).toBe(2);
    expect(bigDone).toBe(0);
    const runs = model.runs.map((run) =>
      run.inputType === 'query' ? 'question' : run.texts.some((text) => text.includes('beta')) ? 'B' : 'A',
    );
    // The question waits for at most the one batch already running.
    expect(runs.indexOf('question')).toBeLessThanOrEqual(1);
    // Tenant B's small document takes every other turn: at most one A batch before each B batch.
    const bBatches = runs.filter((run) => run === 'B').length;
    expect(bBatches).toBeGreaterThanOrEqual(2);
    const lastB = runs.lastIndexOf('B');
    expect(runs.slice(0, lastB + 1).filter((run) => run === 'A').length).toBeLessThanOrEqual(bBatches + 1);
    await Promise.all(bigDocuments.map((document) => ranker.prepare(document.key, document.chunks)));
    expect(bigDone).toBe(3);
  });

  it('answers a first question from BM25’s candidate passages, then embeds the rest once in the background', async () => {
    const model = new SerialEmbeddingModel();
    const ranker = new QuestionRanker({
      model,
      sliceSize: 16,
      firstQuestionCandidates: 12,
      firstQuestionSpread: 4,
    });
    const chunks = longDocument('gamma', 30, 17, needle);
    const timings: RankTimings[] = [];
    const request = {
      documentKey: 'sha256:first',
      chunks,
      question: 'When did the zebrafish fins regrow after amputation?',
      lane: 'tenant-a',
      onTimings: (value: RankTimings) => timings.push(value),
    };
    const [best] = await ranker.rank(request);
    const runsWhenAnswered = model.runs.length;
    expect(best?.index).toBe(17);
    expect(best?.passage.text).toContain('Zebrafish fins regrew');
    expect(best?.passage.dense).toBeGreaterThan(0);
    expect(best?.wordsOnly).toBeUndefined();
    expect(timings[0]).toMatchObject({ path: 'first', passagesEmbedded: 16 });
    // Answered after the question and its 12 + 4 candidates (one batch), at most one document slice on.
    expect(model.runs[0]?.inputType).toBe('query');
    expect(model.runs[1]?.texts).toHaveLength(16);
    expect(runsWhenAnswered).toBeLessThanOrEqual(3);
    const prepared = await ranker.prepare(request.documentKey, chunks);
    const passages = (prepared as { passages: unknown[] }).passages.length;
    expect(passages).toBeGreaterThan(100);
    // Every passage embedded once: the candidates were not embedded again by the background job.
    const documentTexts = model.runs
      .filter((run) => run.inputType === 'document')
      .flatMap((run) => run.texts);
    expect(documentTexts).toHaveLength(passages);
    expect(new Set(documentTexts).size).toBe(passages);
    // The next question is warm and ranks over every passage's vector.
    const [warm] = await ranker.rank({ ...request, question: 'Which team logged sample 4-7?' });
    expect(timings[1]).toMatchObject({ path: 'warm', passagesEmbedded: 0 });
    expect(warm?.index).toBe(4);
  });

  it('waits for every vector when first-question candidates are off', async () => {
    const model = new SerialEmbeddingModel();
    const ranker = new QuestionRanker({ model, firstQuestionCandidates: 0 });
    const chunks = longDocument('delta', 6, 2, needle);
    const timings: RankTimings[] = [];
    await ranker.rank({
      documentKey: 'sha256:off',
      chunks,
      question: 'When did the zebrafish fins regrow?',
      onTimings: (value) => timings.push(value),
    });
    expect(timings[0]?.path).toBe('full');
    const passages = (await ranker.prepare('sha256:off', chunks)) as { passages: unknown[] };
    expect(model.runs.filter((run) => run.inputType === 'document').flatMap((run) => run.texts)).toHaveLength(
      passages.passages.length,
    );
  });
});

describe('QuestionRanker on an API replica', () => {
  let folder: string;
  let blobs: FsBlobStore;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'alexandria-ranker-api-'));
    blobs = new FsBlobStore(folder);
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  // An API-only replica embedded a whole document on its first question (12.7 s of CPU, up to
  // 1.8 GB): with `embedWholeDocuments: false` it embeds the question's candidates only, answers
  // from them, stores nothing, and leaves the rest to the worker's job (`prepare`).
  it('on an API replica embeds only a first question’s candidates and leaves the document to a worker', async () => {
    const many = Array.from(
      { length: 40 },
      (_unused, index) =>
        `## Section ${index}\n\nParagraph ${index} studies topic ${index} in sentences of its own. ${
          index === 17 ? 'Dps dodecamers bridge supercoiled DNA strands.' : 'Nothing about proteins here.'
        }`,
    );
    const model = new RecordingEmbeddingModel();
    const timings: RankTimings[] = [];
    const errors: unknown[] = [];
    const ranker = new QuestionRanker({
      model,
      blobs,
      embedWholeDocuments: false,
      firstQuestionCandidates: 4,
      firstQuestionSpread: 2,
      onEmbedError: (error) => errors.push(error),
    });
    const request = {
      documentKey: 'sha256:many',
      chunks: many,
      question: 'Which dodecamers bridge supercoiled DNA?',
      deadlineMs: 10_000,
      onTimings: (timing: RankTimings) => timings.push(timing),
    };
    const [best] = await ranker.rank(request);
    expect(best?.index).toBe(17);
    expect(timings[0]?.path).toBe('first');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The candidates (and a spread), not the 40 chunks' passages; nothing stored; no error reported.
    expect(model.documentTexts.length).toBeLessThanOrEqual(6);
    const stored: string[] = [];
    for await (const blob of blobs.list('question-vectors')) stored.push(blob.key);
    expect(stored).toEqual([]);
    expect(errors).toEqual([]);
    // A mode that needs every vector answers by words instead of embedding them here.
    const [byWords] = await ranker.rank({ ...request, mode: 'dense', onTimings: undefined });
    expect(byWords?.wordsOnly).toBe(true);
    // The worker's job embeds everything; then the replica reads the stored vectors (warm).
    await new QuestionRanker({ model: new RecordingEmbeddingModel(), blobs }).prepare(
      request.documentKey,
      many,
    );
    const embeddedBefore = model.documentTexts.length;
    await ranker.rank({ ...request, question: 'What does paragraph 3 study?' });
    expect(timings.at(-1)?.path).toBe('warm');
    expect(model.documentTexts).toHaveLength(embeddedBefore);
  });
});
