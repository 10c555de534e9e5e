import type { ChatModel, ChatTurnRequest, TokenUsage } from '../ports/chat-model.js';

/** What one model turn wrote, and the choices' probabilities when it was asked to choose and the model said. */
export interface TurnReply {
  text: string;
  choiceProbabilities?: Record<string, number>;
}

/** One model turn's whole reply (tool calls ignored), its token counts added to `usage`. */
export async function turnReply(
  model: ChatModel,
  request: ChatTurnRequest,
  usage: TokenUsage,
): Promise<TurnReply> {
  let text = '';
  let choiceProbabilities: Record<string, number> | undefined;
  for await (const event of model.stream(request)) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'finish') {
      usage.promptTokens += event.usage.promptTokens;
      usage.completionTokens += event.usage.completionTokens;
      choiceProbabilities = event.choiceProbabilities;
    }
  }
  return choiceProbabilities ? { text, choiceProbabilities } : { text };
}

/** The whole text of one model turn (tool calls ignored), its token counts added to `usage`. */
export async function turnText(
  model: ChatModel,
  request: ChatTurnRequest,
  usage: TokenUsage,
): Promise<string> {
  return (await turnReply(model, request, usage)).text;
}
