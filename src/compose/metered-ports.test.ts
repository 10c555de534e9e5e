import { describe, expect, it } from 'vitest';
import { FakePdfExtractor } from '../../test/fakes/fake-pdf-extractor.js';
import { WorkTally } from '../platform/work-tally.js';
import type { ChatModel, ChatStreamEvent } from '../ports/chat-model.js';
import { meteredChatModel, meteredPdfExtractor } from './metered-ports.js';

const pdf = (body: string) => new TextEncoder().encode(`%PDF-1.4\n${body}`);

describe('meteredPdfExtractor', () => {
  it('counts each parsed PDF and its pages, and nothing for a PDF that fails', async () => {
    const tally = new WorkTally();
    const extractor = meteredPdfExtractor(new FakePdfExtractor(), tally);
    const scanned = await extractor.extract(pdf('!scan'));
    expect(scanned.pageCount).toBe(2);
    await extractor.extract(pdf('!scan'));
    await expect(extractor.extract(pdf('!broken'))).rejects.toMatchObject({ code: 'unprocessable' });
    expect(tally).toMatchObject({ pdfDocumentsParsed: 2, pdfPagesParsed: 4 });
  });
});

describe('meteredChatModel', () => {
  it('passes every event through and counts finished turns, their tokens and their time', async () => {
    const events: ChatStreamEvent[] = [
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' there' },
      {
        type: 'finish',
        reason: 'stop',
        usage: { promptTokens: 40, completionTokens: 12 },
        usageEstimated: false,
      },
    ];
    const model: ChatModel = {
      id: 'test:model',
      async *stream() {
        for (const event of events) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield event;
        }
      },
    };
    const tally = new WorkTally();
    const metered = meteredChatModel(model, tally);
    expect(metered.id).toBe('test:model');
    const seen: ChatStreamEvent[] = [];
    for await (const event of metered.stream({ messages: [] })) seen.push(event);
    for await (const event of metered.stream({ messages: [] })) seen.push(event);
    expect(seen).toEqual([...events, ...events]);
    expect(tally.chatTurns).toBe(2);
    expect(tally.chatTokensGenerated).toBe(24);
    expect(tally.chatTurnSeconds).toBeGreaterThan(0.02);
  });

  it('counts nothing for a turn that fails before it finishes', async () => {
    const tally = new WorkTally();
    const metered = meteredChatModel(
      {
        id: 'test:failing',
        async *stream() {
          yield { type: 'text', text: 'partial' };
          throw new Error('upstream went away');
        },
      },
      tally,
    );
    await expect(async () => {
      for await (const _event of metered.stream({ messages: [] })) {
        // drained
      }
    }).rejects.toThrow('upstream went away');
    expect(tally).toMatchObject({ chatTurns: 0, chatTokensGenerated: 0, chatTurnSeconds: 0 });
  });
});
