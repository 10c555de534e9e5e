// How a tool-agent run ends without a usable answer from the model, and the notes added after one.
import { isAppError } from '../domain/errors.js';
import type { TokenUsage } from '../ports/chat-model.js';
import type { FullTextReader } from '../services/services.js';
import type { AgentEvent, ResearchAgent, ResearchRequest } from './agent-types.js';
import { anchorSentences, selectSentences, sentenceLine } from './compose.js';
import type { Evidence } from './source-ledger.js';

/**
 * The model failed before writing anything: the fallback agent (the extractive pipeline) answers,
 * after a progress line naming the failure; its summary counts the model's steps and tokens too.
 */
export async function* fallBack(
  fallback: ResearchAgent,
  request: ResearchRequest,
  error: unknown,
  steps: number,
  usage: TokenUsage,
): AsyncIterable<AgentEvent> {
  const reason = isAppError(error) ? error.message : String(error);
  yield { type: 'progress', text: `The chat model is unavailable (${reason}); answering extractively.\n` };
  for await (const event of fallback.run(request)) {
    if (event.type !== 'done') {
      yield event;
      continue;
    }
    yield {
      type: 'done',
      summary: {
        ...event.summary,
        steps,
        usage: {
          promptTokens: usage.promptTokens + event.summary.usage.promptTokens,
          completionTokens: usage.completionTokens + event.summary.usage.completionTokens,
        },
        fallback: reason,
      },
    };
  }
}

/**
 * An answer composed from the retrieved text when the model gave none (or the time ran out): the
 * passages that best match the question, quoted verbatim with their citations.
 */
export async function extractiveAnswer(
  fullText: FullTextReader | undefined,
  tenantId: string,
  question: string,
  evidence: Evidence[],
  options: { timedOut: boolean },
): Promise<string> {
  const selected = await anchorSentences(
    fullText,
    tenantId,
    selectSentences(question, evidence, { max: 6, perSource: 2 }),
  );
  const note = options.timedOut
    ? 'The time budget ran out; these are the most relevant retrieved passages, quoted verbatim.'
    : 'The model gave no answer; these are the most relevant retrieved passages, quoted verbatim.';
  return selected.length > 0
    ? `\n\n${note}\n\n${selected.map(sentenceLine).join('')}`
    : `\n\n${note.split(';')[0]}; nothing relevant was retrieved.\n`;
}

/** Said after an answer when nothing retrieved is about the question: what was searched for. */
export function notAboutItNote(searchedFor: string[], onSubject = false): string {
  const found = onSubject
    ? 'and no record found answers the question (some are on its subject); the text above does not answer it'
    : "and no record found is about the question's subject; the answer above is not from them";
  return `\n\n*(The papers found do not answer this: searched for ${searchedFor.join('; ')}, ${found}.)*\n`;
}

/** Said after an answer the chat model's failure cut short (markdown emphasis taken out of the reason). */
export function modelFailedNote(failure: string): string {
  return `\n\n*(The answer is incomplete: the chat model failed: ${failure.replace(/[*_[\]]/g, '')})*\n`;
}

/** Said when earlier messages of the conversation did not fit the model's context. */
export function droppedHistoryNote(dropped: number): string {
  return `\n\n*(${dropped} earlier message(s) of this conversation did not fit the model's context and were left out; the model saw only the questions asked in them.)*\n`;
}
