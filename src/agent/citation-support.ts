import type { EmbeddingModel } from '../ports/embedding-model.js';
import { contentTerms } from '../text/keywords.js';
import { splitSentences } from '../text/sentences.js';

/**
 * Whether a cited passage supports the sentence that cites it (docs/decisions/0063): the embedding
 * model's best cosine between the sentence and one of the passage's sentences, and the share of the
 * sentence's content words found anywhere in the passage, combined as
 * `cosineWeight × cosine + (1 − cosineWeight) × share`; supported at or above `threshold`. Without
 * an embedding model (or when it fails) the share alone is compared with `lexicalThreshold`. The
 * weights and thresholds were chosen on SciFact's tuning split (even claim ids): a claim against the
 * five abstracts BM25 ranks first for it, its gold evidence abstracts the positives.
 */
export const supportSettings = {
  cosineWeight: 0.7,
  threshold: 0.78,
  lexicalThreshold: 0.846,
} as const;

export interface SupportSettings {
  cosineWeight: number;
  threshold: number;
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

  async judge(sentence: string, passage: string): Promise<SupportJudgment> {
    const share = termShare(sentence, passage);
    if (this.model && !this.failed) {
      try {
        const cosine = await this.bestCosine(this.model, sentence, passage);
        const score = supportScore(cosine, share, this.settings);
        return { supported: score >= this.settings.threshold, score, cosine, share, lexicalOnly: false };
      } catch {
        // The model failed or took too long (or the run ran out of time): the rest of the run judges
        // by shared words, so an answer composed after a timeout is still checked and sent.
        this.failed = true;
      }
    }
    return { supported: share >= this.settings.lexicalThreshold, score: share, share, lexicalOnly: true };
  }

  private async bestCosine(model: EmbeddingModel, sentence: string, passage: string): Promise<number> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    const options = { inputType: 'query' as const, urgent: true, signal };
    let vectors = this.passages.get(passage);
    if (!vectors) {
      const sentences = passageSentences(passage);
      vectors = model.embed(sentences, { ...options, inputType: 'document' });
      this.passages.set(passage, vectors);
      vectors.catch(() => this.passages.delete(passage));
    }
    const [[claim], rows] = await Promise.all([model.embed([sentence], options), vectors]);
    let best = 0;
    for (const row of rows) best = Math.max(best, dot(claim as Float32Array, row));
    return best;
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

/** Cosine of two L2-normalised vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) sum += (a[index] ?? 0) * (b[index] ?? 0);
  return sum;
}
