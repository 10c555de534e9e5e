import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeChunkRanker } from '../../../test/fakes/fake-chunk-ranker.js';
import { FakePaperLookup } from '../../../test/fakes/fake-paper-lookup.js';
import { FakePdfExtractor, fakePdf } from '../../../test/fakes/fake-pdf-extractor.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { createSqliteProjectStore } from '../../adapters/sqlite/sqlite-project-store.js';
import { AppError } from '../../domain/errors.js';
import { emptyPaper } from '../../domain/paper.js';
import type { FullTextQuery, FullTextSource } from '../../ports/full-text-source.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { FetchedResource, UrlFetcher, UrlFetchOptions } from '../../ports/url-fetcher.js';
import { ProjectService } from '../project-service.js';
import { createDocumentServices } from './create-document-services.js';
import { chunkMarkdown } from './markdown-chunks.js';

/** A UrlFetcher that serves fixed bodies by url and counts calls. */
class FakeFetcher implements UrlFetcher {
  readonly calls: string[] = [];
  constructor(private readonly bodies: Map<string, Uint8Array>) {}
  async fetch(url: string, options: UrlFetchOptions = {}): Promise<FetchedResource> {
    this.calls.push(url);
    const bytes = this.bodies.get(url);
    if (!bytes) throw new AppError('upstream_unavailable', `no ${url}`);
    if (options.expectPdf && !Buffer.from(bytes).subarray(0, 5).equals(Buffer.from('%PDF-'))) {
      throw new AppError('unsupported_media_type', 'not a PDF', { param: options.param ?? 'url' });
    }
    return { url, status: 200, contentType: 'application/pdf', bytes, redirects: 0 };
  }
}

/** A full-text source that knows one PMCID. */
class FakeSource implements FullTextSource {
  readonly name = 'fake-pmc';
  calls = 0;
  keyFor(query: FullTextQuery): string | null {
    return query.identifiers.pmcid ?? null;
  }
  async fetch(query: FullTextQuery) {
    this.calls++;
    if (query.identifiers.pmcid !== 'PMC123') return null;
    return {
      markdown: '# Introduction\n\nJATS text about zebrafish fins.\n\n# Methods\n\nWe counted fins.',
      title: 'Fins',
    };
  }
}

let dataDir: string;
let store: ProjectStore;
const extractor = new FakePdfExtractor();
const ranker = new FakeChunkRanker();
const source = new FakeSource();
const lookup = new FakePaperLookup();
const paperPdf = fakePdf([
  'title: Photosynthesis in Deep Sea Vents',
  'doi: 10.1234/VENTS.2020',
  '# Introduction\n\nVents host chemosynthetic bacteria.',
  '# Results\n\nThe measured temperature was 400 degrees. !figure',
  '# Discussion\n\nLife adapts to extreme heat.',
]);
const remotePdf = fakePdf(['title: Remote', 'Remote text about glaciers.', 'Glaciers melt in summer.']);
const fetcher = new FakeFetcher(
  new Map([
    ['https://example.org/remote.pdf', remotePdf],
    ['https://example.org/page.html', new Uint8Array(Buffer.from('<html>'))],
    ['https://oa.example.org/known.pdf', paperPdf],
  ]),
);
let services: ReturnType<typeof createDocumentServices>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-documents-'));
  store = await createSqliteProjectStore(join(dataDir, 'db.sqlite'));
  lookup.add({
    ...emptyPaper('Known Paper With Open PDF'),
    doi: '10.5555/known',
    pdf_url: 'https://oa.example.org/known.pdf',
    identifiers: { doi: '10.5555/known' },
  });
  lookup.add({
    ...emptyPaper('Closed Paper'),
    doi: '10.5555/closed',
    identifiers: { doi: '10.5555/closed', pmid: '42' },
  });
  lookup.add({ ...emptyPaper('Vents (index record)'), doi: '10.1234/vents.2020', venue: 'Deep Sea Journal' });
  services = createDocumentServices({
    store,
    blobs: new FsBlobStore(join(dataDir, 'blobs')),
    cache: new MemoryCache(),
    projects: new ProjectService(store),
    extractor,
    fetcher,
    lookup,
    ranker,
    sources: [source],
    parserVersion: 'test-1',
    signingSecret: 'x'.repeat(32),
    publicUrl: 'https://alexandria.example/',
    figureUrlTtlSeconds: 3600,
    urlCacheTtlSeconds: 3600,
    uploadMaxBytes: 1024 * 1024,
  });
});

afterAll(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('PaperLibraryService', () => {
  it('files an upload with metadata from the PDF completed by the index, idempotently', async () => {
    const [first] = await services.library.add(
      't1',
      {},
      { kind: 'upload', bytes: paperPdf, filename: 'vents.pdf' },
    );
    expect(first?.title).toBe('Vents (index record)');
    expect(first?.venue).toBe('Deep Sea Journal');
    expect(first?.pdf_id).toMatch(/^PROJ:gpt\/doc_[0-9a-f]{24}$/);
    expect(first?.hint).toMatch(/^Added to project "gpt"/);
    const [again] = await services.library.add('t1', {}, { kind: 'upload', bytes: paperPdf });
    expect(again?.entry_id).toBe(first?.entry_id);
    expect(again?.pdf_id).toBe(first?.pdf_id);
    expect(again?.hint).toMatch(/^Already in/);
  });

  it('refuses a non-PDF upload with 415 and a broken one with 422, storing nothing', async () => {
    const before = (await store.listEntries('t2', 'gpt').catch(() => [])).length;
    await expect(
      services.library.add('t2', {}, { kind: 'upload', bytes: new Uint8Array(Buffer.from('hello')) }),
    ).rejects.toMatchObject({ code: 'unsupported_media_type', param: 'file' });
    await expect(
      services.library.add('t2', {}, { kind: 'upload', bytes: fakePdf(['!broken']) }),
    ).rejects.toMatchObject({
      code: 'unprocessable',
    });
    expect((await store.listEntries('t2', 'gpt')).length).toBe(before);
  });

  it('takes metadata from the PDF alone when the index does not know it', async () => {
    const [paper] = await services.library.add(
      't1',
      { projectName: 'Reading list' },
      { kind: 'upload', bytes: fakePdf(['title: An Unknown Study', 'doi: 10.9999/unknown', 'Body text.']) },
    );
    expect(paper).toMatchObject({
      title: 'An Unknown Study',
      doi: '10.9999/unknown',
      authors: ['Ada Lovelace'],
      year: 2020,
    });
    expect(paper?.pdf_id).toMatch(/^PROJ:prj_[a-z0-9]+\/doc_/);
  });

  it('resolves paper_id and stores the open PDF, or files metadata only with a hint', async () => {
    const [withPdf] = await services.library.add(
      't3',
      {},
      { kind: 'identifier', identifier: { type: 'DOI', value: '10.5555/known' } },
    );
    expect(withPdf?.title).toBe('Known Paper With Open PDF');
    expect(withPdf?.pdf_id).toMatch(/^PROJ:gpt\/doc_/);
    const [closed] = await services.library.add(
      't3',
      {},
      { kind: 'identifier', identifier: { type: 'PMID', value: '42' } },
    );
    expect(closed?.pdf_id).toBeUndefined();
    expect(closed?.hint).toMatch(/metadata only\. No open PDF is known/);
    const [closedAgain] = await services.library.add(
      't3',
      {},
      { kind: 'identifier', identifier: { type: 'DOI', value: '10.5555/closed' } },
    );
    expect(closedAgain?.entry_id).toBe(closed?.entry_id);
    await expect(
      services.library.add(
        't3',
        {},
        { kind: 'identifier', identifier: { type: 'DOI', value: '10.5555/nobody' } },
      ),
    ).rejects.toMatchObject({ code: 'not_found', param: 'paper_id' });
  });
});

describe('FullTextService', () => {
  it('reads chunks of a project document with hints, figure links and range errors', async () => {
    const [paper] = await services.library.add('t4', {}, { kind: 'upload', bytes: paperPdf });
    const ref = paper?.pdf_id ?? '';
    const first = await services.fullText.readChunk('t4', ref, 0);
    expect(first.total_chunk_num).toBe(3);
    expect(first.chunks[0]).toMatchObject({ chunk_num: 1, pdf_url: ref });
    expect(first.chunks[0]?.chunk).toContain('chemosynthetic bacteria');
    expect(first.hint).toBe('Read chunk 2 of 3 next with chunk=2.');
    const second = await services.fullText.readChunk('t4', ref, 2);
    expect(second.chunks[0]?.img_mds).toEqual([
      expect.stringMatching(
        /^!\[Figure 1, page 2: A fake plot\]\(https:\/\/alexandria\.example\/files\/figures\/[0-9a-f]{64}\/p2-1\.png\?exp=\d+&sig=[\w-]+\)$/,
      ),
    ]);
    expect((await services.fullText.readChunk('t4', ref, 3)).hint).toBe('This is the last chunk (3 of 3).');
    await expect(services.fullText.readChunk('t4', ref, 4)).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'chunk',
      message: expect.stringContaining('between 1 and 3'),
    });
  });

  it('keeps PROJ paths inside the tenant', async () => {
    const [paper] = await services.library.add('t5', {}, { kind: 'upload', bytes: paperPdf });
    const ref = paper?.pdf_id ?? '';
    await expect(services.fullText.readChunk('someone-else', ref, 1)).rejects.toMatchObject({
      code: 'not_found',
    });
    for (const bad of [
      'PROJ:../x',
      'PROJ:gpt/../../etc/passwd',
      'PROJ:gpt/%2e%2e',
      'PROJ:gpt',
      'PROJ:gpt/a/b',
    ]) {
      await expect(services.fullText.readChunk('t5', bad, 1)).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'pdf_url',
      });
    }
    await expect(
      services.fullText.readChunk('t5', 'PROJ:gpt/doc_000000000000000000000000', 1),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('parses once: the second read is a lookup and concurrent first reads share one parse', async () => {
    const bytes = fakePdf(['Unique text for single flight.', 'Second chunk.']);
    extractor.delayMs = 100;
    try {
      const parsesBefore = extractor.calls.length;
      const [paper] = await services.library.add('t6', {}, { kind: 'upload', bytes });
      expect(extractor.calls.length).toBe(parsesBefore + 1);
      await services.fullText.readChunk('t6', paper?.pdf_id ?? '', 2);
      expect(extractor.calls.length).toBe(parsesBefore + 1);

      const url = 'https://example.org/remote.pdf';
      const reads = await Promise.all(
        [1, 2, 1, 2].map((chunk) => services.fullText.readChunk('t6', url, chunk)),
      );
      expect(reads.map((read) => read.chunks[0]?.chunk_num)).toEqual([1, 2, 1, 2]);
      expect(reads[0]?.chunks[0]?.pdf_url).toBe(`PDF_URL:${url}`);
      expect(extractor.calls.length).toBe(parsesBefore + 2);
      expect(fetcher.calls.filter((called) => called === url)).toHaveLength(1);
      // Cached by url: no second download.
      await services.fullText.readChunk('t6', `PDF_URL:${url}`, 1);
      expect(fetcher.calls.filter((called) => called === url)).toHaveLength(1);
    } finally {
      extractor.delayMs = 0;
    }
  });

  it('remembers a failed parse instead of parsing a hostile PDF again', async () => {
    const bytes = fakePdf(['!broken', 'remembered failure']);
    const before = extractor.calls.length;
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(services.library.add('t7', {}, { kind: 'upload', bytes })).rejects.toMatchObject({
        code: 'unprocessable',
      });
    }
    expect(extractor.calls.length).toBe(before + 1);
  });

  it('answers a scan with one empty chunk, its page images and a clear hint', async () => {
    const [paper] = await services.library.add(
      't8',
      {},
      { kind: 'upload', bytes: fakePdf(['!scan']), filename: 'memo_19.pdf' },
    );
    expect(paper?.title).toBe('memo 19');
    expect(paper?.hint).toMatch(/scan without a text layer/);
    const read = await services.fullText.readChunk('t8', paper?.pdf_id ?? '', 1);
    expect(read.total_chunk_num).toBe(1);
    expect(read.chunks[0]?.chunk).toBe('');
    expect(read.chunks[0]?.img_mds).toHaveLength(2);
    expect(read.hint).toBe(
      'This PDF is a scanned image with no text layer (2 pages); no text can be read (OCR is off). Its page images are listed in img_mds.',
    );
    const asked = await services.fullText.ask('t8', paper?.pdf_id ?? '', 'what is collected?');
    expect(asked.hint).toMatch(/no text layer/);
  });

  it('answers a question with the best chunk and names its neighbours', async () => {
    const [paper] = await services.library.add('t9', {}, { kind: 'upload', bytes: paperPdf });
    const ref = paper?.pdf_id ?? '';
    const answer = await services.fullText.ask('t9', ref, 'What temperature was measured?');
    expect(answer.chunks.map((chunk) => chunk.chunk_num)).toEqual([2]);
    expect(answer.chunks[0]?.chunk).toContain('400 degrees');
    expect(answer.hint).toBe(
      'The most relevant passage is in chunk 2 of 3. For the surrounding text read chunk=1 or chunk=3.',
    );
    expect(ranker.calls.at(-1)?.documentKey).toMatch(/^pdf:[0-9a-f]{64}$/);
    const several = await services.fullText.ask('t9', ref, 'heat temperature bacteria', { topK: 3 });
    expect(several.chunks).toHaveLength(3);
    await expect(services.fullText.ask('t9', ref, '   ')).rejects.toMatchObject({ param: 'question' });
  });

  it('tries full-text sources before the PDF and caches their text', async () => {
    const [paper] = await services.library.add(
      't10',
      {},
      { kind: 'upload', bytes: fakePdf(['title: Fins (PDF)', 'PDF text about fins.']) },
    );
    // Give the entry a PMCID, as the index would.
    const project = await store.findProject('t10', 'gpt');
    const entry = (await store.listEntries('t10', project?.id ?? 'gpt'))[0];
    await store.addEntry('t10', 'gpt', {
      entryId: entry?.entryId ?? '',
      paper: { ...(entry?.paper ?? emptyPaper('x')), identifiers: { pmcid: 'PMC123' } },
      document: entry?.documentId ? await store.getDocument('t10', entry.documentId) : null,
      identityKeys: entry?.identityKeys ?? [],
    });
    const read = await services.fullText.readChunk('t10', paper?.pdf_id ?? '', 1);
    expect(read.chunks[0]?.chunk).toContain('JATS text about zebrafish fins');
    await services.fullText.readChunk('t10', paper?.pdf_id ?? '', 1);
    expect(source.calls).toBe(1);
  });

  it('refuses a url that is not a PDF with 415', async () => {
    await expect(
      services.fullText.readChunk('t1', 'https://example.org/page.html', 1, { param: 'pdf_id' }),
    ).rejects.toMatchObject({
      code: 'unsupported_media_type',
      param: 'pdf_id',
    });
  });
});

describe('chunkMarkdown', () => {
  it('cuts at headings and paragraphs, never mid-word, deterministically', () => {
    const paragraph = 'Word '.repeat(300).trim();
    const markdown = ['# One', paragraph, paragraph, '# Two', paragraph, paragraph, paragraph].join('\n\n');
    const chunks = chunkMarkdown(markdown);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[1]?.text.startsWith('# Two')).toBe(true);
    for (const chunk of chunks) expect(chunk.text).toMatch(/^(#|Word)[\s\S]*(Word|One|Two)$/);
    expect(chunkMarkdown(markdown)).toEqual(chunks);
  });
});
