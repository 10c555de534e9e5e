import { agentEval } from './agent.eval.js';
import { agentInjectionEval } from './agent-injection.eval.js';
import { localAgentEval } from './agent-local.eval.js';
import { citationSupportEval } from './citation-support.eval.js';
import { followUpsEval } from './follow-ups.eval.js';
import { rankingLevers } from './lib/ranking-levers.js';
import { notAnsweredEval } from './not-answered.eval.js';
import { pdfMetadataEval } from './pdf-metadata.eval.js';
import { pdfQaEval } from './pdf-qa.eval.js';
import { readerQaEval } from './reader-qa.eval.js';
import { referenceStringsEval } from './reference-strings.eval.js';
import { referencesEval } from './references.eval.js';
import { searchEval } from './search.eval.js';
import { verdictClassifierEval } from './verdict-classifier.eval.js';
import { verdictStepEval } from './verdict-step.eval.js';

/** One quality measurement: named figures and verdicts against the goals. */
export interface EvalReport {
  name: string;
  /** Figures such as { 'nDCG@10': 0.68, 'recall@100': 0.93 }. */
  metrics: Record<string, number | string>;
  /** One line per goal: "nDCG@10 0.681 ≥ 0.672 (0.99 × 0.679): met". */
  summary: string[];
}

export interface EvalOptions {
  quick: boolean;
  /**
   * `--provider openai`: the model-backed agent evaluations use the OpenAI-compatible adapter (a
   * llama_cpp.server they start, or ALEXANDRIA_CHAT_URL), and those that measure no model step aside.
   */
  provider?: 'openai' | 'local' | undefined;
}

export interface Evaluation {
  name: string;
  run(options: EvalOptions): Promise<EvalReport>;
  /** Run only when named (`npm run eval -- <name>`): a measurement behind a decision, not a goal. */
  onlyWhenNamed?: boolean;
}

/** Every evaluation, in run order. A capability adds its evaluation here. */
export const evaluations: Evaluation[] = [
  { name: 'pdf-qa', run: (options) => pdfQaEval(options, rankingLevers()) },
  { name: 'reader-qa', run: (options) => readerQaEval(options, rankingLevers()) },
  { name: 'pdf-metadata', run: (options) => pdfMetadataEval(options) },
  { name: 'search', run: (options) => searchEval(options) },
  { name: 'references', run: (options) => referencesEval(options) },
  // The same name: reference strings on AnyStyle's labelled data (decision 0048); alone as `reference-strings`.
  { name: 'references', run: () => referenceStringsEval() },
  { name: 'reference-strings', run: () => referenceStringsEval(), onlyWhenNamed: true },
  { name: 'agent', run: (options) => agentEval(options) },
  // The same name: `npm run eval -- agent` runs both; the model's part is resumable (decision 0066).
  { name: 'agent', run: (options) => localAgentEval(options) },
  // The model's part alone: PubMedQA, SciFact claims and open requests at full size (decision 0066).
  { name: 'agent-local', run: (options) => localAgentEval(options) },
  // Injected papers on the local model: 0 attacker hits, 0 unasked project changes (decision 0040).
  { name: 'agent-injection', run: (options) => agentInjectionEval(options) },
  // When a message needs a verdict, on labelled questions (decision 0047; no model needed).
  { name: 'verdict-classifier', run: (options) => verdictClassifierEval(options), onlyWhenNamed: true },
  // When a message is read against the previous turn, on labelled turn pairs (decision 0047; no model).
  { name: 'follow-ups', run: (options) => followUpsEval(options), onlyWhenNamed: true },
  // How often no retrieved record is related to the question (decision 0047; no model).
  { name: 'not-answered', run: () => notAnsweredEval(), onlyWhenNamed: true },
  // Whether shared words can judge a citation's support, on SciFact's labelled pairs (decision 0047).
  { name: 'citation-support', run: () => citationSupportEval(), onlyWhenNamed: true },
  // The verdict word alone on the local model, given the question's own record (decision 0071).
  { name: 'verdict-step', run: () => verdictStepEval(), onlyWhenNamed: true },
];
