// The tool agent's decision step before the answer: a yes/no question's verdict.
import type { ChatModel, ChatModelMessage, ChatTurnRequest, TokenUsage } from '../ports/chat-model.js';
import type { AgentBudgets } from './agent-types.js';
import { turnReply, turnText } from './model-turn.js';
import type { SourceLedger } from './source-ledger.js';
import {
  chooseVerdict,
  conclusionPrompt,
  conclusionTokens,
  parseVerdict,
  type Verdict,
  verdictChoices,
  verdictClassificationMessages,
  verdictFindings,
  verdictPrompt,
} from './verdict.js';

/**
 * The verdict step, after the search and before the answer: two model calls, shown the findings
 * of the best-matching records — a one-sentence conclusion in free text, then yes, no or maybe
 * (`choices`: a grammar on the local model). On success the exchange joins `messages`, so the
 * answer turn extends it. Undefined when the reply names no verdict (a remote model may ignore
 * the constraint): the answer is then written without one.
 */
export async function runVerdictStep(
  model: ChatModel,
  messages: ChatModelMessage[],
  question: string,
  ledger: SourceLedger,
  budgets: AgentBudgets,
  signal: AbortSignal,
  usage: TokenUsage,
): Promise<{ verdict: Verdict; probabilities?: Record<string, number> } | undefined> {
  const findings = verdictFindings(question, ledger.evidence);
  const call = async (request: ChatTurnRequest) => (await turnText(model, request, usage)).trim();
  // First what the findings show, in the model's words; then the verdict, given that.
  const weigh: ChatModelMessage[] = [{ role: 'system', content: conclusionPrompt(question, findings) }];
  const conclusion = await call({
    messages: [...messages, ...weigh],
    maxTokens: Math.min(conclusionTokens, budgets.maxTokensPerCall),
    signal,
  });
  if (conclusion) weigh.push({ role: 'assistant', content: conclusion });
  weigh.push({ role: 'system', content: verdictPrompt(question) });
  // The word itself from a classification turn of its own, with worked examples: inside the
  // conversation the 1.5B model said "yes" after its own "no difference" conclusion.
  const reply = await turnReply(
    model,
    {
      messages: verdictClassificationMessages(question, findings),
      choices: [...verdictChoices],
      maxTokens: Math.min(8, budgets.maxTokensPerCall),
      isolated: true,
      signal,
    },
    usage,
  );
  // With the model's probabilities (the local adapter), the most probable word; else its word.
  const verdict = chooseVerdict(reply.choiceProbabilities) ?? parseVerdict(reply.text.trim());
  if (verdict) messages.push(...weigh);
  return verdict
    ? { verdict, ...(reply.choiceProbabilities ? { probabilities: reply.choiceProbabilities } : {}) }
    : undefined;
}
