// Replies restricted to a set of choices: their probabilities from one evaluation, or a grammar.
import type { ChatHistoryItem, LlamaChat, LlamaModel } from 'node-llama-cpp';

/**
 * Each choice's probability as the model's next reply after `history`, from one evaluation of the
 * context (the sequence keeps what it already holds): the probability of a choice's first token,
 * with its capitalised form added ("Yes" and "yes"), normalised over the choices. Undefined when two
 * choices start with the same token or the context does not fit (the caller then samples under a
 * grammar instead).
 */
export async function choiceProbabilities(
  model: LlamaModel,
  chat: LlamaChat,
  history: ChatHistoryItem[],
  choices: string[],
): Promise<Record<string, number> | undefined> {
  const firstTokens = choices.map((choice) => {
    const forms = new Set([
      choice,
      `${choice.charAt(0).toUpperCase()}${choice.slice(1)}`,
      choice.toLowerCase(),
    ]);
    return new Set([...forms].flatMap((form) => model.tokenize(form, false, 'trimLeadingSpace').slice(0, 1)));
  });
  const seen = new Set<number>();
  for (const tokens of firstTokens) {
    for (const token of tokens) {
      if (seen.has(token)) return undefined;
      seen.add(token);
    }
    if (tokens.size === 0) return undefined;
  }
  const { contextText } = chat.chatWrapper.generateContextState({ chatHistory: history });
  const tokens = contextText.tokenize(model.tokenizer);
  const sequence = chat.sequence;
  if (tokens.length + 1 >= sequence.context.contextSize) return undefined;
  // Keep what the sequence already holds of this context; at least the last token is evaluated
  // again, for the probabilities that follow it.
  const keep = Math.min(sequence.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
  if (keep < sequence.nextTokenIndex)
    await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  const rest = tokens.slice(keep);
  const output = await sequence.controlledEvaluate(
    rest.map((token, index) =>
      index === rest.length - 1 ? [token, { generateNext: { probabilities: true } }] : token,
    ),
  );
  const next = output.at(-1)?.next.probabilities;
  if (!next) return undefined;
  const raw = firstTokens.map((set) => [...set].reduce((sum, token) => sum + (next.get(token) ?? 0), 0));
  const total = raw.reduce((sum, value) => sum + value, 0);
  if (!(total > 0)) return undefined;
  return Object.fromEntries(choices.map((choice, index) => [choice, (raw[index] ?? 0) / total]));
}

/** A GBNF grammar whose only sentences are the given words. */
export function choiceGrammarText(choices: string[]): string {
  return `root ::= ${choices.map((choice) => JSON.stringify(choice)).join(' | ')}`;
}
