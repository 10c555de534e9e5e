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
import type { Passage } from './passages.js';
import {
  DocumentLeftToWorkers,
  type PendingDocument,
  type PreparedDocument,
  PreparedDocuments,
  type PreparedDocumentsOptions,
} from './prepared-documents.js';

export interface QuestionRankerOptions extends PreparedDocumentsOptions {
  fusion?: FusionOptions | undefined;
  /** Passage windows, chunk aggregation and section priors (default `defaultChunkScoring`). */
  chunkScoring?: ChunkScoring | undefined;
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
 * Candidates of a first question, chosen by measurement (docs/decisions/0012-question-ranking.md,
 * "First question"): on readers' questions the ranking matches the full one's, in a fraction of the
 * time a 20-page paper's ~200 passages take.
 */
export const defaultFirstQuestionCandidates = 32;
/** See `QuestionRankerOptions.firstQuestionSpread` (measured with the candidates, decision 0012). */
export const defaultFirstQuestionSpread = 24;

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

/** A question's passage scores and the fused score it is ranked by. */
interface Scored {
  scores: PassageScores;
  fused: Float32Array;
  path: RankTimings['path'];
  prepareMs: number;
  embedMs: number;
  passagesEmbedded: number;
}

/**
 * Ranks a document's chunks for a question. Chunks are cut into sentence-window passages that fit
 * the embedding model, embedded once per document and model, and stored (BlobStore + an in-memory
 * LRU), so the next question costs one question embedding and a dot product per passage. A question
 * is scored by dense cosine and BM25 over the passages, fused (`defaultFusion`); a chunk scores as
 * its best passage.
 */
export class QuestionRanker {
  private readonly fusion: FusionOptions;
  private readonly chunkScoring: ChunkScoring;
  private readonly queue: FairEmbeddingQueue;
  private readonly documents: PreparedDocuments;

  constructor(private readonly options: QuestionRankerOptions) {
    this.fusion = options.fusion ?? defaultFusion;
    this.chunkScoring = options.chunkScoring ?? defaultChunkScoring;
    this.queue = new FairEmbeddingQueue(options.model, { sliceSize: options.sliceSize });
    this.documents = new PreparedDocuments(options, this.queue);
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
    this.documents.forget(sha256);
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
    return this.documents.document(documentKey, chunks, lane, whole);
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
