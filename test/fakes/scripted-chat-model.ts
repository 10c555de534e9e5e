// A chat model that replays scripted turns, and the stream events such turns are made of.
import type { ChatModel, ChatStreamEvent, ChatTurnRequest } from '../../src/ports/chat-model.js';

/** A chat model that replays one scripted turn per call and records the requests. */
export class ScriptedChatModel implements ChatModel {
  readonly id = 'scripted';
  readonly requests: ChatTurnRequest[] = [];
  constructor(private readonly turns: Array<(request: ChatTurnRequest) => ChatStreamEvent[]>) {}

  async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
    this.requests.push(request);
    const turn = this.turns[this.requests.length - 1];
    if (!turn) throw new Error(`no scripted turn ${this.requests.length}`);
    for (const event of turn(request)) yield event;
  }
}

/** The end of a turn, with a small fixed usage. */
export const finishEvent = (reason: 'stop' | 'tool_calls' | 'length' = 'stop'): ChatStreamEvent => ({
  type: 'finish',
  reason,
  usage: { promptTokens: 10, completionTokens: 2 },
  usageEstimated: false,
});

/** Text the model writes. */
export const textEvent = (value: string): ChatStreamEvent => ({ type: 'text', text: value });
