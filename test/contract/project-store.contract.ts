import { describe, expect, it } from 'vitest';
import { emptyPaper, identityKeys, type Paper } from '../../src/domain/paper.js';
import type { ProjectStore } from '../../src/ports/project-store.js';

/**
 * The behaviour every ProjectStore adapter must have. Each adapter's test file calls this with a
 * factory that returns a fresh, empty store.
 */
export function runProjectStoreContract(name: string, create: () => Promise<ProjectStore>): void {
  const paper = (title: string, doi: string | null = null): Paper => ({
    ...emptyPaper(title),
    doi,
    year: 2020,
  });
  const add = (
    store: ProjectStore,
    tenant: string,
    project: string,
    value: Paper,
    entryId: string,
    documentId: string | null = null,
  ) =>
    store.addEntry(tenant, project, { entryId, paper: value, documentId, identityKeys: identityKeys(value) });

  describe(`ProjectStore contract: ${name}`, () => {
    it('creates tenants idempotently', async () => {
      const store = await create();
      const first = await store.ensureTenant('t1', 'Lab one');
      const again = await store.ensureTenant('t1', 'Other name');
      expect(again).toEqual(first);
      expect(await store.getTenant('nope')).toBeNull();
      await store.close();
    });

    it('stores keys by hash, lists and revokes them', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      const record = await store.createApiKey({
        id: 'k1',
        tenantId: 't1',
        name: 'ci',
        prefix: 'alx_ab',
        keyHash: 'h1',
      });
      expect(record.revokedAt).toBeNull();
      expect((await store.findApiKeyByHash('h1'))?.id).toBe('k1');
      expect(await store.findApiKeyByHash('h2')).toBeNull();
      expect(await store.countActiveApiKeys()).toBe(1);
      expect(await store.revokeApiKey('k1')).toBe(true);
      expect(await store.revokeApiKey('k1')).toBe(false);
      expect((await store.findApiKeyByHash('h1'))?.revokedAt).not.toBeNull();
      expect(await store.countActiveApiKeys()).toBe(0);
      expect((await store.listApiKeys('t1')).map((key) => key.id)).toEqual(['k1']);
      await store.close();
    });

    it('keeps project names unique per tenant, not across tenants', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      await store.createProject('t1', { id: 'p1', name: 'Reading' });
      await expect(store.createProject('t1', { id: 'p2', name: 'Reading' })).rejects.toMatchObject({
        code: 'conflict',
      });
      await store.createProject('t2', { id: 'p1', name: 'Reading' });
      expect((await store.findProject('t1', 'Reading'))?.id).toBe('p1');
      expect((await store.findProject('t1', 'p1'))?.name).toBe('Reading');
      expect(await store.findProject('t3', 'p1')).toBeNull();
      await store.close();
    });

    it('files papers idempotently by identifier, document or title', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const first = await add(store, 't1', 'gpt', paper('Attention', '10.1000/abc'), 'e1');
      expect(first.created).toBe(true);
      const again = await add(
        store,
        't1',
        'gpt',
        { ...paper('Attention (v2)', '10.1000/ABC'), doi: '10.1000/abc' },
        'e2',
      );
      expect(again.created).toBe(false);
      expect(again.entry.entryId).toBe('e1');
      expect(again.entry.paper.title).toBe('Attention (v2)');
      const byTitle = await add(store, 't1', 'gpt', paper('Graph networks'), 'e3');
      const byTitleAgain = await add(store, 't1', 'gpt', paper('Graph  Networks!'), 'e4');
      expect(byTitle.created).toBe(true);
      expect(byTitleAgain.entry.entryId).toBe('e3');
      const withDocument = await add(store, 't1', 'gpt', paper('Doc one'), 'e5', 'doc1');
      const sameDocument = await add(store, 't1', 'gpt', paper('A different title'), 'e6', 'doc1');
      expect(withDocument.created).toBe(true);
      expect(sameDocument.entry.entryId).toBe('e5');
      const entries = await store.listEntries('t1', 'gpt');
      expect(entries.map((entry) => entry.entryId)).toEqual(['e1', 'e3', 'e5']);
      expect((await store.listProjects('t1'))[0]?.paperCount).toBe(3);
      await store.close();
    });

    it('removes entries and deletes projects with their entries', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.createProject('t1', { id: 'p1', name: 'Reading' });
      await add(store, 't1', 'p1', paper('One', '10.1000/one'), 'e1');
      await add(store, 't1', 'p1', paper('Two', '10.1000/two'), 'e2');
      expect(await store.removeEntry('t1', 'p1', 'e1')).toBe(true);
      expect(await store.removeEntry('t1', 'p1', 'e1')).toBe(false);
      expect(await store.getEntry('t1', 'p1', 'e1')).toBeNull();
      // The removed paper can be filed again as a new entry.
      expect((await add(store, 't1', 'p1', paper('One', '10.1000/one'), 'e3')).created).toBe(true);
      expect(await store.deleteProject('t1', 'p1')).toBe(true);
      expect(await store.findProject('t1', 'p1')).toBeNull();
      expect(await store.listEntries('t1', 'p1')).toEqual([]);
      await store.close();
    });

    it('never shows one tenant the entries or documents of another', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      await store.ensureProject('t1', 'gpt');
      await store.ensureProject('t2', 'gpt');
      await add(store, 't1', 'gpt', paper('Secret', '10.1000/secret'), 'e1', 'd1');
      expect(await store.listEntries('t2', 'gpt')).toEqual([]);
      expect(await store.getEntry('t2', 'gpt', 'e1')).toBeNull();
      expect(await store.removeEntry('t2', 'gpt', 'e1')).toBe(false);
      const document = {
        id: 'd1',
        tenantId: 't1',
        sha256: 'a'.repeat(64),
        blobKey: 'documents/aa/aaaa.pdf',
        byteSize: 10,
        contentType: 'application/pdf',
        filename: 'x.pdf',
        sourceUrl: null,
        createdAt: new Date().toISOString(),
      };
      expect(await store.putDocument(document)).toEqual(document);
      expect(await store.putDocument({ ...document, id: 'd2' })).toEqual(document);
      expect(await store.getDocument('t1', 'd1')).toEqual(document);
      expect(await store.getDocument('t2', 'd1')).toBeNull();
      expect(await store.findDocumentBySha256('t2', document.sha256)).toBeNull();
      await store.close();
    });

    it('answers the readiness ping', async () => {
      const store = await create();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
    });
  });
}
