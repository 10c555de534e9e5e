// Rules of the tool agent's loop: repeated and pointless calls, the time marks, the answer's length.
import type { AgentBudgets } from './agent-types.js';

/** The tools that read a record's full text. */
export const fullTextTools = new Set(['ask_pdf', 'read_full_text']);

/** The result of a full-text call when no record found has a full text (the compact tool set). */
export const noFullTextNote =
  'None of the records found has a full text here: only their abstracts, shown above. Answer the question now from them.';

/** Arguments as a stable text (keys sorted), to recognise a repeated call. */
export function canonicalArguments(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const record = parsed as Record<string, unknown>;
      return JSON.stringify(
        Object.fromEntries(
          Object.keys(record)
            .sort()
            .map((key) => [key, record[key]]),
        ),
      );
    }
  } catch {}
  return text.trim();
}

/**
 * Words an answer of `tokens` tokens is told it may use: ~1.3 tokens a word, plus markdown and the
 * citation links the model writes (the attached ones are not its tokens).
 */
export function answerWords(tokens: number): number {
  return Math.max(20, Math.floor(tokens / 25) * 10);
}

/** Whether `text` stops inside a sentence (no closing punctuation, quote or bracket at its end). */
export function cutMidSentence(text: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed.length > 0 && !/[.!?…:][\s"'”’*_)\]]*$/.test(trimmed);
}

/**
 * Whether a tool step starting `elapsedMs` into the run must be the answer instead: it starts past
 * the answer-after mark, or the run's longest step so far (`stepMs`), taken again, would end past the
 * answer-by point. The forecast only holds back a step the run has already shown it can take that
 * long; before any step it has nothing to go on.
 */
export function pastAnswerMark(
  elapsedMs: number,
  stepMs: readonly number[],
  budgets: Pick<AgentBudgets, 'answerAfterMs' | 'answerByMs'>,
): boolean {
  if (budgets.answerAfterMs !== undefined && elapsedMs >= budgets.answerAfterMs) return true;
  if (budgets.answerByMs === undefined || stepMs.length === 0) return false;
  return elapsedMs + Math.max(...stepMs) >= budgets.answerByMs;
}

/** The keywords or query of a search call's arguments, as the model wrote them. */
export function searchTerms(args: string): string {
  try {
    const parsed = JSON.parse(args) as { keywords?: unknown; query?: unknown };
    const terms = parsed.keywords ?? parsed.query;
    if (typeof terms === 'string') return terms.replace(/\s+/g, ' ').slice(0, 200);
  } catch {
    // Not JSON: the arguments as written.
  }
  return args.replace(/\s+/g, ' ').slice(0, 200);
}

/** The items without repeats, in their first order. */
export function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
