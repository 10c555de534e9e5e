import { analyze } from './analyzer.js';

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

/** Text → terms; `analyze` (`text/analyzer.ts`) unless told otherwise. */
export type TermsOf = (text: string) => string[];

/** Something that gives the event loop a turn when one is due (`platform/loop-turns.ts`). */
export interface Turns {
  due(): Promise<void>;
}

/**
 * The one in-memory BM25 (decision 0057): over a document's passages for the question ranker, over
 * sentences and passages for the agent. Hundreds or thousands of texts, not millions: postings in
 * maps, built in milliseconds. Queries are analysed as the texts were.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Array<[passage: number, frequency: number]>>();
  private readonly lengths: Uint32Array;
  private averageLength = 1;

  private constructor(
    count: number,
    private readonly parameters: Bm25Parameters,
    private readonly termsOf: TermsOf,
  ) {
    this.lengths = new Uint32Array(count);
  }

  /** The index of `texts`, built at once. */
  static of(texts: readonly string[], parameters = defaultBm25, termsOf: TermsOf = analyze): Bm25Index {
    return Bm25Index.ofTerms(
      texts.map((text) => termsOf(text)),
      parameters,
      termsOf,
    );
  }

  /** The index of texts analysed already (`terms[i]` are the terms of text i, in order). */
  static ofTerms(
    terms: readonly (readonly string[])[],
    parameters = defaultBm25,
    termsOf: TermsOf = analyze,
  ): Bm25Index {
    const index = new Bm25Index(terms.length, parameters, termsOf);
    terms.forEach((list, passage) => {
      index.add(list, passage);
    });
    index.finish();
    return index;
  }

  /**
   * The index of `texts`, built in slices that give the event loop a turn when `turns` says so: a
   * document of 50,000 references has some 5,000 passages (decision 0042).
   */
  static async build(
    texts: readonly string[],
    parameters: Bm25Parameters,
    turns: Turns,
    termsOf: TermsOf = analyze,
  ): Promise<Bm25Index> {
    const index = new Bm25Index(texts.length, parameters, termsOf);
    for (const [passage, text] of texts.entries()) {
      index.add(termsOf(text), passage);
      await turns.due();
    }
    index.finish();
    return index;
  }

  private add(terms: readonly string[], passage: number): void {
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

  /** BM25 score of every text for `query` (0 where no query term occurs). */
  score(query: string): Float32Array {
    return this.scoreTerms(this.termsOf(query));
  }

  /** BM25 score of every text for query terms analysed already (repeats count once). */
  scoreTerms(queryTerms: readonly string[]): Float32Array {
    const scores = new Float32Array(this.lengths.length);
    const { k1, b } = this.parameters;
    const count = this.lengths.length;
    for (const term of new Set(queryTerms)) {
      const list = this.postings.get(term);
      if (!list) continue;
      // Lucene's idf: always positive, so a term in most texts still counts a little.
      const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
      for (const [passage, frequency] of list) {
        const norm = k1 * (1 - b + (b * (this.lengths[passage] as number)) / this.averageLength);
        scores[passage] = (scores[passage] as number) + (idf * (frequency * (k1 + 1))) / (frequency + norm);
      }
    }
    return scores;
  }
}
