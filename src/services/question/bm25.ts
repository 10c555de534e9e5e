import { LoopTurns } from '../../platform/loop-turns.js';
import { porterStem } from './porter-stemmer.js';

/** BM25 parameters; the classic defaults (Robertson; Lucene/Pyserini use the same k1 0.9–1.2, b 0.4–0.75). */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

export const defaultBm25: Bm25Parameters = { k1: 1.2, b: 0.75 };

/**
 * Over a document's passages (all cut to about the same number of word pieces) length says little
 * about relevance, and full normalisation (b 0.75) lifts the short ones: figure labels and table
 * headers that list every term of a question. b 0.3 was chosen by measurement
 * (docs/decisions/0012-question-ranking.md).
 */
export const passageBm25: Bm25Parameters = { k1: 1.2, b: 0.3 };

/**
 * An in-process BM25 index over one document's passages (hundreds, not millions: postings in maps,
 * built in a few milliseconds when a document's vectors are loaded).
 */
export class Bm25Index {
  private readonly postings = new Map<string, Array<[passage: number, frequency: number]>>();
  private readonly lengths: Uint32Array;
  private averageLength = 1;

  constructor(
    texts: readonly string[],
    private readonly parameters: Bm25Parameters = defaultBm25,
    /** Index the texts later (`build`): the index is empty until then. */
    deferred = false,
  ) {
    this.lengths = new Uint32Array(texts.length);
    if (deferred) return;
    texts.forEach((text, passage) => {
      this.add(text, passage);
    });
    this.finish();
  }

  /**
   * The index of `texts`, built in slices that give the event loop a turn every ~10 ms: a document
   * of 50,000 references has some 5,000 passages (decision 0042).
   */
  static async build(
    texts: readonly string[],
    parameters: Bm25Parameters = defaultBm25,
    turns: LoopTurns = new LoopTurns(),
  ): Promise<Bm25Index> {
    const index = new Bm25Index(texts, parameters, true);
    for (const [passage, text] of texts.entries()) {
      index.add(text, passage);
      await turns.due();
    }
    index.finish();
    return index;
  }

  private add(text: string, passage: number): void {
    const terms = analyze(text);
    this.lengths[passage] = terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, frequency] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = [];
        this.postings.set(term, list);
      }
      list.push([passage, frequency]);
    }
  }

  private finish(): void {
    const total = this.lengths.reduce((sum, length) => sum + length, 0);
    this.averageLength = this.lengths.length > 0 ? Math.max(1, total / this.lengths.length) : 1;
  }

  /** BM25 score of every passage for `query` (0 where no query term occurs). */
  score(query: string): Float32Array {
    const scores = new Float32Array(this.lengths.length);
    const { k1, b } = this.parameters;
    const count = this.lengths.length;
    for (const term of new Set(analyze(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      // Lucene's idf: always positive, so a term in most passages still counts a little.
      const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
      for (const [passage, frequency] of list) {
        const norm = k1 * (1 - b + (b * (this.lengths[passage] as number)) / this.averageLength);
        scores[passage] = (scores[passage] as number) + (idf * (frequency * (k1 + 1))) / (frequency + norm);
      }
    }
    return scores;
  }
}

// English function words plus question words; they carry no topic (Lucene's list + a few).
const stopwords = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with which what who whom whose when where why how does do did done has have had ' +
    'been being were from than its our we us you your i he she his her them those also can could would should ' +
    'may might must shall between after before during most more other some any each both all about over under'
  ).split(' '),
);

/**
 * Terms of a text: lower-cased, accents folded, split at anything not a letter or digit, stop
 * words dropped, Porter-stemmed (as Lucene's English analyzer does: "resistant" matches
 * "resistance"). Tokens with digits such as "A456V", "Rev1" or "p53" stay whole (they are often the
 * point of a question).
 */
export function analyze(text: string): string[] {
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms: string[] = [];
  for (const word of words) {
    if (stopwords.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

function stem(word: string): string {
  return /\d/.test(word) ? word : porterStem(word);
}
