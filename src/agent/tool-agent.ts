import { isAppError } from '../domain/errors.js';
import type {
  ChatFinishReason,
  ChatModel,
  ChatModelMessage,
  ChatToolCall,
  TokenUsage,
} from '../ports/chat-model.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import { FenceMarkerFilter, PromptFence } from '../text/fence.js';
import {
  answerWords,
  canonicalArguments,
  cutMidSentence,
  fullTextTools,
  noFullTextNote,
  pastAnswerMark,
  searchTerms,
  unique,
} from './agent-step-rules.js';
import { createAgentTools, type ToolSet } from './agent-tools.js';
import type {
  AgentBudgets,
  AgentEvent,
  ResearchAgent,
  ResearchRequest,
  ResearchTools,
  RunSummary,
} from './agent-types.js';
import { questionOf } from './agent-types.js';
import {
  droppedHistoryNote,
  extractiveAnswer,
  fallBack,
  modelFailedNote,
  notAboutItNote,
} from './answer-endings.js';
import { AnswerabilityJudge } from './answerability.js';
import { CitationFilter } from './citation-filter.js';
import { CitationSupport, supportSettings } from './citation-support.js';
import { CitationSupportStage } from './citation-support-stage.js';
import { referencesSection } from './compose.js';
import { fitHistory, followUpNote, readFollowUp, readingLine } from './conversation.js';
import { DocumentProvenance, projectDocumentRefs } from './document-provenance.js';
import { answerNowPrompt, compactResearchSystemPrompt, researchSystemPrompt } from './prompts.js';
import { verdictQuestion } from './question-kind.js';
import { ReferencesGuard } from './references-guard.js';
import { notAnsweredText } from './relevance.js';
import { SourceLedger } from './source-ledger.js';
import { prepareToolCall } from './tool-call.js';
import { logToolCall, ToolGate } from './tool-gate.js';
import {
  afterVerdictPrompt,
  runVerdictStep,
  type Verdict,
  type VerdictLogPriors,
  verdictAnswerTokens,
} from './verdict.js';
import { mixedEvidenceNote, verdictConflict } from './verdict-consistency.js';

export interface ToolAgentOptions {
  budgets: AgentBudgets;
  documentUrl?: (pdfRef: string) => string;
  /** Runs when the model fails before writing anything (the extractive pipeline). */
  fallback?: ResearchAgent;
  /**
   * Search before the first model call, as if the model had called search_papers (and
   * search_my_library) with the question's keywords: the first progress line streams at once, and a
   * slow local model skips writing the obvious first action (docs/decisions/0035-local-chat-model.md).
   */
  searchFirst?: boolean;
  /** The tools and prompt offered: `compact` for a small local model (default `full`). */
  toolSet?: ToolSet;
  /**
   * Tokens the conversation (earlier turns and the question) may take of the model's context; beyond
   * it earlier answers are shortened and the oldest turns left out, which the answer says. Default
   * 24,000.
   */
  historyTokens?: number;
  /**
   * Decide a yes/no question's verdict in a step of its own before the answer: the model, shown the
   * question and the closing and best-matching sentences of the best-matching record, replies yes,
   * no or maybe (held to those words by a grammar on the local model), and the answer starts with
   * that verdict. Default: with the compact tool set (a small local model; docs/decisions/0035).
   */
  verdictStep?: boolean;
  /**
   * Added to the model's log-probabilities of yes, no and maybe at the verdict step: the local
   * model's correction of its lean (decision 0072). None: the most probable word as given.
   */
  verdictLogPriors?: VerdictLogPriors;
  /** Clock for "today" in the prompt (tests pin it). */
  today?: () => string;
  /**
   * The sentence encoder the support check of citations uses (docs/decisions/0063); without one the
   * check judges by shared content words alone.
   */
  embeddings?: EmbeddingModel;
}

/**
 * The research agent with a chat model: it plans with tool calls (search, read, ask, add), reads the
 * fenced results, and writes the answer, which streams through the references guard and the citation
 * filter. Budgets: at most `maxSteps` model calls (the last one without tools, told to answer), a
 * token total after which the next call must answer, and a wall-clock limit after which the answer
 * is composed extractively from what was retrieved. See docs/agent.md.
 */
export class ToolAgent implements ResearchAgent {
  constructor(
    private readonly model: ChatModel,
    private readonly tools: ResearchTools,
    private readonly options: ToolAgentOptions,
  ) {}

  async *run(request: ResearchRequest): AsyncIterable<AgentEvent> {
    const { budgets } = this.options;
    const deadline = AbortSignal.timeout(budgets.timeLimitMs);
    const startedAt = performance.now();
    const signal = AbortSignal.any([request.signal, deadline]);
    const question = questionOf(request.messages);
    const ledger = new SourceLedger(this.options.documentUrl);
    const fence = new PromptFence();
    const guard = new ReferencesGuard();
    const filter = new CitationFilter(ledger);
    // Each citation the model writes is judged against what the run read of the record (0063).
    const support = new CitationSupportStage(
      ledger,
      new CitationSupport(this.options.embeddings, supportSettings, signal),
    );
    // A fence marker the model repeats from its prompt is dropped from the answer.
    const markers = new FenceMarkerFilter();
    // What the tools may read and change: what the user gave, their projects, what the run found.
    const { projects } = this.tools;
    const gate = new ToolGate({
      provenance: new DocumentProvenance({
        messages: request.messages,
        ledger,
        ...(projects ? { projectDocuments: () => projectDocumentRefs(projects, request.tenantId) } : {}),
      }),
      userMessage: question,
    });
    const skip = (call: ChatToolCall, reason: string) => logToolCall(request.logger, call, 'skipped', reason);
    const toolSet = this.options.toolSet ?? 'full';
    const yesNo = (this.options.verdictStep ?? toolSet === 'compact') ? verdictQuestion(question) : undefined;
    let verdict: Verdict | undefined;
    let verdictProbabilities: Record<string, number> | undefined;
    const tools = createAgentTools(this.tools, toolSet);
    const definitions = [...tools.values()].map((entry) => entry.tool.definition);
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const today = this.options.today?.() ?? new Date().toISOString().slice(0, 10);
    const history = fitHistory(request.messages, this.options.historyTokens ?? 24_000);
    const followUp = readFollowUp(request.messages);
    const note = followUpNote(followUp);
    const conversation: ChatModelMessage[] = history.messages.map((message) => ({
      role: message.role,
      content: message.content,
    }));
    // What "them"/"it" points at, or that a new question refers to nothing earlier, told right before
    // the question (a small model otherwise searches for the bare follow-up's words, or reads a new
    // question's "they" as the previous subject).
    const asked = conversation.map((message) => message.role).lastIndexOf('user');
    if (note && asked >= 0) conversation.splice(asked, 0, { role: 'system', content: note });
    const messages: ChatModelMessage[] = [
      {
        role: 'system',
        content: (toolSet === 'compact' ? compactResearchSystemPrompt : researchSystemPrompt)({
          fence,
          maxSteps: budgets.maxSteps - 1,
          today,
          answerWords:
            budgets.maxAnswerTokens === undefined ? undefined : answerWords(budgets.maxAnswerTokens),
        }),
      },
      ...conversation,
    ];
    let written = '';
    let steps = 0;
    /** How long each tool step took (its model call and its tools): the forecast of the next. */
    const stepMs: number[] = [];
    // Calls already made (name and arguments): a small model repeats them instead of answering.
    const made = new Set<string>();
    let repeated = false;
    /** The model chose to answer (with `answerSeparately`): the next call answers. */
    let chose = false;
    let stoppedBy: RunSummary['stoppedBy'];
    /** What the run searched for (each search call's keywords or query). */
    const searchedFor: string[] = [];
    // Searches were made and no record they found answers the question (decision 0064): none shares
    // its key terms, or none passes the embedding model's judgment (the term rule alone without it).
    const answerability = new AnswerabilityJudge(this.options.embeddings, undefined, signal);
    const nothingAnswers = async () => {
      if (searchedFor.length === 0) return undefined;
      const judged = await answerability.answering(followUp.resolved, ledger.sources(), ledger.evidence);
      return judged.answering.length === 0 ? { onSubject: judged.related.length > 0 } : undefined;
    };
    let notAnswered = false;
    let failure: string | undefined;
    /**
     * Sends text through the references guard, the citation filter and the support check; `service`
     * text (notes, an extractive answer) skips the support check. `written` is the filtered text.
     */
    const write = async (text: string, service = false): Promise<AgentEvent | undefined> => {
      const filtered = filter.push(guard.push(text));
      written += filtered;
      const checked = service ? await support.passThrough(filtered) : await support.push(filtered);
      return checked ? { type: 'content', text: checked } : undefined;
    };
    /** Runs one tool call: its progress line, then its result as the call's `tool` message. */
    const execute = async function* (call: ChatToolCall): AsyncGenerator<AgentEvent, void> {
      made.add(`${call.name} ${canonicalArguments(call.arguments)}`);
      if (call.name.startsWith('search_')) searchedFor.push(searchTerms(call.arguments));
      const prepared = prepareToolCall(tools, call);
      yield { type: 'progress', text: `${prepared.progress}\n` };
      const content = await prepared.execute({
        tenantId: request.tenantId,
        signal,
        ledger,
        fence,
        timeoutMs: budgets.toolTimeoutMs,
        userQuestion: followUp.resolved,
        gate,
        ...(request.logger ? { log: request.logger } : {}),
      });
      messages.push({ role: 'tool', toolCallId: call.id, content });
      // What the call found is embedded for the support check while the model reads it.
      support.prepare();
    };

    try {
      const reading = readingLine(followUp);
      if (reading) yield { type: 'progress', text: reading };
      if (this.options.searchFirst) {
        const keywords = (followUp.keywords.join(' ') || question).slice(0, 300);
        const first: ChatToolCall[] = [];
        if (tools.has('search_papers'))
          first.push({ id: 'call_search', name: 'search_papers', arguments: JSON.stringify({ keywords }) });
        if (tools.has('search_my_library'))
          first.push({
            id: 'call_library',
            name: 'search_my_library',
            arguments: JSON.stringify({ query: followUp.resolved.replace(/\s+/g, ' ').slice(0, 1000) }),
          });
        if (first.length > 0) messages.push({ role: 'assistant', content: null, toolCalls: first });
        for (const call of first) yield* execute(call);
      }
      for (;;) {
        steps += 1;
        const spent = usage.promptTokens + usage.completionTokens;
        const stepStartedAt = performance.now();
        const late = pastAnswerMark(stepStartedAt - startedAt, stepMs, budgets);
        const mustAnswer =
          chose ||
          steps >= budgets.maxSteps ||
          spent >= budgets.maxTokens ||
          late ||
          definitions.length === 0 ||
          repeated;
        const deciding =
          mustAnswer && yesNo !== undefined && verdict === undefined && ledger.evidence.length > 0;
        const forced = mustAnswer && definitions.length > 0 && !chose;
        if (forced) {
          // A repeated call is the model's own end of the search, not a budget; a late step is the
          // soft time budget (the answer is still the model's, unlike the hard limit's).
          if (!repeated) stoppedBy ??= steps >= budgets.maxSteps ? 'steps' : late ? 'answer-time' : 'tokens';
          // Before a verdict step the note would be its prompt's first line: the 1.5B model then
          // concluded "The research budget is used up." (the verdict step's prompts say what to do).
          // After a repeated or pointless call its result already says to answer: a second note
          // is what the 1.5B model then wrote as its whole answer (seen on the web page).
          if (!deciding && !repeated) messages.push({ role: 'system', content: answerNowPrompt });
        }
        const unanswered = mustAnswer ? await nothingAnswers() : undefined;
        if (unanswered) {
          // Nothing retrieved answers the question: the answer says so and what was searched,
          // instead of one from the model's memory.
          notAnswered = true;
          const searched = unique(searchedFor).join('; ');
          const out = await write(notAnsweredText(searched, ledger.sources(), unanswered.onSubject), true);
          if (out) yield out;
          break;
        }
        if (deciding && yesNo) {
          const decided = await runVerdictStep(
            this.model,
            messages,
            yesNo,
            ledger,
            budgets,
            signal,
            usage,
            this.options.verdictLogPriors,
          );
          verdict = decided?.verdict;
          verdictProbabilities = decided?.probabilities;
          steps += 2;
          if (!verdict && forced) messages.push({ role: 'system', content: answerNowPrompt });
          if (verdict) {
            messages.push(
              { role: 'assistant', content: verdict },
              { role: 'system', content: afterVerdictPrompt(verdict) },
            );
          }
        }
        let text = '';
        const calls: ChatToolCall[] = [];
        let finish: ChatFinishReason | undefined;
        // With a verdict to decide, a model that chooses to answer stops there (the local adapter's
        // answer action): the verdict step comes first, then the answer.
        const separately = !mustAnswer && yesNo !== undefined && verdict === undefined;
        let failed: { error: unknown } | undefined;
        // After a verdict the answer is 2-3 sentences: a cap on a small model that copies out. Any
        // other answer stops at its own limit (a tool call is far shorter than either).
        const answerCap = verdict
          ? Math.min(verdictAnswerTokens, budgets.maxTokensPerCall)
          : Math.min(budgets.maxAnswerTokens ?? budgets.maxTokensPerCall, budgets.maxTokensPerCall);
        try {
          for await (const event of this.model.stream({
            messages,
            ...(mustAnswer ? {} : { tools: definitions }),
            ...(separately ? { answerSeparately: true } : {}),
            maxTokens: answerCap,
            signal,
          })) {
            if (event.type === 'text') {
              text += event.text;
              const out = await write(markers.push(event.text));
              if (out) yield out;
            } else if (event.type === 'tool_call') {
              calls.push(event.call);
            } else {
              finish = event.reason;
              usage.promptTokens += event.usage.promptTokens;
              usage.completionTokens += event.usage.completionTokens;
            }
          }
        } catch (error) {
          failed = { error };
        }
        const held = await write(markers.end());
        if (held) yield held;
        if (failed) throw failed.error;
        if (finish === 'length' && calls.length === 0 && cutMidSentence(text)) {
          // The limit stopped the answer mid-sentence: say so rather than end on a fragment.
          const out = await write('…');
          if (out) yield out;
        }
        if (separately && calls.length === 0 && text.length === 0 && finish === 'stop') {
          // The model chose to answer: the next call decides the verdict and writes the answer.
          chose = true;
          continue;
        }
        if (calls.length === 0 || mustAnswer) break;
        messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
        if (text.trim().length > 0) {
          // Text before tool calls is a preamble; what the model writes next starts a new paragraph.
          const out = await write('\n\n');
          if (out) yield out;
        }
        for (const [index, call] of calls.entries()) {
          if (index >= budgets.maxToolCallsPerStep) {
            skip(call, 'too many tool calls in one step');
            messages.push({
              role: 'tool',
              toolCallId: call.id,
              content: 'Skipped: too many tool calls in one step.',
            });
            continue;
          }
          if (
            toolSet === 'compact' &&
            fullTextTools.has(call.name) &&
            !ledger.sources().some((source) => source.paper.pdf_id)
          ) {
            // Nothing found has a full text here: a small model asks one anyway (a record without a
            // PDF, or an id it made up), then searches again for ~20-40 s. The next step answers.
            repeated = true;
            skip(call, 'no record found has a full text');
            yield { type: 'progress', text: 'No full text to read: answering from the abstracts\n' };
            messages.push({ role: 'tool', toolCallId: call.id, content: noFullTextNote });
            continue;
          }
          if (made.has(`${call.name} ${canonicalArguments(call.arguments)}`)) {
            // The same call again: its result is already above; the next step answers.
            repeated = true;
            skip(call, 'repeats an earlier call');
            messages.push({
              role: 'tool',
              toolCallId: call.id,
              content: 'Already done: its result is above. Answer the question now.',
            });
            continue;
          }
          yield* execute(call);
        }
        stepMs.push(Math.round(performance.now() - stepStartedAt));
      }
    } catch (error) {
      request.signal.throwIfAborted();
      if (deadline.aborted) {
        stoppedBy = 'time';
      } else if (written.length === 0 && this.options.fallback) {
        yield* fallBack(this.options.fallback, request, error, steps, usage);
        return;
      } else {
        failure = isAppError(error) ? error.message : String(error);
      }
    }

    const unanswered = !notAnswered && written.trim() ? await nothingAnswers() : undefined;
    if (unanswered) {
      // The model answered although nothing retrieved answers the question: said after its answer.
      const out = await write(notAboutItNote(unique(searchedFor), unanswered.onSubject), true);
      if (out) yield out;
    }
    // An answer never contradicts its own verdict: a sentence saying the opposite gets a sentence
    // added after the answer, that the evidence is mixed (the model's sentences stay as written).
    const conflict = verdict && written.trim() ? verdictConflict(question, verdict, written) : undefined;
    if (conflict) {
      const out = await write(mixedEvidenceNote(conflict), true);
      if (out) yield out;
    }
    if (stoppedBy === 'time' || written.trim().length === 0) {
      // No usable answer from the model: compose one from the retrieved text, extractively.
      const out = await write(
        await extractiveAnswer(this.tools.fullText, request.tenantId, question, ledger.evidence, {
          timedOut: stoppedBy === 'time',
        }),
        true,
      );
      if (out) yield out;
    }
    if (failure) {
      const out = await write(modelFailedNote(failure), true);
      if (out) yield out;
    }
    if (history.dropped > 0) {
      const out = await write(droppedHistoryNote(history.dropped), true);
      if (out) yield out;
    }
    const rest = (await support.push(filter.push(guard.end()) + filter.end())) + (await support.end());
    if (rest) yield { type: 'content', text: rest };
    // A record whose every citation was dropped is not cited.
    const cited = filter.report.cited.filter(
      (source) => support.kept.has(source) || !support.dropped.has(source),
    );
    const references = referencesSection(cited);
    if (references) yield { type: 'content', text: `\n${references}` };
    yield {
      type: 'done',
      summary: {
        mode: 'tools',
        usage,
        steps,
        ...(stoppedBy ? { stoppedBy } : {}),
        ...(stepMs.length > 0 ? { stepMs } : {}),
        sources: ledger.size,
        citations: { ...filter.report, cited },
        support: support.report,
        ledger,
        ...(verdict ? { verdict } : {}),
        ...(conflict ? { verdictContradicted: conflict.sentence } : {}),
        ...(verdictProbabilities ? { verdictProbabilities } : {}),
        ...(gate.refused > 0 ? { refusedToolCalls: gate.refused } : {}),
      },
    };
  }
}
