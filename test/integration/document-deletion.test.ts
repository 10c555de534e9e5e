// Deletion that frees storage (decision 0041), through HTTP on the real app (filesystem blobs,
// SQLite, the real PDF workers and embedding model): DELETE /api/documents, removing a paper,
// deleting a project. Each frees the PDF and everything derived from it — parse, figures, page
// images, passage vectors, reference links — once no entry of any tenant holds the same content.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/ids.js';
import { derivedAreas, documentBlobKey } from '../../src/services/storage/blob-layout.js';
import { samplePaperPdf } from '../helpers/sample-paper.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

let t: TestApp;
let otherKey: string;

beforeAll(async () => {
  t = await createTestApp();
  otherKey = await t.newKey('tenant-b');
});
afterAll(() => t?.close());

const call = (method: 'GET' | 'DELETE', url: string, key = t.key) =>
  t.app.inject({ method, url, headers: withKey(key) });

/** Every blob key filed under content `sha256`, by area (the PDF under `documents`). */
async function blobsOf(sha256: string): Promise<Record<string, string[]>> {
  const blobs = t.container.stores.blobs;
  const found: Record<string, string[]> = {
    documents: (await blobs.has(documentBlobKey(sha256))) ? [documentBlobKey(sha256)] : [],
  };
  for (const area of derivedAreas) {
    found[area] = [];
    for await (const blob of blobs.list(`${area}/${sha256.slice(0, 2)}/${sha256}`))
      found[area].push(blob.key);
  }
  return found;
}

const nothing = Object.fromEntries(['documents', ...derivedAreas].map((area) => [area, []]));

/** Adds, reads, asks, draws and links a PDF, so that every kind of blob exists for it. */
async function useFully(bytes: Buffer, key = t.key, project = 'Reading') {
  const added = await uploadPdf(t, key, 'paper.pdf', bytes, `project_name=${project}`);
  expect(added.statusCode, added.body).toBe(200);
  const pdfId = added.json()[0].pdf_id as string;
  const title = added.json()[0].title as string;
  const ref = encodeURIComponent(pdfId);
  const read = await call('GET', `/api/fulltext?pdf_id=${ref}&chunk=1`, key);
  expect(read.statusCode, read.body).toBe(200);
  const question = await call(
    'GET',
    `/api/question?pdf_id=${ref}&question=what%20does%20the%20sweep%20release`,
    key,
  );
  expect(question.statusCode, question.body).toBe(200);
  for (const width of [300, 1200]) {
    expect((await call('GET', `/api/page_image?pdf_id=${ref}&page=1&width=${width}`, key)).statusCode).toBe(
      200,
    );
  }
  expect((await call('GET', `/api/references?pdf_id=${ref}`, key)).statusCode).toBe(200);
  const sha256 = sha256Hex(bytes);
  // Passage vectors are written by the embedding the add started (or the question), in the background.
  await expect
    .poll(async () => (await blobsOf(sha256))['question-vectors']?.length, {
      timeout: 120_000,
      interval: 100,
    })
    .toBeGreaterThan(0);
  return { pdfId, sha256, title, figureLinks: figureLinksIn(read.json()) };
}

function figureLinksIn(body: { chunks: Array<{ img_mds: string[] }> }): string[] {
  return body.chunks.flatMap((chunk) =>
    chunk.img_mds.map((markdown) => /\]\((.+)\)$/.exec(markdown)?.[1] ?? ''),
  );
}

describe('DELETE /api/documents', () => {
  it('frees the PDF, its parse, figures, page images and vectors, and keeps the entry without a PDF', async () => {
    const bytes = samplePaperPdf({ seed: 1 });
    const { pdfId, sha256, title, figureLinks } = await useFully(bytes);
    const before = await blobsOf(sha256);
    // The sample paper has no reference list, so no links are stored for it (references are freed
    // like the rest: test/integration/blob-sweep.test.ts).
    for (const area of ['documents', 'parsed', 'figures', 'pages', 'question-vectors']) {
      expect(before[area], area).not.toEqual([]);
    }
    expect(before.pages).toHaveLength(2);
    expect(figureLinks.length).toBeGreaterThan(0);

    const deleted = await call('DELETE', `/api/documents/${encodeURIComponent(pdfId)}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const documentId = pdfId.split('/')[1];
    expect(deleted.json()).toEqual({ deleted: true, document_id: documentId, detached_entries: 1 });
    expect(await blobsOf(sha256)).toEqual(nothing);
    // No empty folder is left behind for the content either.
    for (const area of ['documents', ...derivedAreas]) {
      expect(existsSync(join(t.dataDir, 'blobs', area, sha256.slice(0, 2), sha256)), area).toBe(false);
    }
    // The paper stays filed, without a PDF.
    const project = (await call('GET', '/api/projects/Reading')).json();
    expect(project.papers).toHaveLength(1);
    expect(project.papers[0].pdf_id).toBeUndefined();
    expect(project.papers[0].title).toBe(title);
    // Everything that named the PDF is gone with it.
    const ref = encodeURIComponent(pdfId);
    expect((await call('GET', `/api/fulltext?pdf_id=${ref}`)).statusCode).toBe(404);
    expect((await call('GET', `/api/page_image?pdf_id=${ref}`)).statusCode).toBe(404);
    const figure = await t.app.inject({
      method: 'GET',
      url: new URL(figureLinks[0] as string).pathname + new URL(figureLinks[0] as string).search,
    });
    expect(figure.statusCode).toBe(404);
    const again = await call('DELETE', `/api/documents/${encodeURIComponent(pdfId)}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toMatchObject({ code: 'not_found', param: 'pdf_id' });
  }, 180_000);

  it('takes the document id or the query form too, and added again the bytes are stored whole again', async () => {
    const bytes = samplePaperPdf({ seed: 2 });
    const first = await useFully(bytes);
    const documentId = first.pdfId.split('/')[1];
    const byId = await call('DELETE', `/api/documents/${documentId}`);
    expect(byId.json()).toMatchObject({ deleted: true, document_id: documentId });
    expect(await blobsOf(first.sha256)).toEqual(nothing);

    // Filed again: it completes its old (metadata-only) entry, and its figures are served again.
    const second = await useFully(bytes);
    expect(second.pdfId).toBe(first.pdfId);
    const link = new URL(second.figureLinks[0] as string);
    expect((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(200);
    const project = (await call('GET', '/api/projects/Reading')).json();
    expect(project.papers.filter((paper: { pdf_id?: string }) => paper.pdf_id === second.pdfId)).toHaveLength(
      1,
    );

    const byQuery = await call('DELETE', `/api/documents?pdf_id=${encodeURIComponent(second.pdfId)}`);
    expect(byQuery.statusCode, byQuery.body).toBe(200);
    expect(await blobsOf(first.sha256)).toEqual(nothing);
  }, 180_000);

  it('keeps the bytes while another tenant stores them, and frees them with the last one', async () => {
    const bytes = samplePaperPdf({ seed: 3 });
    const mine = await useFully(bytes);
    const theirs = await useFully(bytes, otherKey, 'Theirs');
    const kept = await blobsOf(mine.sha256);

    expect((await call('DELETE', `/api/documents/${encodeURIComponent(mine.pdfId)}`)).statusCode).toBe(200);
    // Same answer either way: nothing tells the caller another tenant has these bytes.
    expect(await blobsOf(mine.sha256)).toEqual(kept);
    const read = await call('GET', `/api/fulltext?pdf_id=${encodeURIComponent(theirs.pdfId)}`, otherKey);
    expect(read.statusCode).toBe(200);
    // Not theirs to delete through my key, nor mine through theirs.
    expect((await call('DELETE', `/api/documents/${encodeURIComponent(theirs.pdfId)}`)).statusCode).toBe(404);

    expect(
      (await call('DELETE', `/api/documents/${encodeURIComponent(theirs.pdfId)}`, otherKey)).statusCode,
    ).toBe(200);
    expect(await blobsOf(mine.sha256)).toEqual(nothing);
  }, 240_000);

  it('names pdf_id in its 400s and 404s', async () => {
    const cases: Array<[string, number]> = [
      ['/api/documents/not-a-reference', 400],
      ['/api/documents/PROJ%3A..%2Fetc', 400],
      ['/api/documents', 400],
      ['/api/documents?pdf_id=', 400],
      [`/api/documents/doc_${'0'.repeat(24)}`, 404],
      [`/api/documents/${encodeURIComponent(`PROJ:nope/doc_${'0'.repeat(24)}`)}`, 404],
      [`/api/documents?pdf_id=${encodeURIComponent(`PROJ:gpt/doc_${'0'.repeat(24)}`)}`, 404],
    ];
    for (const [url, status] of cases) {
      const response = await call('DELETE', url);
      expect({ url, status: response.statusCode }).toEqual({ url, status });
      expect(response.json().error.param, url).toBe('pdf_id');
    }
  });
});

describe('removing papers and projects', () => {
  it('frees a PDF with the last entry of the tenant that holds it', async () => {
    const bytes = samplePaperPdf({ seed: 4 });
    const first = await useFully(bytes, t.key, 'Shelf one');
    await useFully(bytes, t.key, 'Shelf two');
    const stored = await blobsOf(first.sha256);
    const entryOf = async (project: string) =>
      (await call('GET', `/api/projects/${encodeURIComponent(project)}`)).json().papers[0].entry_id as string;

    const removed = await call(
      'DELETE',
      `/api/projects/${encodeURIComponent('Shelf one')}/papers/${await entryOf('Shelf one')}`,
    );
    expect(removed.statusCode, removed.body).toBe(200);
    // Still filed in "Shelf two": nothing freed.
    expect(await blobsOf(first.sha256)).toEqual(stored);
    const shelfTwo = (await call('GET', '/api/projects'))
      .json()
      .find((project: { name: string }) => project.name === 'Shelf two');
    expect((await call('DELETE', `/api/projects/${shelfTwo.id}`)).statusCode).toBe(200);
    expect(await blobsOf(first.sha256)).toEqual(nothing);
    expect(await t.container.stores.projects.findDocumentBySha256('tenant-a', first.sha256)).toBeNull();
  }, 240_000);
});

describe('storage on /metrics', () => {
  it('shows each tenant’s stored PDF bytes', async () => {
    const fresh = await createTestApp({ ALEXANDRIA_EMBED_ON_ADD: 'false' });
    try {
      const bytes = samplePaperPdf({ seed: 5 });
      expect((await uploadPdf(fresh, fresh.key, 'paper.pdf', bytes)).statusCode).toBe(200);
      const metrics = (await fresh.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`alexandria_storage_bytes{tenant="tenant-a"} ${bytes.byteLength}`);
      expect(metrics).toContain('alexandria_storage_documents{tenant="tenant-a"} 1');
    } finally {
      await fresh.close();
    }
  });

  it('sums the tenants when tenant ids must stay off /metrics', async () => {
    const fresh = await createTestApp({
      ALEXANDRIA_EMBED_ON_ADD: 'false',
      ALEXANDRIA_METRICS_PER_TENANT: 'false',
    });
    try {
      const bytes = samplePaperPdf({ seed: 6 });
      const other = samplePaperPdf({ seed: 7 });
      expect((await uploadPdf(fresh, fresh.key, 'paper.pdf', bytes)).statusCode).toBe(200);
      expect((await uploadPdf(fresh, await fresh.newKey('tenant-b'), 'other.pdf', other)).statusCode).toBe(
        200,
      );
      const metrics = (await fresh.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(
        `alexandria_storage_bytes{tenant="all"} ${bytes.byteLength + other.byteLength}`,
      );
      expect(metrics).not.toContain('tenant-a');
    } finally {
      await fresh.close();
    }
  });
});

describe('the blob folder', () => {
  it('keeps no empty content folders after the deletions above', () => {
    const root = join(t.dataDir, 'blobs');
    const empty: string[] = [];
    const walk = (folder: string) => {
      const entries = readdirSync(folder, { withFileTypes: true });
      if (entries.length === 0 && folder !== root) empty.push(folder);
      for (const entry of entries) if (entry.isDirectory()) walk(join(folder, entry.name));
    };
    walk(root);
    expect(empty).toEqual([]);
  });
});
