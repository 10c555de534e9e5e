// The release of a document's content and the sweep over every area of the blob store (decision
// 0041), on both deployments: the filesystem with SQLite, and S3 (a real S3 API on loopback) with
// PostgreSQL. Time moves by the sweep's clock, not by waiting: everything is written now, and the
// sweeps run "now", two hours later (past the grace period) and a day later (past the retention).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyPaper } from '../../src/domain/paper.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import type { ProjectStore } from '../../src/ports/project-store.js';
import { parsedBlobKey } from '../../src/services/documents/document-text.js';
import { pageImageBlobKey } from '../../src/services/documents/page-images.js';
import { contentFolder, derivedAreas, documentBlobKey } from '../../src/services/storage/blob-layout.js';
import { sweepBlobs } from '../../src/services/storage/blob-sweep.js';
import { ContentRelease } from '../../src/services/storage/content-release.js';
import { documentRecordOf, storageDeployments } from '../helpers/storage-deployments.js';

const hour = 3600_000;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every kind of blob a document's content gets: the PDF and one of each derived area. */
function contentKeys(sha256: string): string[] {
  return [
    documentBlobKey(sha256),
    parsedBlobKey(sha256, 'pdfjs-1-r3'),
    `${contentFolder('figures', sha256)}/p1-1.png`,
    pageImageBlobKey(sha256, 1, 1000),
    `${contentFolder('references', sha256)}/pdf-3.json`,
    `${contentFolder('question-vectors', sha256)}/all-MiniLM-L6-v2-${sha('vectors')}.bin`,
  ];
}

async function keysUnder(blobs: BlobStore, area: string): Promise<string[]> {
  const keys = [];
  for await (const blob of blobs.list(area)) keys.push(blob.key);
  return keys.sort();
}

async function allKeys(blobs: BlobStore): Promise<string[]> {
  const keys = [];
  for (const area of ['documents', ...derivedAreas, 'sources', 'secrets'])
    keys.push(...(await keysUnder(blobs, area)));
  return keys.sort();
}

async function file(store: ProjectStore, tenantId: string, sha256: string, entryId: string): Promise<void> {
  await store.ensureTenant(tenantId);
  await store.ensureProject(tenantId, 'gpt');
  await store.addEntry(tenantId, 'gpt', {
    entryId,
    paper: { ...emptyPaper(`Paper ${entryId}`), year: 2024 },
    document: documentRecordOf(tenantId, sha256),
    identityKeys: [],
  });
}

describe.each(storageDeployments)('releasing content on $name', ({ open }) => {
  it('deletes every blob filed under the hash, and nothing of other content', async () => {
    const { store, blobs, close } = await open();
    try {
      const gone = sha('gone');
      const kept = sha('kept');
      for (const key of [...contentKeys(gone), ...contentKeys(kept)])
        await blobs.put(key, new Uint8Array([1, 2, 3]));
      await blobs.put(pageImageBlobKey(gone, 7, 2000), new Uint8Array([4]));
      const release = new ContentRelease({ store, blobs });
      expect(await release.release([gone, gone])).toEqual([gone]);
      expect(await allKeys(blobs)).toEqual(contentKeys(kept).sort());
      expect(await store.contentReleasePending(gone)).toBe(false);
      // Stored by a tenant: refused, nothing deleted.
      await file(store, 't1', kept, 'e1');
      expect(await release.releaseOne(kept)).toBe(false);
      expect(await allKeys(blobs)).toEqual(contentKeys(kept).sort());
    } finally {
      await close();
    }
  });
});

describe.each(storageDeployments)('the sweep on $name', ({ open }) => {
  it('keeps what a stored document uses and frees the rest, each past its own age', async () => {
    const { store, blobs, close } = await open();
    try {
      const written = Date.now();
      const at = (offset: number) => () => new Date(written + offset);
      const parserVersion = 'pdfjs-1-r3';
      const put = (key: string) => blobs.put(key, new Uint8Array([1, 2, 3]));
      // Stored: a document filed by t1, with everything derived from it.
      const stored = sha('stored');
      for (const key of contentKeys(stored)) await put(key);
      await file(store, 't1', stored, 'e1');
      // What no request reads any more: a drawing at a width that is not stored, a parse of an
      // older parser version.
      const oddWidth = pageImageBlobKey(stored, 1, 777);
      const oldParse = parsedBlobKey(stored, 'pdfjs-0-r1');
      await put(oddWidth);
      await put(oldParse);
      // Not stored by anyone: a PDF without its row (a killed add); the cache of a PDF read by url.
      const killedAdd = sha('killed add');
      await put(documentBlobKey(killedAdd));
      const urlRead = sha('url read');
      for (const key of contentKeys(urlRead).slice(1)) await put(key);
      // Released a moment ago, and then written to by a drawing that was still running.
      const released = sha('released');
      expect(await store.claimContentRelease(released)).toBe(true);
      await store.endContentRelease(released);
      const lateDrawing = pageImageBlobKey(released, 2, 1000);
      await put(lateDrawing);
      // A release a kill cut short (marked, never ended), and one whose content is stored again.
      const interrupted = sha('interrupted');
      for (const key of contentKeys(interrupted)) await put(key);
      expect(await store.claimContentRelease(interrupted)).toBe(true);
      const storedAgain = sha('stored again');
      await put(documentBlobKey(storedAgain));
      expect(await store.claimContentRelease(storedAgain)).toBe(true);
      await file(store, 't2', storedAgain, 'e2');
      // A row no entry holds (left by an older release), passage vectors in the old layout, a
      // full-text source's text, and keys that are not content.
      const unfiled = sha('unfiled');
      await store.putDocument(documentRecordOf('t1', unfiled));
      await put(documentBlobKey(unfiled));
      const legacyVectors = `question-vectors/all-MiniLM-L6-v2/${sha('legacy')}.bin`;
      const sourceText = `sources/europepmc/${sha('source').slice(0, 2)}/${sha('source')}.json`;
      const secret = 'secrets/zotero/t1.json';
      for (const key of [legacyVectors, sourceText, secret]) await put(key);

      const sweep = (now: () => Date) =>
        sweepBlobs({
          blobs,
          store,
          release: new ContentRelease({ store, blobs }),
          graceMs: hour,
          cacheRetentionMs: 24 * hour,
          parserVersion,
          now,
        });
      const everything = await allKeys(blobs);

      // Now: everything may belong to work in flight.
      const first = await sweep(at(0));
      expect(first).toMatchObject({ released: [], deleted: 0, interruptedReleases: 0, unfiledDocuments: 0 });
      expect(await allKeys(blobs)).toEqual(everything);

      // Two hours on, past the grace period.
      const second = await sweep(at(2 * hour));
      expect(second.released.sort()).toEqual([killedAdd, released, interrupted, unfiled].sort());
      expect(second.interruptedReleases).toBe(2);
      expect(second.unfiledDocuments).toBe(1);
      expect(second.deleted).toBe(2); // the odd width and the old vector layout
      expect(await store.contentReleasePending(storedAgain)).toBe(false);
      const afterGrace = await allKeys(blobs);
      const storedAgainPdf = documentBlobKey(storedAgain);
      expect(afterGrace).toEqual(
        [
          ...contentKeys(stored),
          storedAgainPdf,
          oldParse,
          ...contentKeys(urlRead).slice(1),
          sourceText,
          secret,
        ].sort(),
      );
      expect(second.areas.documents).toEqual({ objects: 2, bytes: 6 });
      expect(second.areas.pages).toEqual({ objects: 2, bytes: 6 });

      // A day on, past the cache retention: the url read's cache, the source text, the old parse.
      const third = await sweep(at(25 * hour));
      expect(third.released).toEqual([urlRead]);
      expect(third.deleted).toBe(2);
      expect(await allKeys(blobs)).toEqual([...contentKeys(stored), storedAgainPdf, secret].sort());
      // Ended releases are forgotten once past the retention.
      expect(await store.releasedContent([released, killedAdd])).toEqual(new Set());
      expect(Object.values(third.areas).reduce((sum, area) => sum + area.objects, 0)).toBe(7);
    } finally {
      await close();
    }
  });
});
