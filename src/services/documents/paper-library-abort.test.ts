import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeChunkRanker } from '../../../test/fakes/fake-chunk-ranker.js';
import { FakePaperLookup } from '../../../test/fakes/fake-paper-lookup.js';
import { fakePdf } from '../../../test/fakes/fake-pdf-extractor.js';
import { HeldPdfExtractor } from '../../../test/fakes/held-pdf-extractor.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { createSqliteProjectStore } from '../../adapters/sqlite/sqlite-project-store.js';
import { AppError } from '../../domain/errors.js';
import { sha256Hex } from '../../platform/ids.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { UrlFetcher } from '../../ports/url-fetcher.js';
import { ProjectService } from '../project-service.js';
import { documentBlobKey } from '../storage/blob-layout.js';
import { createDocumentServices } from './create-document-services.js';

const noFetcher: UrlFetcher = {
  fetch: async (url) => {
    throw new AppError('upstream_unavailable', `no ${url}`);
  },
};

let dataDir: string;
let store: ProjectStore;
let blobs: FsBlobStore;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-library-abort-'));
  store = await createSqliteProjectStore(join(dataDir, 'db.sqlite'));
  blobs = new FsBlobStore(join(dataDir, 'blobs'));
});

afterAll(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Settles after 2 s, so an add that keeps waiting for a held parse fails the test instead of hanging it. */
const stillWaiting = () => new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000));

/** Document services on a held extractor with one parse slot. */
function setup() {
  const extractor = new HeldPdfExtractor();
  const services = createDocumentServices({
    store,
    blobs,
    cache: new MemoryCache(),
    projects: new ProjectService(store),
    extractor,
    fetcher: noFetcher,
    lookup: new FakePaperLookup(),
    ranker: new FakeChunkRanker(),
    parserVersion: 'abort-1',
    parseConcurrency: 1,
    signingSecret: 'x'.repeat(32),
    publicUrl: 'https://alexandria.example/',
    figureUrlTtlSeconds: 3600,
    urlCacheTtlSeconds: 3600,
    uploadMaxBytes: 1024 * 1024,
  });
  return { extractor, services };
}

describe('PaperLibraryService.add and a client that goes away (issue 13)', () => {
  it('an upload whose client went away still takes its parse turn: aborted while waiting, it leaves the queue and stores nothing', async () => {
    const { extractor, services } = setup();
    const pdfA = fakePdf(['title: Paper of A', 'Text of A.']);
    const pdfB = fakePdf(['title: Paper of B', 'Text of B.']);
    const addA = services.library.add('tenant-a', {}, { kind: 'upload', bytes: pdfA });
    await extractor.whenStarted(1);

    const client = new AbortController();
    const addB = services.library.add(
      'tenant-b',
      { projectName: 'reading list' },
      { kind: 'upload', bytes: pdfB, filename: 'b.pdf' },
      { signal: client.signal },
    );
    const outcomeB = addB.then(
      () => 'filed',
      (error: unknown) => error,
    );
    // B waits for the one slot A holds.
    await vi.waitFor(() => expect(services.parses.parsing).toMatchObject({ waiting: 1, running: 1 }));

    client.abort(new AppError('timeout', 'The client closed the request'));
    const error = await Promise.race([outcomeB, stillWaiting()]);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'timeout', message: 'The client closed the request' });
    expect(services.parses.parsing).toMatchObject({ waiting: 0, running: 1 });

    extractor.finish('title: Paper of A');
    const [paperA] = await addA;
    expect(paperA?.title).toBe('Paper of A');
    // A's slot is free again, and B's parse never took it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(extractor.started).toEqual(['title: Paper of A']);
    expect(services.parses.parsing).toMatchObject({ waiting: 0, running: 0 });

    // Nothing of B was written: no project (only the tenant's default one), entry, document row or blob.
    const projectsOfB = await store.listProjects('tenant-b');
    expect(projectsOfB.map((project) => [project.name, project.paperCount])).toEqual([['gpt', 0]]);
    expect(await store.listEntries('tenant-b', 'gpt')).toEqual([]);
    expect(await store.findProject('tenant-b', 'reading list')).toBeNull();
    expect(await store.findDocumentBySha256('tenant-b', sha256Hex(pdfB))).toBeNull();
    expect(await blobs.has(documentBlobKey(sha256Hex(pdfB)))).toBe(false);
    expect(await store.findDocumentBySha256('tenant-a', sha256Hex(pdfA))).not.toBeNull();
  });

  it('an add aborted before it starts parsing is refused at once', async () => {
    const { extractor, services } = setup();
    const pdf = fakePdf(['title: Never', 'Text.']);
    const add = services.library.add(
      'tenant-c',
      {},
      { kind: 'upload', bytes: pdf },
      { signal: AbortSignal.abort(new AppError('timeout', 'The client closed the request')) },
    );
    const outcome = await Promise.race([
      add.then(
        () => 'filed',
        (error: unknown) => error,
      ),
      stillWaiting(),
    ]);
    expect(outcome).toMatchObject({ code: 'timeout' });
    expect(extractor.started).toEqual([]);
    expect(await store.findDocumentBySha256('tenant-c', sha256Hex(pdf))).toBeNull();
  });
});
