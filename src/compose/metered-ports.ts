import type { WorkTally } from '../platform/work-tally.js';
import type { ChatModel, ChatStreamEvent, ChatTurnRequest } from '../ports/chat-model.js';
import type { PdfExtractor } from '../ports/pdf-extractor.js';

/**
 * Port decorators that count the work done through them into a `WorkTally` (decision 0051): the
 * services they are handed to stay unaware of metrics. Failed calls count nothing.
 */

/** Counts each parsed PDF and its pages. */
export function meteredPdfExtractor(extractor: PdfExtractor, tally: WorkTally): PdfExtractor {
  return {
    async extract(bytes, options) {
      const parsed = await extractor.extract(bytes, options);
      tally.pdfDocumentsParsed += 1;
      tally.pdfPagesParsed += parsed.pageCount;
      return parsed;
    },
    renderPage: (bytes, page, options) => extractor.renderPage(bytes, page, options),
    close: () => extractor.close(),
  };
}

/** Counts each finished turn's generated tokens and its duration (request to `finish`). */
export function meteredChatModel(model: ChatModel, tally: WorkTally): ChatModel {
  return {
    id: model.id,
    async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
      const started = performance.now();
      for await (const event of model.stream(request)) {
        if (event.type === 'finish') {
          tally.chatTurns += 1;
          tally.chatTokensGenerated += event.usage.completionTokens;
          tally.chatTurnSeconds += (performance.now() - started) / 1000;
        }
        yield event;
      }
    },
  };
}
