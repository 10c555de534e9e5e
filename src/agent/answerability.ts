import type { EmbeddingModel } from '../ports/embedding-model.js';
import { CitationSupport, type SupportSettings } from './citation-support.js';
import { recordText, relatedSources } from './relevance.js';
import type { Evidence, RetrievedSource } from './source-ledger.js';

/**
 * Whether a retrieved record answers the question (docs/decisions/0064): it shares the question's
 * key terms (the term rule of decision 0047) and its score — `cosineWeight` × the embedding model's
 * best cosine between the question (query path) and one of the record's sentences + the rest × the
 * share of the question's content words the record holds (the citation-support judge's score,
 * decision 0063) — reaches `threshold`. Chosen on the tuning split of PubMedQA (even positions).
 */
export const answerSettings: SupportSettings = {
  cosineWeight: 0.6,
  threshold: 0.54,
  margin: 0,
  lexicalThreshold: 0,
};

/** The records that answer the question, and whether the embedding model judged them. */
export interface Answerability {
  answering: RetrievedSource[];
  /** The records the term rule relates (on the question's subject), a superset of `answering`. */
  related: RetrievedSource[];
  /** False when the term rule alone decided (no model, or it failed or took too long). */
  byModel: boolean;
}

/**
 * The answerability judge of one run. Fails safe: without an embedding model, or once it failed or
 * took longer than `timeoutMs`, the records related by the term rule count as answering (today's
 * rule), so a slow model never turns an answer into "the papers found do not answer this".
 */
export class AnswerabilityJudge {
  private readonly judge: CitationSupport;

  constructor(
    model: EmbeddingModel | undefined,
    private readonly settings: SupportSettings = answerSettings,
    signal?: AbortSignal,
    timeoutMs = 5000,
  ) {
    this.judge = new CitationSupport(model, settings, signal, timeoutMs);
  }

  async answering(
    question: string,
    sources: RetrievedSource[],
    evidence: Evidence[],
  ): Promise<Answerability> {
    const related = relatedSources(question, sources, evidence);
    if (related.length === 0) return { answering: [], related, byModel: false };
    const scored = await this.judge.scores(
      question,
      related.map((source) => recordText(source, evidence)),
    );
    if (!scored) return { answering: related, related, byModel: false };
    const answering = related.filter((_, index) => (scored[index]?.score ?? 0) >= this.settings.threshold);
    return { answering, related, byModel: true };
  }
}
