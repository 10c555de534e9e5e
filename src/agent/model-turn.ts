import type { ChatModel, ChatTurnRequest, TokenUsage } from '../ports/chat-model.js';

/** The whole text of one model turn (tool calls ignored), its token counts added to `usage`. */
export async function turnText(
  model: ChatModel,
  request: ChatTurnRequest,
  usage: TokenUsage,
): Promise<string> {
  let text = '';
  for await (const event of model.stream(request)) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'finish') {
      usage.promptTokens += event.usage.promptTokens;
      usage.completionTokens += event.usage.completionTokens;
    }
  }
  return text;
}
