import type { ChatMessage } from '../domain/chat.js';
import type { TokenUsage } from '../ports/chat-model.js';
import type { LiteratureMapService } from '../services/federation/literature-map.js';
import type { ProjectService } from '../services/project-service.js';
import type { FullTextReader, PaperLibrary, PaperSearch } from '../services/services.js';
import type { CitationReport } from './citation-filter.js';
import type { SupportReport } from './citation-support-stage.js';
import type { SourceLedger } from './source-ledger.js';

/** Where an agent run logs (the request's pino logger fits). */
export interface AgentLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** One research question, as the chat endpoint passes it. */
export interface ResearchRequest {
  tenantId: string;
  /** The conversation; the last `user` message is the question. */
  messages: ChatMessage[];
  /** Aborted when the client goes away: every tool call and model call stops. */
  signal: AbortSignal;
  /** Receives a line per tool call (arguments and the gate's decision); none when absent. */
  logger?: AgentLog;
}

/** What an agent run emits, in order; the chat endpoint turns each into a stream chunk. */
export type AgentEvent =
  /** What the agent is doing (searching, reading): `delta.reasoning_content` on the wire. */
  | { type: 'progress'; text: string }
  /** A piece of the answer (already citation-checked): `delta.content`. */
  | { type: 'content'; text: string }
  /** The end of the run, always last. */
  | { type: 'done'; summary: RunSummary };

export interface RunSummary {
  /** `direct`: not a research question (small talk, a client's task prompt): no literature run. */
  mode: 'tools' | 'extractive' | 'direct';
  usage: TokenUsage;
  /** Model calls made (0 for the extractive pipeline). */
  steps: number;
  /**
   * Which budget ended the run early, if one did: `answer-time` is the soft time budget (the model
   * still wrote the answer), `time` the hard limit (the answer was composed from what was retrieved).
   */
  stoppedBy?: 'steps' | 'tokens' | 'answer-time' | 'time';
  /** How long each tool step took (the model's call and the tools it ran), in milliseconds. */
  stepMs?: number[];
  /** Records retrieved by the run. */
  sources: number;
  citations: CitationReport;
  /**
   * The support check of the answer's citations (tool runs): citations dropped because the cited
   * record's passage does not support their sentence, and sentences left uncited (docs/decisions/0063).
   */
  support?: SupportReport;
  /** Every record the run retrieved (what the answer may cite), for audits and evaluation. */
  ledger: SourceLedger;
  /** The verdict step's reply to a yes/no question, when one was taken (the answer starts with it). */
  verdict?: 'yes' | 'no' | 'maybe';
  /** An answer's sentence that said the opposite of its verdict (a note then says the evidence is mixed). */
  verdictContradicted?: string;
  /** The model's probabilities of yes, no and maybe at the verdict step, when it gave them. */
  verdictProbabilities?: Record<string, number>;
  /**
   * Tool calls the gate refused: a document or paper the run was not given, or a change to the
   * user's projects the user did not ask for (docs/decisions/0040).
   */
  refusedToolCalls?: number;
  /** Set when the run fell back to the extractive pipeline, with the reason. */
  fallback?: string;
}

/** Limits of one agent run; see docs/decisions for the defaults. */
export interface AgentBudgets {
  /** Most model calls in one run (the last one is forced to answer without tools). */
  maxSteps: number;
  /** Most tokens (prompt + completion, summed over calls) before the agent must answer. */
  maxTokens: number;
  /** Wall-clock limit of a run, in milliseconds. */
  timeLimitMs: number;
  /**
   * Soft limit, in milliseconds: a model step that starts past it must answer (no more tools), so a
   * slow model's search ends in time to write the answer. Unset: only the other budgets end it.
   */
  answerAfterMs?: number;
  /**
   * When the answer should begin at the latest, in milliseconds into the run: a tool step is not
   * started when the run's longest step so far would end past it (the step that starts just before
   * `answerAfterMs` is what otherwise pushes a slow model's answer late). Unset: no such forecast.
   */
  answerByMs?: number;
  /** Limit of one tool call (search, read, ask), in milliseconds. */
  toolTimeoutMs: number;
  /** Most tool calls executed per model step (extra calls are answered "skipped"). */
  maxToolCallsPerStep: number;
  /** Most tokens the model may write in one call. */
  maxTokensPerCall: number;
  /**
   * Most tokens of an answer that no verdict leads (one that does stops at 240): a small model on
   * CPU writes ~10-25 tokens a second, so a long answer is most of a run's time. The answer is told
   * its length, and one cut short ends with "…". Unset: `maxTokensPerCall`.
   */
  maxAnswerTokens?: number;
}

export const defaultBudgets: AgentBudgets = {
  maxSteps: 8,
  maxTokens: 60_000,
  timeLimitMs: 120_000,
  toolTimeoutMs: 30_000,
  maxToolCallsPerStep: 4,
  maxTokensPerCall: 1500,
};

/** The services an agent uses as tools; any may be missing (its tools are then not offered). */
export interface ResearchTools {
  search?: PaperSearch;
  fullText?: FullTextReader;
  library?: PaperLibrary;
  /** The caller's projects: searched as "your library" and used to find stored PDFs. */
  projects?: ProjectService;
  /** References, citations and related papers of a paper (when the federation is present). */
  literatureMap?: Pick<LiteratureMapService, 'map'>;
}

/** A running agent: its events until `done`. */
export interface ResearchAgent {
  run(request: ResearchRequest): AsyncIterable<AgentEvent>;
}

/** The question of a conversation: its last user message. */
export function questionOf(messages: ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user' && message.content.trim().length > 0) return message.content.trim();
  }
  return '';
}
