import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { defaultModelDir } from '../../src/config/sections/embedding.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import type { EmbeddingModel, EmbedOptions } from '../../src/ports/embedding-model.js';
import { splitPassages } from '../../src/services/question/passages.js';
import { defaultPassageSizes, QuestionRanker } from '../../src/services/question/question-ranker.js';
import { sharedData } from '../helpers/test-app.js';

/** Counts the passages the real model is asked to embed. */
class CountingModel implements EmbeddingModel {
  documents = 0;
  constructor(private readonly inner: EmbeddingModel) {}
  get id() {
    return this.inner.id;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  get maxTokens() {
    return this.inner.maxTokens;
  }
  countTokens(text: string) {
    return this.inner.countTokens(text);
  }
  embed(texts: string[], options?: EmbedOptions) {
    if (options?.inputType !== 'query') this.documents += texts.length;
    return this.inner.embed(texts, options);
  }
  close() {
    return this.inner.close();
  }
}

// A real two-column paper through our pdf.js pipeline, ranked with the real all-MiniLM-L6-v2.
describe('QuestionRanker on a real PDF with the real model', () => {
  const model = new CountingModel(
    new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' }),
  );
  let chunks: string[] = [];
  let folder: string;
  let ranker: QuestionRanker;

  beforeAll(async () => {
    const extractor = new WorkerPdfExtractor({
      threads: 1,
      timeoutMs: 120_000,
      memoryMb: 1024,
      maxPages: 100,
      maxBytes: 50 << 20,
      figurePixels: 0,
    });
    try {
      const parsed = await extractor.extract(
        readFileSync(join(sharedData, 'pdfs', 'litqa_nar_gkae223.pdf')),
        {
          images: false,
        },
      );
      chunks = parsed.chunks.map((chunk) => chunk.text);
    } finally {
      await extractor.close();
    }
    folder = await mkdtemp(join(tmpdir(), 'alexandria-question-'));
    ranker = new QuestionRanker({ model, blobs: new FsBlobStore(folder) });
  });
  afterAll(async () => {
    await model.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('cuts passages that never exceed the model’s 254 word pieces', () => {
    const passages = splitPassages(chunks, { ...defaultPassageSizes, maxTokens: model.maxTokens }, (text) =>
      model.countTokens(text),
    );
    expect(model.maxTokens).toBe(254);
    expect(passages.length).toBeGreaterThan(chunks.length);
    for (const passage of passages) expect(model.countTokens(passage.text)).toBeLessThanOrEqual(254);
    expect(new Set(passages.map((passage) => passage.chunk)).size).toBe(chunks.length);
  });

  it('ranks first the chunk holding a known sentence for a question that paraphrases it', async () => {
    // Known sentence: "An AlphaFold structural prediction for the E. coli Dps subunit (UniProt ID:
    // D3QNM8) indicates that 12–13 N-terminal amino acids may be intrinsically disordered."
    const [best] = await ranker.rank({
      documentKey: 'nar-gkae223',
      chunks,
      question: 'How many residues at the start of each Dps monomer are predicted to lack a fixed structure?',
    });
    expect(chunks[best?.index ?? -1]).toContain('D3QNM8');
    expect(best?.passage.text).toContain('intrinsically disordered');
  }, 300_000); // the first question embeds its ~56 candidate passages: seconds on 2 idle cores, more on a busy box

  it('answers the second question from the stored vectors (no passage embedded again)', async () => {
    // The first question embedded its candidates and answered; the rest of the document is embedded
    // after it, in the background (decision 0012). `prepare` joins that work until it is stored.
    await ranker.prepare('nar-gkae223', chunks);
    const embeddedBefore = model.documents;
    expect(embeddedBefore).toBeGreaterThan(0);
    const ranked = await ranker.rank({
      documentKey: 'nar-gkae223',
      chunks,
      question: 'Which microscope and camera were used to image DNA compaction?',
      topK: 3,
    });
    expect(model.documents).toBe(embeddedBefore);
    expect(chunks[ranked[0]?.index ?? -1]).toContain('Nikon Ti2 Eclipse');
    expect(ranked).toHaveLength(3);
  });
});
