import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakePdfExtractor, fakePdf } from '../../../test/fakes/fake-pdf-extractor.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { MemoryJobQueue } from '../../adapters/memory/memory-job-queue.js';
import { createSqliteProjectStore } from '../../adapters/sqlite/sqlite-project-store.js';
import { AppError } from '../../domain/errors.js';
import { sha256Hex } from '../../platform/ids.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { DocumentStorage } from '../documents/document-storage.js';
import { ParseCache } from '../documents/parse-cache.js';
import { documentBlobKey } from '../storage/blob-layout.js';
import { parsePdfJob, parsePdfJobId, pdfParseHandler, QueuedPdfParsing } from './pdf-parse-job.js';

/**
 * Issue 12, PDF parsing as a job: the replicas that receive a PDF queue a `parse-pdf` job (one per
 * content hash and parser version) and wait for it; a worker parses into the parse cache they all
 * read. Here the "replicas" and the "worker" are separate parse caches (memory apart, as separate
 * processes are) over one blob folder, one shared cache and one queue.
 */
let folder: string;
let store: ProjectStore;
let run = 0;
const open: MemoryJobQueue[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-parse-job-'));
  store = await createSqliteProjectStore(join(folder, 'db.sqlite'));
});
afterEach(async () => {
  for (const queue of open.splice(0)) await queue.close();
});
afterAll(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

function deployment(options: { workerVersion?: string } = {}) {
  const blobs = new FsBlobStore(join(folder, `blobs-${run++}`));
  const cache = new MemoryCache();
  const jobs = new MemoryJobQueue({ retryDelayMs: 10 });
  open.push(jobs);
  const process = (parserVersion: string) => {
    const extractor = new FakePdfExtractor();
    const parses = new ParseCache({ blobs, extractor, cache, parserVersion });
    return { extractor, parses };
  };
  const replica = () => {
    const { extractor, parses } = process('v1');
    const parsing = new QueuedPdfParsing({ jobs, parses, documents: new DocumentStorage(store, blobs) });
    return { extractor, parses, parsing };
  };
  const worker = process(options.workerVersion ?? 'v1');
  worker.extractor.delayMs = 50;
  jobs.process(parsePdfJob, pdfParseHandler(worker.parses, blobs), { concurrency: 2 });
  return { blobs, jobs, worker, replica };
}

describe('parse-pdf jobs', () => {
  it('parses a PDF two replicas receive at once once, in the worker, and both read that parse', async () => {
    const { blobs, jobs, worker, replica } = deployment();
    const [first, second] = [replica(), replica()];
    const bytes = fakePdf(['title: Shared Paper', 'The only passage.']);
    const sha256 = sha256Hex(bytes);
    const [a, b] = await Promise.all([
      first.parsing.parse(sha256, bytes, { lane: 'tenant-a' }),
      second.parsing.parse(sha256, new Uint8Array(bytes), { lane: 'tenant-b' }),
    ]);
    expect(worker.extractor.calls).toHaveLength(1);
    expect(first.extractor.calls.length + second.extractor.calls.length).toBe(0);
    expect(a).toEqual(b);
    expect(a.metadata.title).toBe('Shared Paper');
    expect(a.chunks.map((chunk) => chunk.text)).toEqual(['The only passage.']);
    // The bytes the worker read are in the shared blob store, under their content key.
    expect(await blobs.has(documentBlobKey(sha256))).toBe(true);
    expect(await jobs.get(parsePdfJob, parsePdfJobId(sha256, 'v1'))).toMatchObject({
      state: 'completed',
      lane: expect.stringMatching(/^tenant-[ab]$/),
      starts: 1,
      payload: { sha256, blobKey: documentBlobKey(sha256), parserVersion: 'v1' },
    });
    // Later: straight from the parse cache, no job.
    const third = replica();
    expect(await third.parsing.parse(sha256, bytes, { lane: 'tenant-c' })).toEqual(a);
    expect(worker.extractor.calls).toHaveLength(1);
    expect((await jobs.get(parsePdfJob, parsePdfJobId(sha256, 'v1')))?.starts).toBe(1);
  });

  it('fails a broken PDF with the parser’s 422 once, keeps none of its bytes, and answers the next try from memory', async () => {
    const { blobs, jobs, worker, replica } = deployment();
    const bytes = fakePdf(['!broken']);
    const sha256 = sha256Hex(bytes);
    const attempt = () => replica().parsing.parse(sha256, bytes, { lane: 'tenant-a' });
    const error = await attempt().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unprocessable', message: 'The PDF is damaged (fake)' });
    // Done, not retried: parsing the same bytes again fails the same way.
    expect(await jobs.get(parsePdfJob, parsePdfJobId(sha256, 'v1'))).toMatchObject({
      state: 'completed',
      starts: 1,
    });
    expect(await blobs.has(documentBlobKey(sha256))).toBe(false);
    await expect(attempt()).rejects.toMatchObject({ code: 'unprocessable' });
    expect(worker.extractor.calls).toHaveLength(1);
  });

  it('parses in the replica when the job ended without a parse for its release', async () => {
    const { worker, replica } = deployment({ workerVersion: 'v2' });
    const own = replica();
    const bytes = fakePdf(['title: Upgrade Day', 'Parsed by the replica.']);
    const text = await own.parsing.parse(sha256Hex(bytes), bytes, { lane: 'tenant-a' });
    expect(text.metadata.title).toBe('Upgrade Day');
    expect(worker.extractor.calls).toHaveLength(0);
    expect(own.extractor.calls).toHaveLength(1);
  });

  it('stops waiting when the request is aborted; the job parses on and the retry reads its parse', async () => {
    const { jobs, worker, replica } = deployment();
    worker.extractor.delayMs = 300;
    const bytes = fakePdf(['title: Patience', 'Long.']);
    const sha256 = sha256Hex(bytes);
    const controller = new AbortController();
    const waiting = replica().parsing.parse(sha256, bytes, { lane: 'tenant-a', signal: controller.signal });
    await expect
      .poll(async () => (await jobs.get(parsePdfJob, parsePdfJobId(sha256, 'v1')))?.state)
      .toBe('active');
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect((await jobs.wait(parsePdfJob, parsePdfJobId(sha256, 'v1')))?.state).toBe('completed');
    const retry = replica();
    expect((await retry.parsing.parse(sha256, bytes, { lane: 'tenant-a' })).metadata.title).toBe('Patience');
    expect(worker.extractor.calls).toHaveLength(1);
    expect(retry.extractor.calls).toHaveLength(0);
  });
});
