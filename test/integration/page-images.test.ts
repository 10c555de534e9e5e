import { decode } from 'fast-png';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/domain/errors.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import { pageImageBlobKey } from '../../src/services/documents/page-images.js';
import { editorialPdf, figurePaperPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts): an A4 and a US Letter one.
const a4 = await editorialPdf();
const letter2 = await figurePaperPdf();
const pngSignature = [137, 80, 78, 71, 13, 10, 26, 10];

/** Share of dark pixels (below 160 of 255: small anti-aliased text is grey); text is a few percent of a page. */
function darkShare(png: Uint8Array): { width: number; height: number; dark: number } {
  const image = decode(png);
  const channels = image.channels;
  let dark = 0;
  for (let at = 0; at < image.data.length; at += channels) {
    const sum = (image.data[at] as number) + (image.data[at + 1] as number) + (image.data[at + 2] as number);
    if (sum / 3 < 160) dark++;
  }
  return { width: image.width, height: image.height, dark: dark / (image.width * image.height) };
}

describe('PdfExtractor.renderPage (PDFium in the worker pool)', () => {
  const extractor = new WorkerPdfExtractor({
    threads: 1,
    timeoutMs: 60_000,
    memoryMb: 512,
    maxPages: 2000,
    maxBytes: 100 * 1024 * 1024,
    figurePixels: 40_000_000,
  });
  afterAll(() => extractor.close());

  it('draws a page as a PNG in the page’s proportions, with ink on it', async () => {
    // The editorial is A4 (595.28 × 841.89 pt), the paper on deltas US Letter (612 × 792).
    const portrait = await extractor.renderPage(a4, 1, { width: 1000 });
    expect([...portrait.png.subarray(0, 8)]).toEqual(pngSignature);
    expect(portrait).toMatchObject({ width: 1000, height: Math.round((1000 * 841.89) / 595.28) });
    expect(portrait.pageCount).toBe(2);
    const decoded = darkShare(portrait.png);
    expect([decoded.width, decoded.height]).toEqual([portrait.width, portrait.height]);
    expect(decoded.dark).toBeGreaterThan(0.01);
    expect(decoded.dark).toBeLessThan(0.3);

    const letter = await extractor.renderPage(letter2, 2, { width: 400 });
    expect(letter).toMatchObject({ width: 400, height: Math.round((400 * 792) / 612), pageCount: 3 });
    expect(darkShare(letter.png).dark).toBeGreaterThan(0.01);
  });

  it('names `page` for a page past the last one and keeps working', async () => {
    const bytes = letter2;
    const error = (await extractor
      .renderPage(bytes, 4, { width: 500 })
      .catch((caught) => caught)) as AppError;
    expect(error).toMatchObject({ code: 'invalid_request', param: 'page' });
    expect(error.message).toMatch(/has 3 pages/);
    const garbage = (await extractor
      .renderPage(new Uint8Array(Buffer.from('%PDF-1.7\nnot really a pdf')), 1, { width: 500 })
      .catch((caught) => caught)) as AppError;
    expect(garbage.code).toBe('unprocessable');
    expect((await extractor.renderPage(bytes, 1, { width: 300 })).width).toBe(300);
  });

  it('stops a drawing past the parse deadline with a timeout (504)', async () => {
    const hurried = new WorkerPdfExtractor({
      threads: 1,
      timeoutMs: 5,
      memoryMb: 512,
      maxPages: 2000,
      maxBytes: 100 * 1024 * 1024,
      figurePixels: 40_000_000,
    });
    try {
      const bytes = letter2;
      const error = (await hurried
        .renderPage(bytes, 1, { width: 2000 })
        .catch((caught) => caught)) as AppError;
      expect(error.code).toBe('timeout');
      expect(error.message).toMatch(/Drawing the page took longer than 5 ms/);
    } finally {
      await hurried.close();
    }
  });
});

describe('GET /api/page_image', () => {
  let t: TestApp;
  let pdfId: string;
  const get = (url: string, key = t.key) => t.app.inject({ method: 'GET', url, headers: withKey(key) });

  beforeAll(async () => {
    t = await createTestApp({ ALEXANDRIA_EMBED_ON_ADD: 'false' });
    const added = await uploadPdf(t, t.key, 'deltas.pdf', letter2);
    expect(added.statusCode).toBe(200);
    pdfId = added.json()[0].pdf_id;
    expect(pdfId).toMatch(/^PROJ:/);
  });
  afterAll(() => t?.close());

  it('returns the page as a PNG at the stored width the asked one rounds up to, drawn once and then read from the blob store', async () => {
    const url = `/api/page_image?pdf_id=${encodeURIComponent(pdfId)}&page=2&width=600`;
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('image/png');
    expect([...first.rawPayload.subarray(0, 8)]).toEqual(pngSignature);
    // 600 is not a stored width: the page is drawn at the next one up, and the headers say so.
    const image = darkShare(first.rawPayload);
    expect(image).toMatchObject({ width: 1000, height: Math.round((1000 * 792) / 612) });
    expect(first.headers['x-image-width']).toBe('1000');
    expect(first.headers['x-image-height']).toBe(String(image.height));
    expect(image.dark).toBeGreaterThan(0.01);

    // The drawing is in the blob store under (sha256, page, stored width); what is stored there is
    // what a second request gets (at any width that rounds to it), without drawing again.
    const document = await t.container.stores.projects.getDocument('tenant-a', pdfId.split('/')[1] as string);
    const sha256 = document?.sha256;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const key = pageImageBlobKey(sha256 as string, 2, 1000);
    expect(Buffer.from((await t.container.stores.blobs.get(key)) ?? [])).toEqual(first.rawPayload);
    const marker = new Uint8Array([...pngSignature, 1, 2, 3]);
    await t.container.stores.blobs.put(key, marker);
    const second = await get(`/api/page_image?pdf_id=${encodeURIComponent(pdfId)}&page=2&width=1000`);
    expect(second.statusCode).toBe(200);
    expect([...second.rawPayload]).toEqual([...marker]);

    // Another stored width is another drawing; the default width is 1000 and the default page 1.
    const wide = await get(`/api/page_image?pdf_id=${encodeURIComponent(pdfId)}`);
    expect(wide.statusCode).toBe(200);
    expect(darkShare(wide.rawPayload).width).toBe(1000);
    const narrow = await get(`/api/page_image?pdf_id=${encodeURIComponent(pdfId)}&width=200`);
    expect(darkShare(narrow.rawPayload).width).toBe(250);
  });

  it('stores at most five drawings of a page however many widths are asked (101 widths cached 101 images)', async () => {
    const document = await t.container.stores.projects.getDocument('tenant-a', pdfId.split('/')[1] as string);
    const sha256 = document?.sha256 as string;
    const widths = Array.from({ length: 101 }, (_, index) => 200 + 18 * index);
    expect(widths.at(-1)).toBe(2000);
    const served = new Set<string>();
    for (const width of widths) {
      const response = await get(`/api/page_image?pdf_id=${encodeURIComponent(pdfId)}&page=3&width=${width}`);
      expect(response.statusCode).toBe(200);
      const stored = Number(response.headers['x-image-width']);
      // Never smaller than asked: rounded up.
      expect(stored).toBeGreaterThanOrEqual(width);
      served.add(String(stored));
    }
    expect([...served].sort((a, b) => Number(a) - Number(b))).toEqual(['250', '500', '1000', '1500', '2000']);
    const drawings = [];
    for await (const blob of t.container.stores.blobs.list(`pages/${sha256.slice(0, 2)}/${sha256}`)) {
      if (blob.key.includes('/p3-')) drawings.push(blob.key.split('/').at(-1));
    }
    expect(drawings.sort()).toEqual([
      'p3-w1000.png',
      'p3-w1500.png',
      'p3-w2000.png',
      'p3-w250.png',
      'p3-w500.png',
    ]);
  });

  it('answers parameter mistakes with 400 naming the parameter, and unknown PDFs with 404 pdf_id', async () => {
    const ref = encodeURIComponent(pdfId);
    const cases: Array<[string, number, string]> = [
      [`/api/page_image?pdf_id=${ref}&page=4`, 400, 'page'],
      [`/api/page_image?pdf_id=${ref}&page=0`, 400, 'page'],
      [`/api/page_image?pdf_id=${ref}&page=two`, 400, 'page'],
      [`/api/page_image?pdf_id=${ref}&page=1&width=100`, 400, 'width'],
      [`/api/page_image?pdf_id=${ref}&page=1&width=2001`, 400, 'width'],
      ['/api/page_image?page=1', 400, 'pdf_id'],
      ['/api/page_image?pdf_id=PROJ:reading/doc_000000000000000000000000&page=1', 404, 'pdf_id'],
      ['/api/page_image?pdf_id=PROJ:nope/x&page=1', 404, 'pdf_id'],
      ['/api/page_image?pdf_id=PROJ:..%2Fetc/passwd&page=1', 400, 'pdf_id'],
      // A url that was never stored by this tenant: nothing is downloaded for a picture.
      [
        `/api/page_image?pdf_url=${encodeURIComponent('https://example.org/paper.pdf')}&page=1`,
        404,
        'pdf_url',
      ],
    ];
    for (const [url, status, param] of cases) {
      const response = await get(url);
      expect({ url, status: response.statusCode }).toEqual({ url, status });
      expect(response.json().error.param, url).toBe(param);
    }
    const page4 = await get(`/api/page_image?pdf_id=${ref}&page=4`);
    expect(page4.json().error.message).toMatch(/has 3 pages/);
  });

  it('draws no page of another tenant’s PDF', async () => {
    const other = await t.newKey('tenant-b');
    const response = await get(`/api/page_image?pdf_id=${encodeURIComponent(pdfId)}&page=1`, other);
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ code: 'not_found', param: 'pdf_id' });
  });
});
