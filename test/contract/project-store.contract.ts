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

    it('never files a different PDF with only the same title into an existing entry (silent data loss)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const supplement = paper('Supplementary Material');
      const first = await add(store, 't1', 'gpt', supplement, 'e1', 'doc1');
      const second = await add(store, 't1', 'gpt', supplement, 'e2', 'doc2');
      expect(second.created).toBe(true);
      expect(second.entry.entryId).toBe('e2');
      expect((await store.getEntry('t1', 'gpt', 'e1'))?.documentId).toBe('doc1');
      expect((await store.getEntry('t1', 'gpt', 'e2'))?.documentId).toBe('doc2');
      // The same bytes again are still the same entry, whichever entry they belong to.
      expect((await add(store, 't1', 'gpt', supplement, 'e3', 'doc2')).entry.entryId).toBe('e2');
      expect((await add(store, 't1', 'gpt', supplement, 'e4', 'doc1')).entry).toEqual(first.entry);
      expect((await store.listEntries('t1', 'gpt')).map((entry) => entry.documentId)).toEqual([
        'doc1',
        'doc2',
      ]);
      await store.close();
    });

    it("keeps an entry's PDF when the same identifier comes with another PDF", async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const first = await add(store, 't1', 'gpt', paper('Preprint', '10.1000/same'), 'e1', 'doc1');
      const other = await add(store, 't1', 'gpt', paper('Published version', '10.1000/same'), 'e2', 'doc2');
      expect(other.created).toBe(false);
      // Returned and stored unchanged: the new document is not attached, the record not rewritten.
      expect(other.entry).toEqual(first.entry);
      expect(await store.getEntry('t1', 'gpt', 'e1')).toEqual(first.entry);
      await store.close();
    });

    it('lets a title join a metadata-only record and a PDF, unless an identifier tells them apart', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      // A BibTeX import without DOI, then the PDF of that paper: the PDF completes the entry.
      await add(store, 't1', 'gpt', paper('Deep residual learning'), 'e1');
      const pdf = await add(store, 't1', 'gpt', paper('Deep Residual Learning'), 'e2', 'doc1');
      expect(pdf.created).toBe(false);
      expect(pdf.entry).toMatchObject({ entryId: 'e1', documentId: 'doc1' });
      // A metadata-only record of the same title later adds to the entry and keeps its PDF.
      const later = await add(store, 't1', 'gpt', paper('Deep residual learning', '10.1000/resnet'), 'e3');
      expect(later.entry).toMatchObject({ entryId: 'e1', documentId: 'doc1' });
      // Same title and year, different DOIs: two papers.
      const otherDoi = await add(store, 't1', 'gpt', paper('Deep residual learning', '10.1000/other'), 'e4');
      expect(otherDoi.created).toBe(true);
      expect((await store.listEntries('t1', 'gpt')).map((entry) => entry.entryId)).toEqual(['e1', 'e4']);
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

    it('creates a named project together with its first entry, then files into it', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      const one = paper('One', '10.1000/one');
      const first = await store.addEntryCreatingProject(
        't1',
        { id: 'p1', name: 'Reading' },
        { entryId: 'e1', paper: one, documentId: 'doc1', identityKeys: identityKeys(one) },
      );
      expect(first).toMatchObject({ project: { id: 'p1', name: 'Reading', tenantId: 't1' }, created: true });
      expect(first.entry).toMatchObject({ entryId: 'e1', projectId: 'p1', documentId: 'doc1' });
      // The same name again (a fresh id, as a new request makes): the existing project, same entry.
      const again = await store.addEntryCreatingProject(
        't1',
        { id: 'p2', name: 'Reading' },
        { entryId: 'e2', paper: one, documentId: 'doc1', identityKeys: identityKeys(one) },
      );
      expect(again).toMatchObject({ project: { id: 'p1' }, created: false, entry: { entryId: 'e1' } });
      // A project made by createProject is found by name too.
      await store.createProject('t1', { id: 'p3', name: 'Made' });
      const two = paper('Two', '10.1000/two');
      const intoMade = await store.addEntryCreatingProject(
        't1',
        { id: 'p4', name: 'Made' },
        { entryId: 'e3', paper: two, documentId: null, identityKeys: identityKeys(two) },
      );
      expect(intoMade.project.id).toBe('p3');
      expect((await store.listProjects('t1')).map((project) => [project.name, project.paperCount])).toEqual([
        ['Reading', 1],
        ['Made', 1],
      ]);
      await store.close();
    });

    it('leaves no empty project when filing the first entry fails (empty project from a kill)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      // Fails after the project row is written, inside the same transaction (it cannot be stored).
      const unstorable = { ...paper('Broken'), year: 10n as unknown as number };
      await expect(
        store.addEntryCreatingProject(
          't1',
          { id: 'p1', name: 'Doomed' },
          { entryId: 'e1', paper: unstorable, documentId: null, identityKeys: [] },
        ),
      ).rejects.toThrow();
      expect(await store.findProject('t1', 'Doomed')).toBeNull();
      expect(await store.listProjects('t1')).toEqual([]);
      await store.close();
    });

    it('files concurrent first adds with one new project name into one project', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      const papers = Array.from({ length: 4 }, (_, index) => paper(`Paper ${index}`, `10.1000/p${index}`));
      const results = await Promise.all(
        papers.map((value, index) =>
          store.addEntryCreatingProject(
            't1',
            { id: `p${index}`, name: 'Shared' },
            { entryId: `e${index}`, paper: value, documentId: null, identityKeys: identityKeys(value) },
          ),
        ),
      );
      expect(new Set(results.map((result) => result.project.id)).size).toBe(1);
      const projects = await store.listProjects('t1');
      expect(projects.map((project) => [project.name, project.paperCount])).toEqual([['Shared', 4]]);
      await store.close();
    });

    it('tells which blob keys a document row of any tenant references', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      const document = (tenantId: string, sha: string) => ({
        id: `doc_${sha.slice(0, 24)}`,
        tenantId,
        sha256: sha,
        blobKey: `documents/${sha.slice(0, 2)}/${sha}.pdf`,
        byteSize: 10,
        contentType: 'application/pdf',
        filename: null,
        sourceUrl: null,
        createdAt: new Date().toISOString(),
      });
      const a = 'a'.repeat(64);
      const b = 'b'.repeat(64);
      await store.putDocument(document('t1', a));
      await store.putDocument(document('t2', a));
      await store.putDocument(document('t2', b));
      const keyOf = (sha: string) => `documents/${sha.slice(0, 2)}/${sha}.pdf`;
      const unknown = Array.from({ length: 1200 }, (_, index) => keyOf(index.toString(16).padStart(64, 'c')));
      const referenced = await store.referencedBlobKeys([...unknown, keyOf(a), keyOf(b)]);
      expect([...referenced].sort()).toEqual([keyOf(a), keyOf(b)]);
      expect(await store.referencedBlobKeys([])).toEqual(new Set());
      await store.close();
    });

    it('stores a setting once: the first value wins, concurrent first writers agree', async () => {
      const store = await create();
      expect(await store.ensureSetting('signing_secret', 'first')).toBe('first');
      expect(await store.ensureSetting('signing_secret', 'second')).toBe('first');
      const racers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => store.ensureSetting('raced', `value-${index}`)),
      );
      expect(new Set(racers).size).toBe(1);
      expect(racers[0]).toMatch(/^value-\d$/);
      expect(await store.ensureSetting('raced', 'late')).toBe(racers[0]);
      await store.close();
    });

    it('answers the readiness ping', async () => {
      const store = await create();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
    });
  });
}
