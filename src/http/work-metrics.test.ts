import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { WorkTally } from '../platform/work-tally.js';
import { installWorkMetrics } from './work-metrics.js';

const value = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)?.get())?.values[0]?.value;

describe('work metrics', () => {
  it('shows the tally as counters, as of each scrape, from 0', async () => {
    const registry = new Registry();
    const tally = new WorkTally();
    installWorkMetrics(registry, tally);
    expect(await value(registry, 'alexandria_pdf_pages_parsed_total')).toBe(0);
    tally.pdfPagesParsed += 12;
    tally.recordVectorsEmbedded += 64;
    tally.chatTokensGenerated += 300;
    tally.chatTurnSeconds += 7.5;
    expect(await value(registry, 'alexandria_pdf_pages_parsed_total')).toBe(12);
    tally.pdfPagesParsed += 3;
    const page = await registry.metrics();
    expect(page).toContain('alexandria_pdf_pages_parsed_total 15');
    expect(page).toContain('alexandria_record_vectors_embedded_total 64');
    expect(page).toContain('alexandria_chat_tokens_generated_total 300');
    expect(page).toContain('alexandria_chat_turn_seconds_total 7.5');
    expect(page).toContain('# TYPE alexandria_chat_turns_total counter');
  });
});
