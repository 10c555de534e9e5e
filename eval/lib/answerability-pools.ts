// The candidate pools of `npm run eval -- not-answered`'s answerability part (decision 0064): for
// each question, the top 10 pool records by BM25 as a run's search would rank them, each with the
// term rule's verdict and the judge's cosine and share, so that settings can be swept without the
// model.
import { answerSettings } from '../../src/agent/answerability.js';
import { CitationSupport } from '../../src/agent/citation-support.js';
import { keyTerms, termsNeeded } from '../../src/agent/relevance.js';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';
import { Bm25Index } from '../../src/text/bm25.js';
import { contentTerms } from '../../src/text/keywords.js';

/** One candidate record of a question: the term rule's verdict and the judge's two parts. */
export interface Candidate {
  related: boolean;
  cosine: number;
  share: number;
}

/** The settings a sweep tries: the cosine's weight, the threshold, and whether the term rule gates. */
export interface JudgeSetting {
  cosineWeight: number;
  threshold: number;
  gated: boolean;
}

/** Records a search would show for a question: how many. */
export const poolSize = 10;

/** Whether no candidate answers under `setting` ("the papers found do not answer this"). */
export function notAnswered(candidates: Candidate[], setting: JudgeSetting): boolean {
  return !candidates.some(
    (item) =>
      (!setting.gated || item.related) &&
      setting.cosineWeight * item.cosine + (1 - setting.cosineWeight) * item.share >= setting.threshold,
  );
}

/** The pool a search would give: BM25 over the records, with some left out. */
export class CandidatePools {
  private readonly index: Bm25Index;
  private readonly terms: Array<Set<string>>;
  private readonly judge: CitationSupport;

  constructor(
    private readonly texts: string[],
    model: EmbeddingModel,
  ) {
    this.index = Bm25Index.of(texts);
    this.terms = texts.map((text) => new Set(contentTerms(text)));
    // A long limit: the eval's model shares two busy cores, and a timeout would end the judging.
    this.judge = new CitationSupport(model, answerSettings, undefined, 600_000);
  }

  /** The top records for `question` (`skip` left out) that the term rule relates, judged. */
  async candidates(question: string, skip?: number): Promise<Candidate[]> {
    const scores = this.index.score(question);
    const ranked = [...scores.keys()]
      .filter((index) => index !== skip && (scores[index] ?? 0) > 0)
      .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0))
      .slice(0, poolSize);
    if (ranked.length === 0) return [];
    const keys = keyTerms(question);
    const needed = termsNeeded(keys.length);
    // Only records the term rule relates are judged (the judge never passes the others): the model
    // is the slow part on a shared machine.
    const related = ranked.filter(
      (index) => keys.length === 0 || keys.filter((key) => this.terms[index]?.has(key)).length >= needed,
    );
    if (related.length === 0) return [];
    const scored = await this.judge.scores(
      question,
      related.map((index) => this.texts[index] as string),
    );
    if (!scored) throw new Error('the embedding model failed');
    return related.map((_, at) => ({
      related: true,
      cosine: scored[at]?.cosine ?? 0,
      share: scored[at]?.share ?? 0,
    }));
  }
}
