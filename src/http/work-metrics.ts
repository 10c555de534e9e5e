import { Counter, type Registry } from 'prom-client';
import type { WorkTally } from '../platform/work-tally.js';

/** The counters of `WorkTally`, each a `rate()`-able throughput (decision 0051). */
const counters: Array<{ name: string; help: string; key: keyof WorkTally }> = [
  {
    name: 'alexandria_pdf_documents_parsed_total',
    help: 'PDFs this process parsed (cached parses not counted).',
    key: 'pdfDocumentsParsed',
  },
  {
    name: 'alexandria_pdf_pages_parsed_total',
    help: 'Pages of the PDFs this process parsed; rate() is the parse throughput.',
    key: 'pdfPagesParsed',
  },
  {
    name: 'alexandria_record_vectors_embedded_total',
    help: 'Index records this process gave a vector (the background record-vector walk); rate() is its embedding throughput.',
    key: 'recordVectorsEmbedded',
  },
  {
    name: 'alexandria_chat_tokens_generated_total',
    help: 'Tokens the chat model generated for this process (completion tokens; estimated where the model reports none).',
    key: 'chatTokensGenerated',
  },
  {
    name: 'alexandria_chat_turn_seconds_total',
    help: 'Seconds this process spent in chat-model turns; rate(tokens) / rate(seconds) is tokens per second.',
    key: 'chatTurnSeconds',
  },
  { name: 'alexandria_chat_turns_total', help: 'Chat-model turns this process finished.', key: 'chatTurns' },
];

/**
 * Counters of the work this process did, read from its tally at scrape time: per process (a
 * deployment's throughput is the sum over its replicas and workers — scrape the workers too).
 */
export function installWorkMetrics(registry: Registry, tally: WorkTally): void {
  for (const { name, help, key } of counters) {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const delta = tally[key] - reported;
        if (delta > 0) this.inc(delta);
        reported = tally[key];
      },
    });
  }
}
