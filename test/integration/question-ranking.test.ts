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
import { defaultPassageSizes } from '../../src/services/question/prepared-documents.js';
import { QuestionRanker } from '../../src/services/question/question-ranker.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

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

/** A document for the ranker, and two questions with what their best chunk and passage hold. */
interface RankingCase {
  name: string;
  documentKey: string;
  /** What `needsSharedData` must find, if anything. */
  needs?: string;
  pdfs(): Promise<Uint8Array[]>;
  /** A question that paraphrases a known sentence: its chunk and passage hold these. */
  paraphrase: { question: string; chunk: string; passage: string };
  /** A second question, answered from the stored vectors. */
  second: { question: string; chunk: string };
}

const cases: RankingCase[] = [
  {
    // Three PDFs written by pdfkit from our own texts, their chunks read as one document.
    name: 'generated PDFs (a report, a paper, an editorial)',
    documentKey: 'generated-three',
    pdfs: async () => [await gaugingReportPdf(40), await figurePaperPdf(), await editorialPdf()],
    paraphrase: {
      question: 'By how many metres per year did the front of the delta below the reservoir move back?',
      chunk: 'The free delta advanced by four metres',
      passage: 'retreated by three metres a year',
    },
    second: {
      question: 'Which patients had the weakest T-cell response to the vaccine?',
      chunk: 'severely attenuated in patients with solid tumours',
    },
  },
  {
    // A real two-column paper (shared data).
    name: 'a real two-column paper',
    documentKey: 'nar-gkae223',
    needs: 'pdfs/litqa_nar_gkae223.pdf',
    pdfs: async () => [new Uint8Array(readFileSync(join(sharedData, 'pdfs', 'litqa_nar_gkae223.pdf')))],
    // Known sentence: "An AlphaFold structural prediction for the E. coli Dps subunit (UniProt ID:
    // D3QNM8) indicates that 12–13 N-terminal amino acids may be intrinsically disordered."
    paraphrase: {
      question: 'How many residues at the start of each Dps monomer are predicted to lack a fixed structure?',
      chunk: 'D3QNM8',
      passage: 'intrinsically disordered',
    },
    second: {
      question: 'Which microscope and camera were used to image DNA compaction?',
      chunk: 'Nikon Ti2 Eclipse',
    },
  },
];

// PDFs through our pdf.js pipeline, ranked with the real all-MiniLM-L6-v2.
for (const item of cases) {
  describe.skipIf(item.needs !== undefined && needsSharedData(item.needs))(
    `QuestionRanker on ${item.name} with the real model`,
    () => {
      const model = new CountingModel(
        new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' }),
      );
      const chunks: string[] = [];
      let folder: string;
      let ranker: QuestionRanker;

      beforeAll(async () => {
        const extractor = new WorkerPdfExtractor({
          threads: 1,
          timeoutMs: 120_000,
          memoryMb: 1024,
          maxPages: 200,
          maxBytes: 50 << 20,
          figurePixels: 0,
        });
        try {
          for (const pdf of await item.pdfs()) {
            const parsed = await extractor.extract(pdf, { images: false });
            chunks.push(...parsed.chunks.map((chunk) => chunk.text));
          }
        } finally {
          await extractor.close();
        }
        folder = await mkdtemp(join(tmpdir(), 'alexandria-question-'));
        ranker = new QuestionRanker({ model, blobs: new FsBlobStore(folder) });
      });
      afterAll(async () => {
        await model.close();
        if (folder) await rm(folder, { recursive: true, force: true });
      });

      it('cuts passages that never exceed the model’s 254 word pieces', () => {
        const passages = splitPassages(
          chunks,
          { ...defaultPassageSizes, maxTokens: model.maxTokens },
          (text) => model.countTokens(text),
        );
        expect(model.maxTokens).toBe(254);
        expect(passages.length).toBeGreaterThan(chunks.length);
        for (const passage of passages) expect(model.countTokens(passage.text)).toBeLessThanOrEqual(254);
        expect(new Set(passages.map((passage) => passage.chunk)).size).toBe(chunks.length);
      });

      it('ranks first the chunk holding a known sentence for a question that paraphrases it', async () => {
        const [best] = await ranker.rank({
          documentKey: item.documentKey,
          chunks,
          question: item.paraphrase.question,
        });
        expect(chunks[best?.index ?? -1]).toContain(item.paraphrase.chunk);
        expect(best?.passage.text).toContain(item.paraphrase.passage);
      }, 300_000); // the first question embeds its ~56 candidate passages: seconds on 2 idle cores, more on a busy box

      it('answers the second question from the stored vectors (no passage embedded again)', async () => {
        // The first question embedded its candidates and answered; the rest of the document is embedded
        // after it, in the background (decision 0012). `prepare` joins that work until it is stored.
        await ranker.prepare(item.documentKey, chunks);
        const embeddedBefore = model.documents;
        expect(embeddedBefore).toBeGreaterThan(0);
        const ranked = await ranker.rank({
          documentKey: item.documentKey,
          chunks,
          question: item.second.question,
          topK: 3,
        });
        expect(model.documents).toBe(embeddedBefore);
        expect(chunks[ranked[0]?.index ?? -1]).toContain(item.second.chunk);
        expect(ranked).toHaveLength(3);
      }, 300_000);
    },
  );
}
