import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { BlobStore } from '../../ports/blob-store.js';
import type { EmbeddingModel } from '../../ports/embedding-model.js';
import { Bm25Index, type Bm25Parameters, passageBm25 } from './bm25.js';
import { defaultFusion, type FusionOptions, fuseScores, type RankMode } from './fusion.js';
import { decodePassageVectors, encodePassageVectors, type PassageVectors } from './passage-vectors.js';
import { type Passage, type PassageSizes, splitPassages } from './passages.js';

export interface QuestionRankerOptions {
  model: EmbeddingModel;
  /** Durable store of passage vectors, shared by replicas; without it vectors live in memory only. */
  blobs?: BlobStore | undefined;
  /** Passage sizing; `maxTokens` is always capped by the model's. Default: `defaultPassageSizes`. */
  passages?: Partial<PassageSizes> | undefined;
  fusion?: FusionOptions | undefined;
  /** BM25 parameters over the passages (default `passageBm25`). */
  bm25?: Bm25Parameters | undefined;
  /** Bytes of prepared documents kept in memory (default 64 MB ≈ 100 twenty-page papers). */
  memoryBytes?: number | undefined;
  /** Told when storing or reading vectors fails (the ranking itself still succeeds). */
  onStoreError?: ((error: unknown) => void) | undefined;
}

/** Passage size and section context chosen by measurement (docs/decisions/0012-question-ranking.md). */
export const defaultPassageSizes: Omit<PassageSizes, 'maxTokens'> = {
  targetTokens: 128,
  overlapSentences: 1,
  sectionContext: true,
};

export interface RankRequest {
  /** Identity of the text, e.g. the PDF's content hash; with the model id it keys the stored vectors. */
  documentKey: string;
  /** The document's chunks (markdown), in order. */
  chunks: readonly string[];
  question: string;
  /** Chunks to return (default 1). */
  topK?: number | undefined;
  mode?: RankMode | undefined;
  /** Aborts the caller's wait; embedding a new document carries on and is stored for the next question. */
  signal?: AbortSignal | undefined;
}

export interface RankedChunk {
  /** 0-based index into `chunks`. */
  index: number;
  /** Score of the chunk's best passage (fused in hybrid mode; 0..1 for convex fusion). */
  score: number;
  /** The chunk's best passage with its dense (cosine) and BM25 scores. */
  passage: { text: string; dense: number; bm25: number };
}

/** Every passage of a document with its scores for one question (evaluation, debugging). */
export interface PassageScores {
  passages: Passage[];
  dense: Float32Array;
  bm25: Float32Array;
}

interface PreparedDocument extends PassageVectors {
  bm25: Bm25Index;
}

/** Bump when passage cutting changes: stored vectors of the old cut are then never read. */
const passageFormatVersion = 2;

/**
 * Ranks a document's chunks for a question. Chunks are cut into sentence-window passages that fit
 * the embedding model, embedded once per document and model, and stored (BlobStore + an in-memory
 * LRU), so the next question costs one question embedding and a dot product per passage. A question
 * is scored by dense cosine and BM25 over the passages, fused (`defaultFusion`); a chunk scores as
 * its best passage.
 */
export class QuestionRanker {
  private readonly memory: LRUCache<string, PreparedDocument>;
  private readonly pending = new Map<string, Promise<PreparedDocument>>();
  private readonly fusion: FusionOptions;

  constructor(private readonly options: QuestionRankerOptions) {
    this.fusion = options.fusion ?? defaultFusion;
    this.memory = new LRUCache({
      maxSize: options.memoryBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (document) =>
        Math.max(
          1,
          document.vectors.byteLength +
            document.passages.reduce((sum, passage) => sum + passage.text.length * 3, 0),
        ),
    });
  }

  /** The `topK` best chunks for `question`, best first (never more than the chunks with a passage). */
  async rank(request: RankRequest): Promise<RankedChunk[]> {
    const scores = await this.passageScores(request);
    const fused = fuseScores(scores.dense, scores.bm25, request.mode ?? 'hybrid', this.fusion);
    return rankChunks(scores, fused, request.topK ?? 1);
  }

  /** Dense and BM25 scores of every passage of the document for the question. */
  async passageScores(request: RankRequest): Promise<PassageScores> {
    request.signal?.throwIfAborted();
    const [document, questionVector] = await Promise.all([
      abortable(this.prepare(request.documentKey, request.chunks), request.signal),
      this.options.model
        .embed([request.question], {
          inputType: 'query',
          ...(request.signal ? { signal: request.signal } : {}),
        })
        .then((vectors) => vectors[0] as Float32Array),
    ]);
    const { dimensions, vectors, passages } = document;
    const dense = new Float32Array(passages.length);
    if (questionVector.length === dimensions) {
      for (let row = 0; row < passages.length; row += 1) {
        let sum = 0;
        const offset = row * dimensions;
        for (let dim = 0; dim < dimensions; dim += 1)
          sum += (vectors[offset + dim] as number) * (questionVector[dim] as number);
        dense[row] = sum;
      }
    }
    return { passages, dense, bm25: document.bm25.score(request.question) };
  }

  /**
   * Cuts, embeds and stores the document's passages unless already done (memory, then the blob
   * store); concurrent callers for the same document share one computation. Call it ahead of the
   * first question (e.g. after an upload) to make that question warm.
   */
  prepare(documentKey: string, chunks: readonly string[]): Promise<PreparedDocument> {
    const key = this.storageKey(documentKey, chunks);
    const hit = this.memory.get(key);
    if (hit) return Promise.resolve(hit);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.load(key, chunks).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private async load(key: string, chunks: readonly string[]): Promise<PreparedDocument> {
    const { model, blobs } = this.options;
    const blobKey = `question-vectors/${model.id.replace(/[^A-Za-z0-9._-]+/g, '_')}/${key}.bin`;
    let stored: PassageVectors | null = null;
    if (blobs) {
      try {
        const bytes = await blobs.get(blobKey);
        stored = bytes ? decodePassageVectors(bytes) : null;
      } catch (error) {
        this.options.onStoreError?.(error);
      }
    }
    if (!stored || stored.modelId !== model.id) {
      const passages = splitPassages(chunks, this.passageSizes(), (text) => model.countTokens(text));
      const embedded = await model.embed(
        passages.map((passage) => passage.text),
        { inputType: 'document' },
      );
      const dimensions = embedded[0]?.length ?? model.dimensions;
      const vectors = new Float32Array(passages.length * dimensions);
      embedded.forEach((vector, row) => {
        vectors.set(vector, row * dimensions);
      });
      stored = { modelId: model.id, dimensions, passages, vectors };
      if (blobs) {
        await blobs
          .put(blobKey, encodePassageVectors(stored), { contentType: 'application/octet-stream' })
          .catch((error: unknown) => this.options.onStoreError?.(error));
      }
    }
    const prepared: PreparedDocument = {
      ...stored,
      bm25: new Bm25Index(
        stored.passages.map((passage) => passage.text),
        this.options.bm25 ?? passageBm25,
      ),
    };
    this.memory.set(key, prepared);
    return prepared;
  }

  private passageSizes(): PassageSizes {
    const maxTokens = Math.min(
      this.options.passages?.maxTokens ?? Number.POSITIVE_INFINITY,
      this.options.model.maxTokens,
    );
    return { ...defaultPassageSizes, ...this.options.passages, maxTokens };
  }

  /** Model id, passage format and the chunks' own digest: a changed chunker never reuses stale passages. */
  private storageKey(documentKey: string, chunks: readonly string[]): string {
    const hash = createHash('sha256');
    hash.update(
      JSON.stringify([passageFormatVersion, this.options.model.id, this.passageSizes(), documentKey]),
    );
    for (const chunk of chunks) hash.update('\u0000').update(chunk);
    return hash.digest('hex');
  }
}

/**
 * Chunks ordered by their best passage's fused score (ties: earlier chunk first), the `topK` first,
 * each with that passage. Exported for evaluations that fuse the same scores many ways.
 */
export function rankChunks(scores: PassageScores, fused: Float32Array, topK: number): RankedChunk[] {
  const best = new Map<number, number>(); // chunk → index of its best passage
  scores.passages.forEach((passage, index) => {
    const current = best.get(passage.chunk);
    if (current === undefined || (fused[index] as number) > (fused[current] as number))
      best.set(passage.chunk, index);
  });
  return [...best.entries()]
    .sort(([chunkA, a], [chunkB, b]) => (fused[b] as number) - (fused[a] as number) || chunkA - chunkB)
    .slice(0, Math.max(1, topK))
    .map(([chunk, passage]) => ({
      index: chunk,
      score: fused[passage] as number,
      passage: {
        text: scores.passages[passage]?.text ?? '',
        dense: scores.dense[passage] as number,
        bm25: scores.bm25[passage] as number,
      },
    }));
}

/** Waits for `promise` unless `signal` aborts first (the work itself goes on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
