import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/errors.js';
import { LoopTurns } from '../../platform/loop-turns.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { EmbeddingModel } from '../../ports/embedding-model.js';
import { Bm25Index, type Bm25Parameters, passageBm25 } from '../../text/bm25.js';
import { contentFolder, contentHashOfKey, safeSegment } from '../storage/blob-layout.js';
import type { FairEmbeddingQueue } from './fair-embedding-queue.js';
import { decodePassageVectors, encodePassageVectors, type PassageVectors } from './passage-vectors.js';
import { type Passage, type PassageSizes, splitPassagesYielding } from './passages.js';

/** How documents are readied for questions: passages, their BM25 index and their vectors. */
export interface PreparedDocumentsOptions {
  model: EmbeddingModel;
  /** Durable store of passage vectors, shared by replicas; without it vectors live in memory only. */
  blobs?: BlobStore | undefined;
  /** Passage sizing; `maxTokens` is always capped by the model's. Default: `defaultPassageSizes`. */
  passages?: Partial<PassageSizes> | undefined;
  /** BM25 parameters over the passages (default `passageBm25`). */
  bm25?: Bm25Parameters | undefined;
  /** Bytes of prepared documents kept in memory (default 64 MB ≈ 100 twenty-page papers). */
  memoryBytes?: number | undefined;
  /** Told when storing or reading vectors fails (the ranking itself still succeeds). */
  onStoreError?: ((error: unknown) => void) | undefined;
  /**
   * Told when embedding a document fails — questions past their deadline no longer wait to hear it;
   * the next question tries again.
   */
  onEmbedError?: ((error: unknown) => void) | undefined;
}

/**
 * A document's passage vectors are left to a worker (`embedWholeDocuments: false`) and a caller
 * needed all of them: 503, retry once the worker has stored them.
 */
export class DocumentLeftToWorkers extends AppError {
  constructor() {
    super('unavailable', "This document's passages are being embedded by a worker; retry shortly", {
      retryAfterSeconds: 10,
    });
  }
}

/** Passage size and section context chosen by measurement (docs/decisions/0012-question-ranking.md). */
export const defaultPassageSizes: Omit<PassageSizes, 'maxTokens'> = {
  targetTokens: 128,
  overlapSentences: 1,
  sectionContext: true,
};

/** A document's passages, their BM25 index and their vectors. */
export interface PreparedDocument extends PassageVectors {
  bm25: Bm25Index;
}

/** A document's passages and their BM25 index: ready long before the vectors of a large document. */
export interface LexicalDocument {
  passages: Passage[];
  bm25: Bm25Index;
  /** While the vectors are being built: those done so far (a first question's first, then slices). */
  partial?: PartialVectors;
  /** Present when the vectors were stored already (then this is the prepared document). */
  vectors?: Float32Array;
}

/** Vectors of some passages of a document being embedded, by passage index. */
export interface PartialVectors {
  vectors: Array<Float32Array | undefined>;
  /** Passages a question is having embedded right now (the background job skips them). */
  inflight: Map<number, Promise<Float32Array>>;
}

/** A document being readied: words first, vectors later. */
export interface PendingDocument {
  lexical: Promise<LexicalDocument>;
  full: Promise<PreparedDocument>;
  /** The vectors were in memory already. */
  ready?: boolean;
}

/** Bump when passage cutting changes: stored vectors of the old cut are then never read. */
const passageFormatVersion = 2;

/**
 * The documents questions are asked of, readied once and shared: cut into sentence-window passages
 * that fit the embedding model, indexed for BM25 at once (words first), embedded in the fair queue
 * and stored (BlobStore + an in-memory LRU), so the next question costs one question embedding and a
 * dot product per passage. Concurrent callers for the same document share one computation.
 */
export class PreparedDocuments {
  private readonly memory: LRUCache<string, PreparedDocument>;
  private readonly pending = new Map<string, PendingDocument>();

  constructor(
    private readonly options: PreparedDocumentsOptions,
    private readonly queue: FairEmbeddingQueue,
  ) {
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

  /**
   * Drops the vectors of content `sha256` from memory: its blobs are being released (decision
   * 0041), and vectors kept here would never be stored again if the same bytes are filed anew.
   */
  forget(sha256: string): void {
    const folder = `${contentFolder('question-vectors', sha256)}/`;
    for (const key of [...this.memory.keys()]) if (key.startsWith(folder)) this.memory.delete(key);
  }

  /**
   * The document, from memory when there (`ready`), else being readied: its words (`lexical`)
   * first, its vectors (`full`) later. `whole` false leaves the embedding of the whole document to a
   * worker (`full` then fails with `DocumentLeftToWorkers` once the words are ready). `lane` is whose
   * turn the embedding takes in the fair queue (the tenant).
   */
  document(
    documentKey: string,
    chunks: readonly string[],
    lane: string | undefined,
    whole = true,
  ): PendingDocument {
    const key = this.storageKey(documentKey, chunks);
    const hit = this.memory.get(key);
    if (hit) return { lexical: Promise.resolve(hit), full: Promise.resolve(hit), ready: true };
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.load(key, chunks, lane ?? '', whole);
      this.pending.set(key, pending);
      const settled = () => this.pending.delete(key);
      // Nobody may be waiting when it fails (every question answered by words at its deadline).
      pending.full.then(settled, (error: unknown) => {
        settled();
        if (!(error instanceof DocumentLeftToWorkers)) this.options.onEmbedError?.(error);
      });
      pending.lexical.catch(() => {});
    }
    return pending;
  }

  private load(key: string, chunks: readonly string[], lane: string, whole: boolean): PendingDocument {
    let lexicalReady: (document: LexicalDocument) => void = () => {};
    let lexicalFailed: (error: unknown) => void = () => {};
    const lexical = new Promise<LexicalDocument>((resolve, reject) => {
      lexicalReady = resolve;
      lexicalFailed = reject;
    });
    const full = this.embedDocument(key, chunks, lane, lexicalReady, whole);
    full.catch(lexicalFailed); // no-op once the words were ready
    return { lexical, full };
  }

  private async embedDocument(
    blobKey: string,
    chunks: readonly string[],
    lane: string,
    lexicalReady: (document: LexicalDocument) => void,
    whole: boolean,
  ): Promise<PreparedDocument> {
    const { model, blobs } = this.options;
    // Split and indexed in slices, so a huge document does not hold up other requests (decision 0042).
    const turns = new LoopTurns();
    const bm25Of = (passages: readonly Passage[]) =>
      Bm25Index.build(
        passages.map((passage) => passage.text),
        this.options.bm25 ?? passageBm25,
        turns,
      );
    let stored: PassageVectors | null = null;
    if (blobs) {
      try {
        const bytes = await blobs.get(blobKey);
        stored = bytes ? decodePassageVectors(bytes) : null;
      } catch (error) {
        this.options.onStoreError?.(error);
      }
    }
    let bm25: Bm25Index;
    if (!stored || stored.modelId !== model.id) {
      const passages = await splitPassagesYielding(
        chunks,
        this.passageSizes(),
        (text) => model.countTokens(text),
        turns,
      );
      bm25 = await bm25Of(passages);
      const partial: PartialVectors = { vectors: new Array(passages.length), inflight: new Map() };
      lexicalReady({ passages, bm25, partial });
      // A question waiting for these words picks its candidate passages first; they are not embedded twice.
      await new Promise((resolve) => setImmediate(resolve));
      // The rest is a worker's job here: the question is answered from its candidates.
      if (!whole) throw new DocumentLeftToWorkers();
      const texts = passages.map((passage) => passage.text);
      const embedded = await this.queue.embedDocumentExcept(lane, texts, {
        skip: (index) => partial.vectors[index] !== undefined || partial.inflight.has(index),
        onVectors: (indexes, vectors) =>
          indexes.forEach((index, row) => {
            partial.vectors[index] ??= vectors[row];
          }),
      });
      // Holes: passages a question embedded (or is embedding); if that failed, they are embedded here.
      const all = await Promise.all(
        texts.map(
          (_, index) =>
            embedded[index] ??
            partial.vectors[index] ??
            partial.inflight.get(index)?.catch(() => undefined) ??
            undefined,
        ),
      );
      const missing = [...all.keys()].filter((index) => all[index] === undefined);
      if (missing.length > 0) {
        const redone = await this.queue.embedDocument(
          lane,
          missing.map((index) => texts[index] as string),
        );
        missing.forEach((index, row) => {
          all[index] = redone[row];
        });
      }
      const dimensions = all[0]?.length ?? model.dimensions;
      const vectors = new Float32Array(passages.length * dimensions);
      all.forEach((vector, row) => {
        vectors.set(vector as Float32Array, row * dimensions);
      });
      stored = { modelId: model.id, dimensions, passages, vectors };
      if (blobs) {
        await blobs
          .put(blobKey, encodePassageVectors(stored), { contentType: 'application/octet-stream' })
          .catch((error: unknown) => this.options.onStoreError?.(error));
      }
    } else {
      bm25 = await bm25Of(stored.passages);
    }
    const prepared: PreparedDocument = { ...stored, bm25 };
    lexicalReady(prepared);
    this.memory.set(blobKey, prepared);
    return prepared;
  }

  private passageSizes(): PassageSizes {
    const maxTokens = Math.min(
      this.options.passages?.maxTokens ?? Number.POSITIVE_INFINITY,
      this.options.model.maxTokens,
    );
    return { ...defaultPassageSizes, ...this.options.passages, maxTokens };
  }

  /**
   * The blob key of a document's passage vectors, which also keys them in memory: filed under the
   * document's content hash (so they go when the document's content is released, decision 0041),
   * named by the model and a digest of the model id, passage format, passage sizes and the chunks'
   * text, so a changed chunker or model never reuses stale passages.
   */
  private storageKey(documentKey: string, chunks: readonly string[]): string {
    const hash = createHash('sha256');
    hash.update(
      JSON.stringify([passageFormatVersion, this.options.model.id, this.passageSizes(), documentKey]),
    );
    for (const chunk of chunks) hash.update('\u0000').update(chunk);
    const folder = contentFolder('question-vectors', contentHashOfKey(documentKey));
    return `${folder}/${safeSegment(this.options.model.id)}-${hash.digest('hex')}.bin`;
  }
}
