import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ParseCache } from '../../src/services/documents/parse-cache.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, uploadPdf } from '../helpers/test-app.js';

/**
 * Issue 13, "one tenant stalls the others": the PDF worker pool's queue is first come first served,
 * so a tenant uploading two large PDFs at once had both parsed before another tenant's two-page
 * upload was even started. Now tenants take turns at the parse threads: with one thread, the other
 * tenant's upload is parsed as soon as the first large one is done.
 */
// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
const thesis = await gaugingReportPdf(400); // 401 pages, about a second and a half to parse
const shannon = await gaugingReportPdf(200); // 201 pages
const editorial = await editorialPdf(); // 2 pages
const warmUp = await figurePaperPdf(); // 2 pages with figures

describe('tenants take turns at the PDF parse threads (real app, generated PDFs, one parse thread)', () => {
  let t: TestApp;
  let parses: ParseCache | undefined;

  beforeAll(async () => {
    // Only watches: the real ParseCache and extractor do the work; this finds the app's cache.
    const get = ParseCache.prototype.get;
    vi.spyOn(ParseCache.prototype, 'get').mockImplementation(function (this: ParseCache, ...args) {
      parses = this;
      return get.apply(this, args);
    });
    t = await createTestApp({
      ALEXANDRIA_PDF_WORKER_THREADS: '1',
      ALEXANDRIA_PDF_TIMEOUT_MS: '300000',
      ALEXANDRIA_EMBED_ON_ADD: 'false',
    });
  }, 120_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await t.close();
  });

  const upload = (key: string, name: string, bytes: Uint8Array) => uploadPdf(t, key, name, bytes);

  it('answers another tenant’s small upload before the second of two large uploads sent just before it', async () => {
    const otherKey = await t.newKey('tenant-b');
    // A warm pool first: a cold piscina pool does not start queued tasks in order, a warm one does
    // (first come, first served), which is what made tenant B wait for both large PDFs.
    expect((await upload(t.key, 'warm-up.pdf', warmUp)).statusCode).toBe(200);
    const finished: string[] = [];
    const track = (name: string, reply: ReturnType<typeof upload>) =>
      reply.then((response) => {
        finished.push(name);
        return response;
      });
    const big = [
      track('thesis', upload(t.key, 'thesis.pdf', thesis)),
      track('shannon', upload(t.key, 'shannon.pdf', shannon)),
    ];
    // Both large PDFs have reached the parser: one parsing, one waiting in tenant A's lane.
    await vi.waitFor(() => expect(parses?.parsing).toEqual({ waiting: 1, lanes: 1, running: 1 }), {
      timeout: 60_000,
      interval: 10,
    });
    const small = track('editorial', upload(otherKey, 'editorial.pdf', editorial));

    const [editorialReply, ...bigReplies] = await Promise.all([small, ...big]);
    for (const reply of [editorialReply, ...bigReplies]) expect(reply?.statusCode, reply?.body).toBe(200);
    expect(editorialReply?.json()[0].hint).toMatch(/Added to project "Reading"/);
    // Order of completion: one large PDF, then the other tenant's, then the second large one.
    expect(finished).toHaveLength(3);
    expect(finished[1]).toBe('editorial');
    expect(finished.slice(0, 3).sort()).toEqual(['editorial', 'shannon', 'thesis']);
  }, 600_000);
});
