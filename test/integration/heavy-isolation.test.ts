import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerReferenceReader } from '../../src/bibliography/worker-reference-reader.js';
import type { DocumentTextReader } from '../../src/services/references/reference-service.js';
import { referencesPdf } from '../helpers/reference-pdf.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Issue: uploading a PDF with 50,000 references stalled the other tenant's searches for up to
 * 5.8 s (decision 0042). The event loop was held by the document's passages and BM25 index and by
 * reading its 10,000-entry reference list. A probe that asks the event loop for a turn after every
 * turn measures the longest time it waited. Measured under vitest on the shared 2-core machine:
 * filing and asking 10,065 ms before the fix and 288 ms after; listing the references 4,038 ms
 * before and 337 ms after (what is left is garbage collection of a 7 MB answer and machine
 * contention). The bound is ten times the figure after; the count-based test in between (the list
 * is read on the reading thread) is the sharper check for the second.
 */
const longestAllowedStallMs = 3500;

/** Records the longest wait between two event-loop turns until stopped. */
function stallProbe() {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const turn = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop() {
      running = false;
      // The turn in progress counts too.
      return Math.max(longest, performance.now() - last);
    },
  };
}

let t: TestApp;
let pdfId: string;
beforeAll(async () => {
  // Embedding on add would keep the ONNX workers busy for minutes; the question embeds a few passages.
  t = await createTestApp({ ALEXANDRIA_EMBED_ON_ADD: 'false', ALEXANDRIA_HEAVY_TIMEOUT_MS: '600000' });
}, 60_000);
afterAll(() => t.close());

describe('a tenant’s heaviest request does not stall the event loop (decision 0042)', () => {
  it('files a 50,000-reference PDF and asks it a question in event-loop turns of under a few seconds', async () => {
    const bytes = referencesPdf(50_000);
    const probe = stallProbe();
    const added = await uploadPdf(t, t.key, 'fifty-thousand.pdf', bytes);
    expect(added.statusCode).toBe(200);
    pdfId = added.json()[0].pdf_id;
    const question = await t.app.inject({
      method: 'GET',
      url: `/api/question?pdf_id=${encodeURIComponent(pdfId)}&question=${encodeURIComponent('Which prior work on dialogue summarization is cited?')}`,
      headers: withKey(t.key),
    });
    const longest = probe.stop();
    if (process.env.SHOW_STALLS)
      process.stdout.write(`longest stall (add + question): ${longest.toFixed(0)} ms\n`);
    expect(question.statusCode).toBe(200);
    expect(longest).toBeLessThan(longestAllowedStallMs);
  }, 300_000);

  it('reads its 10,000-entry reference list on the reading thread, not the event loop', async () => {
    const reader = new WorkerReferenceReader();
    try {
      const documents = t.container.services.fullText as unknown as DocumentTextReader;
      const { text } = await documents.openText('tenant-a', pdfId);
      const reading = await reader.read(text.chunks);
      expect(reader.offThread).toBe(1);
      expect(reading.list?.entries.length).toBeGreaterThanOrEqual(9_999);
      expect(reading.contexts.length).toBeGreaterThan(0);
      // A paper's list stays in the caller's thread (a thread hop would cost more than the reading).
      await reader.read(text.chunks.slice(0, 3));
      expect(reader.offThread).toBe(1);
    } finally {
      await reader.close();
    }
  }, 120_000);

  it('lists and links those 10,000 references in event-loop turns of under a few seconds', async () => {
    const probe = stallProbe();
    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/references?pdf_id=${encodeURIComponent(pdfId)}`,
      headers: withKey(t.key),
    });
    const longest = probe.stop();
    if (process.env.SHOW_STALLS)
      process.stdout.write(`longest stall (references): ${longest.toFixed(0)} ms\n`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().references.length).toBeGreaterThanOrEqual(9_999);
    expect(longest).toBeLessThan(longestAllowedStallMs);
  }, 300_000);
});
