import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { MemoryCache } from '../../src/adapters/memory/memory-cache.js';
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import { AppError } from '../../src/domain/errors.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import type { ProjectStore } from '../../src/ports/project-store.js';
import type { UrlFetcher } from '../../src/ports/url-fetcher.js';
import { createDocumentServices } from '../../src/services/documents/create-document-services.js';
import { ProjectService } from '../../src/services/project-service.js';
import { QuestionRanker } from '../../src/services/question/question-ranker.js';
import { FakePaperLookup } from '../fakes/fake-paper-lookup.js';
import { SerialEmbeddingModel } from '../fakes/serial-embedding-model.js';
import { gaugingAnswer, gaugingQuestion } from '../fixtures/documents/gauging-report.js';
import { editorialPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Issue 13, "one tenant stalls the others": the first question on a large PDF waited for every
 * passage to be embedded (1,000 pages: 451 s) while other tenants' questions queued behind it.
 * Now a question answers by words (BM25) at its deadline and the embedding goes on in the
 * background, in turns shared fairly between tenants.
 */
// A long report (201 pages, about 1,000 passages) and a two-page editorial, written by pdfkit
// from our own texts (test/helpers/generated-pdfs.ts).
const report = await gaugingReportPdf(200);
const editorial = await editorialPdf();
const thesisQuestion = gaugingQuestion;
const thesisAnswer = gaugingAnswer;
const editorialQuestion = 'How strong was the T-cell response to vaccination in patients with solid tumours?';
const editorialAnswer = /severely attenuated in patients with solid tumours/;
const wordsOnly = /Ranked by words only \(BM25\)/;

const noFetcher: UrlFetcher = {
  fetch: async (url) => {
    throw new AppError('upstream_unavailable', `no network in this test (${url})`);
  },
};

describe('a question on a 201-page report while its embedding is slow (real PDF pipeline)', () => {
  const model = new SerialEmbeddingModel();
  let folder: string;
  let store: ProjectStore;
  let extractor: WorkerPdfExtractor;
  let services: ReturnType<typeof createDocumentServices>;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'alexandria-deadline-'));
    store = await createSqliteProjectStore(join(folder, 'db.sqlite'));
    extractor = new WorkerPdfExtractor({
      threads: 1,
      timeoutMs: 300_000,
      memoryMb: 1024,
      maxPages: 500,
      maxBytes: 50 << 20,
      figurePixels: 0,
    });
    const blobs = new FsBlobStore(join(folder, 'blobs'));
    services = createDocumentServices({
      store,
      blobs,
      cache: new MemoryCache(),
      projects: new ProjectService(store),
      extractor,
      fetcher: noFetcher,
      lookup: new FakePaperLookup(),
      ranker: new QuestionRanker({ model, blobs }),
      parserVersion: 'deadline-test',
      signingSecret: 'x'.repeat(32),
      publicUrl: 'https://alexandria.example',
      figureUrlTtlSeconds: 3600,
      urlCacheTtlSeconds: 3600,
      uploadMaxBytes: 50 << 20,
      questionDeadlineMs: 200,
    });
  });
  afterAll(async () => {
    model.release();
    await extractor.close();
    await store.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('answers by words within the deadline, says so in the hint, and is hybrid once the vectors are built', async () => {
    model.hold(); // the embedding worker is "busy": no vector gets built until released
    const [a] = await services.library.add('tenant-a', {}, { kind: 'upload', bytes: report });
    const [b] = await services.library.add('tenant-b', {}, { kind: 'upload', bytes: editorial });
    const thesisRef = a?.pdf_id ?? '';
    const editorialRef = b?.pdf_id ?? '';

    const early = await services.fullText.ask('tenant-a', thesisRef, thesisQuestion);
    expect(early.chunks[0]?.chunk).toMatch(thesisAnswer);
    expect(early.hint).toMatch(/^The most relevant passage is in chunk \d+ of \d+\./);
    expect(early.hint).toMatch(wordsOnly);
    expect(early.hint).toMatch(/later questions on it will use both/);
    // Ranked by words alone, a question that shares no word with the report matched nothing.
    const unmatched = await services.fullText.ask('tenant-a', thesisRef, 'xylophones glockenspiel');
    expect(unmatched.hint).toMatch(/^No passage matched the question; chunk 1 of \d+ is returned\./);
    expect(unmatched.hint).toMatch(wordsOnly);
    expect(model.runs).toHaveLength(0);

    // Both PDFs were queued for embedding when filed (thesis first); the small one of the other
    // tenant finishes while most of the report still waits.
    model.release();
    let thesisReady = false;
    const thesisPrepared = services.fullText.prepareQuestions('tenant-a', thesisRef).then(() => {
      thesisReady = true;
    });
    await services.fullText.prepareQuestions('tenant-b', editorialRef);
    expect(thesisReady).toBe(false);
    const other = await services.fullText.ask('tenant-b', editorialRef, editorialQuestion);
    expect(other.chunks[0]?.chunk).toMatch(editorialAnswer);
    expect(other.hint).not.toMatch(wordsOnly);

    await thesisPrepared;
    // The editorial took its turns early on: it did not wait behind the ~50 batches of the report.
    // Judged by the order the worker ran the batches in (which batch holds editorial text), not by
    // how many had run when the test resumed: storing the vectors is real file I/O, and on a busy
    // machine the fake worker runs many report batches before the awaiting test gets its turn.
    const editorialText = await fullTextOf(services, 'tenant-b', editorialRef);
    const editorialRuns = model.runs.flatMap((run, index) =>
      // A batch is the editorial's when most of its passages open with words of the editorial (a
      // stray report passage may share a stock phrase, a whole batch does not).
      run.texts.filter((text) => editorialText.includes(openingWords(text))).length > run.texts.length / 2
        ? [index]
        : [],
    );
    expect(editorialRuns.length).toBeGreaterThan(0);
    expect(Math.max(...editorialRuns)).toBeLessThan(model.runs.length / 4);
    const later = await services.fullText.ask('tenant-a', thesisRef, thesisQuestion);
    expect(later.hint).not.toMatch(wordsOnly);
    expect(later.chunks[0]?.chunk).toMatch(thesisAnswer);
  }, 600_000);
});

describe('the real app and embedding model: one tenant’s report does not stall another tenant', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      ALEXANDRIA_QUESTION_DEADLINE_MS: '2000',
      // The deadline path: a first question waits for every vector (no BM25 candidates first).
      ALEXANDRIA_QUESTION_FIRST_CANDIDATES: '0',
    });
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const upload = (key: string, name: string, bytes: Uint8Array) => uploadPdf(t, key, name, bytes);

  it('answers the first report question by words at the deadline, and embeds the other tenant’s PDF first', async () => {
    const vectorDir = join(t.dataDir, 'blobs', 'question-vectors');
    const stored = () => (existsSync(vectorDir) ? readdirSync(vectorDir, { recursive: true }) : []);
    const added = await upload(t.key, 'report.pdf', report);
    expect(added.statusCode, added.body).toBe(200);
    const thesisRef = added.json()[0].pdf_id;

    // ~800 passages are being embedded (a minute on an idle 2-core box): the question does not wait.
    const asked = await t.app.inject({
      method: 'GET',
      url: `/api/question?pdf_id=${encodeURIComponent(thesisRef)}&question=${encodeURIComponent(thesisQuestion)}`,
      headers: withKey(t.key),
    });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json().hint).toMatch(wordsOnly);
    expect(asked.json().chunks[0].chunk).toMatch(thesisAnswer);

    const otherKey = await t.newKey('tenant-b');
    const other = await upload(otherKey, 'editorial.pdf', editorial);
    expect(other.statusCode, other.body).toBe(200);
    const files = () => stored().filter((name) => String(name).endsWith('.bin'));
    // The editorial's vectors are stored while the report is still being embedded.
    await expect.poll(() => files().length, { timeout: 300_000, interval: 200 }).toBe(1);
    const answer = await t.app.inject({
      method: 'GET',
      url: `/api/question?pdf_id=${encodeURIComponent(other.json()[0].pdf_id)}&question=${encodeURIComponent(editorialQuestion)}`,
      headers: withKey(otherKey),
    });
    expect(answer.json().chunks[0].chunk).toMatch(editorialAnswer);
    expect(answer.json().hint).not.toMatch(wordsOnly);
    expect(files()).toHaveLength(1); // the report is not done yet
  }, 600_000);
});

/** A document's whole text, every chunk read in turn, whitespace collapsed. */
async function fullTextOf(
  services: ReturnType<typeof createDocumentServices>,
  tenantId: string,
  pdfRef: string,
): Promise<string> {
  const first = await services.fullText.readChunk(tenantId, pdfRef, 1);
  const parts = first.chunks.map((chunk) => chunk.chunk);
  for (let number = 2; number <= first.total_chunk_num; number += 1) {
    const next = await services.fullText.readChunk(tenantId, pdfRef, number);
    parts.push(...next.chunks.map((chunk) => chunk.chunk));
  }
  return parts.join(' ').replace(/\s+/g, ' ');
}

/** The first words of a passage's body (after its section heading line), to find it in the text. */
function openingWords(passage: string): string {
  const body = passage.split('\n').pop() ?? passage;
  return body.replace(/\s+/g, ' ').trim().slice(0, 40) || '\u0000';
}
