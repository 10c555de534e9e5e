import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findCitationContexts } from '../src/bibliography/citation-markers.js';
import { parseReferenceList } from '../src/bibliography/references.js';
import { defaultParseOptions, parseDocument } from '../src/pdf/parse-document.js';
import { WorkerPdfExtractor } from '../src/pdf/worker-pdf-extractor.js';
import { percentile } from '../src/platform/percentile.js';
import { type BenchReport, ratioLine } from './lib/report.js';

const run = promisify(execFile);
const folder = join(import.meta.dirname, '..', '..', 'shared', 'data', 'pdfs');
const quickSet = ['citesee_2302.07302v1.pdf', 'litqa_nar_gkae223.pdf', 'pasa_2501.10120.pdf'];

/**
 * The citation graph's costs on the shared PDFs (issue 17): reading the reference list and its
 * in-text citations beside the parse they add to (goal ≤ 20% of it), and drawing a page for the
 * reader's highlight (`/api/page_image`, PDFium in a worker) beside poppler's `pdftoppm` drawing the
 * same pages at the same width, in the same run.
 */
export async function referencesBench(options: { quick: boolean }): Promise<BenchReport> {
  const names = readdirSync(folder)
    .filter((name) => name.endsWith('.pdf'))
    .filter((name) => !options.quick || quickSet.includes(name))
    .sort();
  let parseMs = 0;
  let referencesMs = 0;
  let entries = 0;
  let contexts = 0;
  const pagesToDraw: Array<{ name: string; bytes: Uint8Array; page: number }> = [];
  for (const name of names) {
    const bytes = new Uint8Array(readFileSync(join(folder, name)));
    let started = performance.now();
    const parsed = await parseDocument(bytes.slice(), { ...defaultParseOptions, images: false });
    parseMs += performance.now() - started;
    started = performance.now();
    const list = parseReferenceList(parsed.chunks);
    if (list) contexts += findCitationContexts(parsed.chunks, list).length;
    referencesMs += performance.now() - started;
    entries += list?.entries.length ?? 0;
    // Page 1 and a middle page of each document with text.
    if (parsed.hasTextLayer) {
      pagesToDraw.push({ name, bytes, page: 1 });
      if (parsed.pageCount > 2) pagesToDraw.push({ name, bytes, page: Math.ceil(parsed.pageCount / 2) });
    }
  }

  const width = 1000;
  const extractor = new WorkerPdfExtractor({
    threads: 1,
    timeoutMs: 120_000,
    memoryMb: 1024,
    maxPages: 5000,
    maxBytes: 200 * 1024 * 1024,
    figurePixels: 40_000_000,
  });
  const ours: number[] = [];
  const poppler: number[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'alexandria-bench-pages-'));
  try {
    // One warm-up drawing (thread start, PDFium compile), then each page drawn by both, alternately.
    await extractor.renderPage(pagesToDraw[0]?.bytes ?? new Uint8Array(), 1, { width });
    for (const item of pagesToDraw) {
      let started = performance.now();
      await extractor.renderPage(item.bytes, item.page, { width });
      ours.push(performance.now() - started);
      started = performance.now();
      await run('pdftoppm', [
        '-png',
        '-scale-to-x',
        String(width),
        '-scale-to-y',
        '-1',
        '-f',
        String(item.page),
        '-l',
        String(item.page),
        join(folder, item.name),
        join(scratch, 'page'),
      ]);
      poppler.push(performance.now() - started);
    }
  } finally {
    await extractor.close();
    await rm(scratch, { recursive: true, force: true });
  }
  ours.sort((a, b) => a - b);
  poppler.sort((a, b) => a - b);
  const share = referencesMs / parseMs;
  const median = (values: number[]) => percentile(values, 0.5);
  return {
    name: `References and page images: ${names.length} shared PDFs, ${entries} reference entries, ${pagesToDraw.length} pages drawn at ${width} px`,
    rows: [
      {
        subject: 'parse (text, chunks, printed lines), in process',
        metrics: { ms: parseMs, 'entries/s': '', 'p50 ms': '', 'p95 ms': '' },
      },
      {
        subject: 'reference list + in-text citations',
        metrics: { ms: referencesMs, 'entries/s': entries / (referencesMs / 1000), contexts },
      },
      {
        subject: `pdftoppm (poppler), one page at ${width} px, a process each`,
        metrics: { 'p50 ms': median(poppler), 'p95 ms': percentile(poppler, 0.95) },
      },
      {
        subject: `ours: PDFium in the worker pool, one page at ${width} px (PNG)`,
        metrics: { 'p50 ms': median(ours), 'p95 ms': percentile(ours, 0.95) },
      },
    ],
    summary: [
      ratioLine(
        'reference list + citations / parse (the time they add to add_to_project)',
        share,
        0.2,
        false,
      ),
      `page drawing p50, ours / pdftoppm: ${(median(ours) / median(poppler)).toFixed(2)}× (no goal set; pdftoppm pays a process start per page)`,
      'linking entries to records runs on the first /api/references, not at add (npm run eval -- references prints its rate)',
    ],
  };
}
