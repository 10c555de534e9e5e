import type { EmbeddingModel, EmbedOptions } from '../ports/embedding-model.js';
import { contentTerms } from '../text/keywords.js';
import { splitSentences } from '../text/sentences.js';

/**
 * Whether a cited passage supports the sentence that cites it (docs/decisions/0063): the embedding
 * model's best cosine between the sentence and one of the passage's sentences, and the share of the
 * sentence's content words found anywhere in the passage, combined as
 * `cosineWeight × cosine + (1 − cosineWeight) × share`. Supported when that score reaches
 * `threshold` and is no more than `margin` below the best score of the run's other records (the
 * cited record is the one that best supports the sentence). Without an embedding model (or when it
 * fails) the share alone is compared with `lexicalThreshold`. Chosen on SciFact's tuning split (even
 * claim ids): a claim against the five abstracts BM25 ranks first for it, its gold evidence
 * abstracts the positives.
 */
export const supportSettings = {
  cosineWeight: 0.7,
  threshold: 0.704,
  margin: 0,
  lexicalThreshold: 0.846,
} as const;

export interface SupportSettings {
  cosineWeight: number;
  threshold: number;
  margin: number;
  lexicalThreshold: number;
}

/** What the judge found for one sentence and one passage. */
export interface SupportJudgment {
  supported: boolean;
  /** The combined score (or the share alone when `lexicalOnly`). */
  score: number;
  /** Best cosine of the sentence and a passage sentence; absent when no model judged. */
  cosine?: number;
  /** Share of the sentence's content terms found in the passage. */
  share: number;
  /** The best combined score of the other records' passages, when there were any. */
  bestOther?: number;
  /** True when the embedding model was absent or failed and the share alone decided. */
  lexicalOnly: boolean;
}

/** Most passage sentences embedded for one record (a full text read in chunks can be long). */
const maxPassageSentences = 80;

/** The share of `sentence`'s content terms (inflections off) that `passage` holds; 0 without terms. */
export function termShare(sentence: string, passage: string): number {
  const wanted = new Set(contentTerms(sentence));
  if (wanted.size === 0) return 0;
  const present = new Set(contentTerms(passage));
  let found = 0;
  for (const term of wanted) if (present.has(term)) found += 1;
  return found / wanted.size;
}

/** The combined score of a cosine and a share under `settings`. */
export function supportScore(cosine: number, share: number, settings: SupportSettings = supportSettings) {
  return settings.cosineWeight * cosine + (1 - settings.cosineWeight) * share;
}

/**
 * The support judge of one run: passage sentences are embedded once per passage text and kept, so a
 * record cited five times is embedded once. Sentences go to the model's question path (`query`,
 * `urgent`), so a check never waits behind a document's embedding batch.
 */
export class CitationSupport {
  private readonly passages = new Map<string, Promise<Float32Array[]>>();
  /** Set after the model failed once: the rest of the run judges by the share alone. */
  private failed = false;

  /**
   * @param signal the run's: a check stops with it (and the judge falls back to shared words).
   * @param timeoutMs longest wait for the model on one check.
   */
  constructor(
    private readonly model: EmbeddingModel | undefined,
    private readonly settings: SupportSettings = supportSettings,
    private readonly signal?: AbortSignal,
    private readonly timeoutMs = 5000,
  ) {}

  /** Whether the judge has an embedding model that has not failed. */
  get usesModel(): boolean {
    return this.model !== undefined && !this.failed;
  }

  /**
   * Starts embedding passages a later check will compare with, on the model's document path (not
   * urgent: a background task must not hold up other users' questions); errors are left to the check.
   */
  warm(passages: string[]): void {
    if (!this.model || this.failed) return;
    const signal = this.signal ? AbortSignal.any([this.signal, AbortSignal.timeout(60_000)]) : undefined;
    this.vectorsOf(this.model, passages, { inputType: 'document', ...(signal ? { signal } : {}) }).catch(
      () => {},
    );
  }

  /**
   * Judges `sentence` against the cited `passage`; `others` are the passages of the run's other
   * records, which the cited one must not fall behind by more than the margin.
   */
  async judge(sentence: string, passage: string, others: string[] = []): Promise<SupportJudgment> {
    const scored = await this.scores(sentence, [passage, ...others]);
    if (scored) {
      const [first, ...rest] = scored;
      const score = first?.score ?? 0;
      const bestOther = rest.length > 0 ? Math.max(...rest.map((item) => item.score)) : undefined;
      const supported =
        score >= this.settings.threshold &&
        (bestOther === undefined || score >= bestOther - this.settings.margin);
      return {
        supported,
        score,
        cosine: first?.cosine ?? 0,
        share: first?.share ?? 0,
        ...(bestOther === undefined ? {} : { bestOther }),
        lexicalOnly: false,
      };
    }
    const share = termShare(sentence, passage);
    return { supported: share >= this.settings.lexicalThreshold, score: share, share, lexicalOnly: true };
  }

  /**
   * The combined score of `sentence` (embedded on the model's query path) against each passage, or
   * undefined without a model, or when it failed or took too long (it is then not asked again this
   * run, so an answer composed after a timeout is still checked and sent).
   */
  async scores(
    sentence: string,
    passages: string[],
  ): Promise<Array<{ score: number; cosine: number; share: number }> | undefined> {
    if (!this.model || this.failed) return undefined;
    try {
      const options = this.options();
      // Passages being embedded ahead (`warm`) are waited for no longer than a check's own limit.
      const [[claim], rows] = await untilAborted(
        Promise.all([
          this.model.embed([sentence], { ...options, inputType: 'query' }),
          this.vectorsOf(this.model, passages, options),
        ]),
        options.signal,
      );
      return rows.map((row, index) => {
        const cosine = bestDot(claim as Float32Array, row);
        const share = termShare(sentence, passages[index] as string);
        return { score: supportScore(cosine, share, this.settings), cosine, share };
      });
    } catch {
      this.failed = true;
      return undefined;
    }
  }

  private options() {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    return { inputType: 'document' as const, urgent: true, signal };
  }

  /** The sentence vectors of each passage: those not embedded yet in one call, then kept for the run. */
  private vectorsOf(
    model: EmbeddingModel,
    passages: string[],
    options: EmbedOptions,
  ): Promise<Float32Array[][]> {
    const missing = [...new Set(passages.filter((passage) => !this.passages.has(passage)))];
    if (missing.length > 0) {
      const split = missing.map(passageSentences);
      const all = model.embed(split.flat(), options);
      all.catch(() => {
        for (const passage of missing) this.passages.delete(passage);
      });
      let offset = 0;
      for (const [index, passage] of missing.entries()) {
        const from = offset;
        const to = offset + (split[index]?.length ?? 0);
        offset = to;
        this.passages.set(
          passage,
          all.then((vectors) => vectors.slice(from, to)),
        );
      }
    }
    return Promise.all(passages.map((passage) => this.passages.get(passage) as Promise<Float32Array[]>));
  }
}

/** The sentences of a passage the judge compares with (at most `maxPassageSentences`). */
export function passageSentences(passage: string): string[] {
  const sentences = passage
    .split(/\n+/)
    .flatMap((paragraph) => splitSentences(paragraph))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
  return sentences.slice(0, maxPassageSentences);
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The best cosine of `vector` and one of `rows` (0 without rows). */
function bestDot(vector: Float32Array, rows: Float32Array[]): number {
  let best = 0;
  for (const row of rows) best = Math.max(best, dot(vector, row));
  return best;
}

/** Cosine of two L2-normalised vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) sum += (a[index] ?? 0) * (b[index] ?? 0);
  return sum;
}
