import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/errors.js';
import { LoopTurns } from '../../platform/loop-turns.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { EmbeddingModel } from '../../ports/embedding-model.js';
import { contentFolder, contentHashOfKey, safeSegment } from '../storage/blob-layout.js';
import { Bm25Index, type Bm25Parameters, passageBm25 } from './bm25.js';
import { type ChunkScoring, defaultChunkScoring, scoreChunks } from './chunk-scoring.js';
import { FairEmbeddingQueue } from './fair-embedding-queue.js';
import {
  candidatePassages,
  defaultFusion,
  type FusionOptions,
  fuseCandidates,
  fuseScores,
  type RankMode,
} from './fusion.js';
import { decodePassageVectors, encodePassageVectors, type PassageVectors } from './passage-vectors.js';
import { type Passage, type PassageSizes, splitPassagesYielding } from './passages.js';

export interface QuestionRankerOptions {
  model: EmbeddingModel;
  /** Durable store of passage vectors, shared by replicas; without it vectors live in memory only. */
  blobs?: BlobStore | undefined;
  /** Passage sizing; `maxTokens` is always capped by the model's. Default: `defaultPassageSizes`. */
  passages?: Partial<PassageSizes> | undefined;
  fusion?: FusionOptions | undefined;
  /** Passage windows, chunk aggregation and section priors (default `defaultChunkScoring`). */
  chunkScoring?: ChunkScoring | undefined;
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
  /** Passages per model call while embedding a document; tenants take turns slice by slice (default 16). */
  sliceSize?: number | undefined;
  /**
   * A question on a document whose vectors are not built yet embeds only BM25's best this many
   * passages (and itself) and answers, while the rest of the document is embedded in the background
   * and stored for the next question (default `defaultFirstQuestionCandidates`; 0: wait for every
   * passage's vector, as before).
   */
  firstQuestionCandidates?: number | undefined;
  /**
   * Passages spread evenly over the document embedded with a first question's candidates, so its
   * cosines are normalised over about the whole document's range (default
   * `defaultFirstQuestionSpread`).
   */
  firstQuestionSpread?: number | undefined;
  /**
   * Whether a question may embed the whole document in this process (default true). False on an
   * `api` replica (docs/decisions/0046): a question on a document whose vectors are not stored yet
   * embeds only its candidates (within its deadline) and is answered from them, the rest being left
   * to a worker's `embed-passages` job; `prepare` (what that job calls) still embeds everything.
   */
  embedWholeDocuments?: boolean | undefined;
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

/**
 * Candidates of a first question, chosen by measurement (docs/decisions/0012-question-ranking.md,
 * "First question"): on readers' questions the ranking matches the full one's, in a fraction of the
 * time a 20-page paper's ~200 passages take.
 */
export const defaultFirstQuestionCandidates = 32;
/** See `QuestionRankerOptions.firstQuestionSpread` (measured with the candidates, decision 0012). */
export const defaultFirstQuestionSpread = 24;

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
  /**
   * Hybrid mode only: the longest wait for the document's passage vectors and the question's vector.
   * Past it the chunks are ranked by BM25 alone (`wordsOnly`) while the vectors go on being built
   * for the next question. Absent: wait as long as it takes.
   */
  deadlineMs?: number | undefined;
  /** Whose turn the document's embedding takes in the fair queue (the tenant; default one shared lane). */
  lane?: string | undefined;
  /** Told where the time went (benchmarks, logs). */
  onTimings?: ((timings: RankTimings) => void) | undefined;
}

/** Where a question's time went. */
export interface RankTimings {
  /**
   * `warm`: the document's vectors were in memory or stored; `first`: they were not built yet, and
   * BM25's candidate passages were embedded for this question; `full`: the question waited for every
   * vector (`firstQuestionCandidates` 0, another fusion, or another mode); `words`: the deadline
   * passed and BM25 alone ranked.
   */
  path: 'warm' | 'first' | 'full' | 'words';
  /** Cutting the document into passages and indexing them for BM25, or reading stored vectors (ms). */
  prepareMs: number;
  /** Embedding the question, and a first question's candidate passages (ms). */
  embedMs: number;
  /** Scoring, fusion and ordering (ms). */
  rankMs: number;
  /** Passages this question embedded (a first question's candidates without a vector yet). */
  passagesEmbedded: number;
}

export interface RankedChunk {
  /** 0-based index into `chunks`. */
  index: number;
  /** Score of the chunk's best passage (fused in hybrid mode; 0..1 for convex fusion). */
  score: number;
  /** The chunk's best passage with its dense (cosine) and BM25 scores. */
  passage: { text: string; dense: number; bm25: number };
  /** True when the deadline passed before the vectors were ready: ranked by BM25 alone (dense is 0). */
  wordsOnly?: boolean;
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

/** A document's passages and their BM25 index: ready long before the vectors of a large document. */
interface LexicalDocument {
  passages: Passage[];
  bm25: Bm25Index;
  /** While the vectors are being built: those done so far (a first question's first, then slices). */
  partial?: PartialVectors;
  /** Present when the vectors were stored already (then this is the prepared document). */
  vectors?: Float32Array;
}

/** Vectors of some passages of a document being embedded, by passage index. */
interface PartialVectors {
  vectors: Array<Float32Array | undefined>;
  /** Passages a question is having embedded right now (the background job skips them). */
  inflight: Map<number, Promise<Float32Array>>;
}

/** A question's passage scores and the fused score it is ranked by. */
interface Scored {
  scores: PassageScores;
  fused: Float32Array;
  path: RankTimings['path'];
  prepareMs: number;
  embedMs: number;
  passagesEmbedded: number;
}

/** A document being readied: words first, vectors later. */
interface PendingDocument {
  lexical: Promise<LexicalDocument>;
  full: Promise<PreparedDocument>;
  /** The vectors were in memory already. */
  ready?: boolean;
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
  private readonly pending = new Map<string, PendingDocument>();
  private readonly fusion: FusionOptions;
  private readonly chunkScoring: ChunkScoring;
  private readonly queue: FairEmbeddingQueue;

  constructor(private readonly options: QuestionRankerOptions) {
    this.fusion = options.fusion ?? defaultFusion;
    this.chunkScoring = options.chunkScoring ?? defaultChunkScoring;
    this.queue = new FairEmbeddingQueue(options.model, { sliceSize: options.sliceSize });
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
   * The `topK` best chunks for `question`, best first (never more than the chunks with a passage).
   * With `deadlineMs` (hybrid mode), a document whose vectors are not ready in time is ranked by
   * BM25 alone and the result says so (`wordsOnly`).
   */
  async rank(request: RankRequest): Promise<RankedChunk[]> {
    request.signal?.throwIfAborted();
    const mode = request.mode ?? 'hybrid';
    const topK = request.topK ?? 1;
    const started = performance.now();
    const whole = this.options.embedWholeDocuments !== false;
    const document = this.document(request.documentKey, request.chunks, request.lane, whole);
    const deadlineMs = request.deadlineMs;
    const finish = (scored: Scored, wordsOnly = false): RankedChunk[] => {
      const ranking = performance.now();
      const ranked = rankChunks(scored.scores, scored.fused, topK, this.chunkScoring);
      request.onTimings?.({
        path: scored.path,
        prepareMs: scored.prepareMs,
        embedMs: scored.embedMs,
        rankMs: performance.now() - ranking,
        passagesEmbedded: scored.passagesEmbedded,
      });
      return wordsOnly ? ranked.map((chunk) => ({ ...chunk, wordsOnly: true })) : ranked;
    };
    // Vectors left to a worker and needed whole (another mode, no candidates): BM25's ranking.
    const byWords = async (): Promise<RankedChunk[]> => {
      const lexical = await abortable(document.lexical, request.signal);
      const bm25 = lexical.bm25.score(request.question);
      const words = { passages: lexical.passages, dense: new Float32Array(lexical.passages.length), bm25 };
      return finish(
        {
          scores: words,
          fused: bm25,
          path: 'words',
          prepareMs: 0,
          embedMs: performance.now() - started,
          passagesEmbedded: 0,
        },
        true,
      );
    };
    const unlessLeftToWorkers = (error: unknown): Promise<RankedChunk[]> => {
      if (error instanceof DocumentLeftToWorkers) return byWords();
      throw error;
    };
    // Vectors at hand: the question's own vector goes ahead of all document work, so no deadline.
    if (mode !== 'hybrid' || document.ready) {
      return this.rankWhole(request, document, mode, started, finish).catch(unlessLeftToWorkers);
    }
    // Not built yet (or stored, not yet read): a first question embeds BM25's candidates only.
    const deadline = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    const scored = this.coldScores(document, request.question, started, signal);
    if (deadlineMs === undefined) {
      return abortable(scored, request.signal).then((outcome) => finish(outcome), unlessLeftToWorkers);
    }
    // The question's vector is given up at the deadline (it would only hold up the queue).
    scored.catch(() => {}); // settles after the deadline when nobody waits any more
    const timedOut = Symbol('deadline');
    let timer: NodeJS.Timeout | undefined;
    const outcome = await abortable(
      Promise.race([
        scored,
        new Promise<typeof timedOut>((resolve) => {
          timer = setTimeout(
            () => resolve(timedOut),
            Math.max(0, deadlineMs - (performance.now() - started)),
          );
        }),
      ]),
      request.signal,
    )
      .catch((error: unknown): typeof timedOut => {
        if (error instanceof DocumentLeftToWorkers) return timedOut;
        throw error;
      })
      .finally(() => clearTimeout(timer));
    if (outcome !== timedOut) return finish(outcome);
    deadline.abort(new Error('question deadline passed'));
    return byWords();
  }

  /** Ranks with every passage's vector (waits for them). */
  private async rankWhole(
    request: RankRequest,
    document: PendingDocument,
    mode: RankMode,
    started: number,
    finish: (scored: Scored, wordsOnly?: boolean) => RankedChunk[],
  ): Promise<RankedChunk[]> {
    const scores = await this.scores(
      abortable(document.full, request.signal),
      request.question,
      request.signal,
    );
    const fused = fuseScores(scores.dense, scores.bm25, mode, this.fusion);
    const embedMs = performance.now() - started;
    return finish({
      scores,
      fused,
      path: document.ready ? 'warm' : 'full',
      prepareMs: 0,
      embedMs,
      passagesEmbedded: 0,
    });
  }

  /**
   * Scores for a question on a document whose vectors are not in memory: read from the store when
   * there, else BM25 picks the candidate passages, which are embedded with the question (half on the
   * question path, half first in the document queue) while the background embedding of the rest goes
   * on. Waits for every vector instead when candidates are off or the fusion is not convex.
   */
  private async coldScores(
    document: PendingDocument,
    question: string,
    started: number,
    signal: AbortSignal,
  ): Promise<Scored> {
    const lexical = await abortable(document.lexical, signal);
    const prepareMs = performance.now() - started;
    const count = this.options.firstQuestionCandidates ?? defaultFirstQuestionCandidates;
    const partial = lexical.partial;
    if (lexical.vectors || !partial || count <= 0 || this.fusion.method !== 'convex') {
      const scores = await this.scores(abortable(document.full, signal), question, signal);
      return {
        scores,
        fused: fuseScores(scores.dense, scores.bm25, 'hybrid', this.fusion),
        path: lexical.vectors ? 'warm' : 'full',
        prepareMs,
        embedMs: performance.now() - started - prepareMs,
        passagesEmbedded: 0,
      };
    }
    const { passages } = lexical;
    const bm25 = lexical.bm25.score(question);
    const candidates = candidatePassages(
      bm25,
      count,
      this.options.firstQuestionSpread ?? defaultFirstQuestionSpread,
    );
    // The question's vector is asked for first: on the question path it runs before the candidates.
    const questionVector = this.queue.embedQuery(question, signal);
    const needed = candidates.filter((index) => !partial.vectors[index] && !partial.inflight.has(index));
    if (needed.length > 0) {
      // Not tied to this question's signal: the background embedding counts on these vectors.
      const work = this.queue.embedUrgent(needed.map((index) => (passages[index] as Passage).text));
      work.then(
        (vectors) =>
          needed.forEach((index, row) => {
            partial.vectors[index] = vectors[row];
            partial.inflight.delete(index);
          }),
        () => {
          for (const index of needed) partial.inflight.delete(index);
        },
      );
      needed.forEach((index, row) => {
        partial.inflight.set(
          index,
          work.then((vectors) => vectors[row] as Float32Array),
        );
      });
    }
    const [queryVector, vectors] = await Promise.all([
      questionVector,
      abortable(
        Promise.all(
          candidates.map(
            (index) => partial.vectors[index] ?? (partial.inflight.get(index) as Promise<Float32Array>),
          ),
        ),
        signal,
      ),
    ]);
    const embedMs = performance.now() - started - prepareMs;
    const dense = new Float32Array(passages.length);
    candidates.forEach((index, row) => {
      dense[index] = dot(vectors[row] as Float32Array, queryVector);
    });
    return {
      scores: { passages, dense, bm25 },
      fused: fuseCandidates(dense, bm25, candidates, this.fusion),
      path: 'first',
      prepareMs,
      embedMs,
      passagesEmbedded: needed.length,
    };
  }

  /** Dense and BM25 scores of every passage of the document for the question (waits for the vectors). */
  async passageScores(request: RankRequest): Promise<PassageScores> {
    request.signal?.throwIfAborted();
    const document = this.document(request.documentKey, request.chunks, request.lane);
    return this.scores(abortable(document.full, request.signal), request.question, request.signal);
  }

  private async scores(
    prepared: Promise<PreparedDocument>,
    question: string,
    signal: AbortSignal | undefined,
  ): Promise<PassageScores> {
    const [document, questionVector] = await Promise.all([prepared, this.queue.embedQuery(question, signal)]);
    const { dimensions, vectors, passages } = document;
    const dense = new Float32Array(passages.length);
    if (questionVector.length === dimensions) {
      for (let row = 0; row < passages.length; row += 1)
        dense[row] = dot(vectors.subarray(row * dimensions, (row + 1) * dimensions), questionVector);
    }
    return { passages, dense, bm25: document.bm25.score(question) };
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
   * Cuts, embeds and stores the document's passages unless already done (memory, then the blob
   * store); concurrent callers for the same document share one computation. Call it ahead of the
   * first question (e.g. after an upload) to make that question warm. `lane` is whose turn the
   * embedding takes in the fair queue (the tenant).
   */
  prepare(
    documentKey: string,
    chunks: readonly string[],
    options: { lane?: string | undefined } = {},
  ): Promise<PreparedDocument> {
    return this.document(documentKey, chunks, options.lane).full;
  }

  private document(
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

/**
 * Chunks ordered by their score (`scoreChunks`: by default their best passage's fused score; ties:
 * earlier chunk first), the `topK` first, each with its best passage. Exported for evaluations that
 * fuse the same scores many ways.
 */
export function rankChunks(
  scores: PassageScores,
  fused: Float32Array,
  topK: number,
  scoring: ChunkScoring = defaultChunkScoring,
): RankedChunk[] {
  const chunks = scoreChunks(scores.passages, fused, scoring);
  return [...chunks.entries()]
    .sort(([chunkA, a], [chunkB, b]) => b.score - a.score || chunkA - chunkB)
    .slice(0, Math.max(1, topK))
    .map(([chunk, { passage }]) => ({
      index: chunk,
      score: fused[passage] as number,
      passage: {
        text: scores.passages[passage]?.text ?? '',
        dense: scores.dense[passage] as number,
        bm25: scores.bm25[passage] as number,
      },
    }));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let dim = 0; dim < length; dim += 1) sum += (a[dim] as number) * (b[dim] as number);
  return sum;
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
