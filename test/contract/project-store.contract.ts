import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyPaper, identityKeys, type Paper } from '../../src/domain/paper.js';
import type { DocumentRecord } from '../../src/domain/project.js';
import type { ProjectStore } from '../../src/ports/project-store.js';

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** A document row of `tenantId` named `id`; its content hash is that of `content` (default: the id). */
export function documentOf(tenantId: string, id: string, content = id, byteSize = 10): DocumentRecord {
  const sha256 = sha256Of(content);
  return {
    id,
    tenantId,
    sha256,
    blobKey: `documents/${sha256.slice(0, 2)}/${sha256}.pdf`,
    byteSize,
    contentType: 'application/pdf',
    filename: null,
    sourceUrl: null,
    createdAt: new Date().toISOString(),
  };
}

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
    store.addEntry(tenant, project, {
      entryId,
      paper: value,
      document: documentId === null ? null : documentOf(tenant, documentId),
      identityKeys: identityKeys(value),
    });

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

    it('keeps what an entry knows when the same paper is filed again with less (a pasted reference over an import)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const rich: Paper = {
        ...paper('DoTAT: a domain-oriented text annotation tool', '10.1000/dotat'),
        authors: ['Yupian Lin', 'Tong Ruan', 'Ming Liang'],
        abstract: 'A tool for annotating domain texts together.',
        year: 2022,
      };
      await add(store, 't1', 'gpt', rich, 'e1');
      // The same paper as a plain-text reference parses it: two authors, no DOI, no abstract.
      const pasted: Paper = {
        ...paper('DoTAT: a domain-oriented text annotation tool'),
        authors: ['Yupian Lin', 'Tong Ruan'],
        year: 2022,
        venue: 'Proceedings of ACL 2022: System Demonstrations',
      };
      const again = await add(store, 't1', 'gpt', pasted, 'e2');
      expect(again.created).toBe(false);
      expect(again.entry.entryId).toBe('e1');
      expect(again.entry.paper).toMatchObject({
        doi: '10.1000/dotat',
        abstract: 'A tool for annotating domain texts together.',
        authors: ['Yupian Lin', 'Tong Ruan', 'Ming Liang'],
        venue: 'Proceedings of ACL 2022: System Demonstrations',
      });
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
      expect(await store.removeEntry('t1', 'p1', 'e1')).toEqual({ orphanedContent: [] });
      expect(await store.removeEntry('t1', 'p1', 'e1')).toBeNull();
      expect(await store.getEntry('t1', 'p1', 'e1')).toBeNull();
      // The removed paper can be filed again as a new entry.
      expect((await add(store, 't1', 'p1', paper('One', '10.1000/one'), 'e3')).created).toBe(true);
      expect(await store.deleteProject('t1', 'p1')).toEqual({ orphanedContent: [] });
      expect(await store.deleteProject('t1', 'p1')).toBeNull();
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
      expect(await store.removeEntry('t2', 'gpt', 'e1')).toBeNull();
      expect(await store.deleteDocument('t2', 'd1')).toBeNull();
      const document = (await store.getDocument('t1', 'd1')) as DocumentRecord;
      expect(document).toMatchObject({ id: 'd1', tenantId: 't1', sha256: sha256Of('d1') });
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
        { entryId: 'e1', paper: one, document: documentOf('t1', 'doc1'), identityKeys: identityKeys(one) },
      );
      expect(first).toMatchObject({ project: { id: 'p1', name: 'Reading', tenantId: 't1' }, created: true });
      expect(first.entry).toMatchObject({ entryId: 'e1', projectId: 'p1', documentId: 'doc1' });
      // The same name again (a fresh id, as a new request makes): the existing project, same entry.
      const again = await store.addEntryCreatingProject(
        't1',
        { id: 'p2', name: 'Reading' },
        { entryId: 'e2', paper: one, document: documentOf('t1', 'doc1'), identityKeys: identityKeys(one) },
      );
      expect(again).toMatchObject({ project: { id: 'p1' }, created: false, entry: { entryId: 'e1' } });
      // A project made by createProject is found by name too.
      await store.createProject('t1', { id: 'p3', name: 'Made' });
      const two = paper('Two', '10.1000/two');
      const intoMade = await store.addEntryCreatingProject(
        't1',
        { id: 'p4', name: 'Made' },
        { entryId: 'e3', paper: two, document: null, identityKeys: identityKeys(two) },
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
          { entryId: 'e1', paper: unstorable, document: null, identityKeys: [] },
        ),
      ).rejects.toThrow();
      expect(await store.findProject('t1', 'Doomed')).toBeNull();
      expect(await store.listProjects('t1')).toEqual([]);
      await store.close();
    });

    it('files a batch all or nothing (an import failing halfway left part of it visible)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.createProject('t1', { id: 'p1', name: 'Import' });
      const input = (value: Paper, entryId: string) => ({
        entryId,
        paper: value,
        document: null,
        identityKeys: identityKeys(value),
      });
      const good = [
        paper('One', '10.1000/one'),
        paper('Two', '10.1000/two'),
        paper('Three', '10.1000/three'),
      ];
      // The third of four entries cannot be stored: the two before it must not stay filed.
      const unstorable = { ...paper('Broken'), year: 10n as unknown as number };
      await expect(
        store.addEntries('t1', 'p1', [
          input(good[0] as Paper, 'e1'),
          input(good[1] as Paper, 'e2'),
          input(unstorable, 'e3'),
          input(good[2] as Paper, 'e4'),
        ]),
      ).rejects.toThrow();
      expect(await store.listEntries('t1', 'p1')).toEqual([]);
      // The retry without the broken entry files all three; a paper twice in one batch is one entry.
      const filed = await store.addEntries('t1', 'p1', [
        ...good.map((value, index) => input(value, `f${index}`)),
        input(good[0] as Paper, 'f9'),
      ]);
      expect(filed.map((result) => [result.entry.entryId, result.created])).toEqual([
        ['f0', true],
        ['f1', true],
        ['f2', true],
        ['f0', false],
      ]);
      expect((await store.listEntries('t1', 'p1')).map((entry) => entry.paper.title)).toEqual([
        'One',
        'Two',
        'Three',
      ]);
      await store.close();
    });

    it('keeps every bibliographic field of a paper record (0049)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.createProject('t1', { id: 'p1', name: 'Rich' });
      const rich: Paper = {
        ...paper('Sediment Budgets of Small Deltas', '10.1000/deltas'),
        bibliographic: {
          author_names: [
            { family: 'García Márquez', given: 'Ana' },
            { family: 'Berg', given: 'Pieter', particle: 'van der' },
          ],
          more_authors: true,
          editors: [{ family: 'Østergaard', given: 'Søren' }],
          volume: '12',
          issue: '3',
          pages: '101–130',
          publisher: 'Example Academic',
          place: 'Zürich',
          isbn: '978-3-16-148410-0',
          issn: '1234-5679',
          edition: '3',
          series: 'Studies in Hydrology',
          number: 'TR-7',
          institution: 'Example Agency',
          arxiv_class: 'cs.CL',
          note: 'Read chapter 2',
          keywords: ['deltas', 'sediment'],
        },
      };
      await store.addEntry('t1', 'p1', {
        entryId: 'e1',
        paper: rich,
        document: null,
        identityKeys: identityKeys(rich),
      });
      const [entry] = await store.listEntries('t1', 'p1');
      expect(entry?.paper.bibliographic).toEqual(rich.bibliographic);
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
            { entryId: `e${index}`, paper: value, document: null, identityKeys: identityKeys(value) },
          ),
        ),
      );
      expect(new Set(results.map((result) => result.project.id)).size).toBe(1);
      const projects = await store.listProjects('t1');
      expect(projects.map((project) => [project.name, project.paperCount])).toEqual([['Shared', 4]]);
      await store.close();
    });

    it('tells which content hashes a document row of any tenant has', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      const a = documentOf('t1', 'doc_a', 'a');
      await store.putDocument(a);
      await store.putDocument({ ...a, tenantId: 't2' });
      const b = documentOf('t2', 'doc_b', 'b');
      await store.putDocument(b);
      const unknown = Array.from({ length: 1200 }, (_, index) => sha256Of(`unknown ${index}`));
      const stored = await store.storedContent([...unknown, a.sha256, b.sha256]);
      expect([...stored].sort()).toEqual([a.sha256, b.sha256].sort());
      expect(await store.storedContent([])).toEqual(new Set());
      await store.close();
    });

    it('writes a document row with its entry, and none when the entry keeps another PDF', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      await add(store, 't1', 'gpt', paper('Preprint', '10.1000/same'), 'e1', 'doc1');
      expect(await store.getDocument('t1', 'doc1')).toMatchObject({ id: 'doc1', sha256: sha256Of('doc1') });
      // Same identifier, other PDF: the entry keeps doc1, and nothing holds doc2, so no row.
      await add(store, 't1', 'gpt', paper('Published', '10.1000/same'), 'e2', 'doc2');
      expect(await store.getDocument('t1', 'doc2')).toBeNull();
      // Filing stored content again reuses the tenant's row (and its id).
      await store.ensureProject('t1', 'other');
      const again = await store.addEntry('t1', 'other', {
        entryId: 'e3',
        paper: paper('Preprint', '10.1000/same'),
        document: { ...documentOf('t1', 'doc1'), id: 'doc_new_id' },
        identityKeys: [],
      });
      expect(again.entry.documentId).toBe('doc1');
      expect(await store.getDocument('t1', 'doc_new_id')).toBeNull();
      await store.close();
    });

    it('deletes a document with the last entry of its tenant that holds it, and tells its content', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      for (const project of ['p1', 'p2']) await store.createProject('t1', { id: project, name: project });
      await store.ensureProject('t2', 'gpt');
      await add(store, 't1', 'p1', paper('Shared', '10.1000/shared'), 'e1', 'doc1');
      await add(store, 't1', 'p2', paper('Shared', '10.1000/shared'), 'e2', 'doc1');
      await add(store, 't1', 'p1', paper('Own', '10.1000/own'), 'e3', 'doc2');
      await add(store, 't1', 'p1', paper('Metadata only', '10.1000/meta'), 'e4');
      // Another tenant stores the same bytes as doc1: its row is its own.
      await add(store, 't2', 'gpt', paper('Shared', '10.1000/shared'), 'e1', 'doc1');
      // doc1 is still held by e2 of p2.
      expect(await store.removeEntry('t1', 'p1', 'e1')).toEqual({ orphanedContent: [] });
      expect(await store.getDocument('t1', 'doc1')).not.toBeNull();
      expect(await store.removeEntry('t1', 'p1', 'e3')).toEqual({ orphanedContent: [sha256Of('doc2')] });
      expect(await store.getDocument('t1', 'doc2')).toBeNull();
      expect(await store.removeEntry('t1', 'p1', 'e4')).toEqual({ orphanedContent: [] });
      // The project p2 goes with the last entry holding doc1 in t1; t2 keeps its row.
      expect(await store.deleteProject('t1', 'p2')).toEqual({ orphanedContent: [sha256Of('doc1')] });
      expect(await store.getDocument('t1', 'doc1')).toBeNull();
      expect(await store.getDocument('t2', 'doc1')).not.toBeNull();
      expect(await store.storedContent([sha256Of('doc1'), sha256Of('doc2')])).toEqual(
        new Set([sha256Of('doc1')]),
      );
      await store.close();
    });

    it('deletes a document on its own: its entries stay, without the PDF', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      for (const project of ['p1', 'p2']) await store.createProject('t1', { id: project, name: project });
      await add(store, 't1', 'p1', paper('Kept', '10.1000/kept'), 'e1', 'doc1');
      await add(store, 't1', 'p2', paper('Kept', '10.1000/kept'), 'e2', 'doc1');
      expect(await store.deleteDocument('t1', 'doc1')).toEqual({
        orphanedContent: [sha256Of('doc1')],
        detachedEntries: 2,
      });
      expect(await store.deleteDocument('t1', 'doc1')).toBeNull();
      expect(await store.getDocument('t1', 'doc1')).toBeNull();
      expect(await store.getEntry('t1', 'p1', 'e1')).toMatchObject({
        documentId: null,
        paper: { title: 'Kept' },
      });
      expect(await store.getEntry('t1', 'p2', 'e2')).toMatchObject({ documentId: null });
      // The PDF filed again completes the same entry.
      const again = await add(store, 't1', 'p1', paper('Kept', '10.1000/kept'), 'e3', 'doc1');
      expect(again.entry).toMatchObject({ entryId: 'e1', documentId: 'doc1' });
      await store.close();
    });

    it('deletes document rows no entry holds once older than a cutoff', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await store.putDocument({ ...documentOf('t1', 'old_unfiled'), createdAt: hourAgo });
      await store.putDocument(documentOf('t1', 'new_unfiled'));
      await add(store, 't1', 'gpt', paper('Filed', '10.1000/filed'), 'e1', 'filed');
      const cutoff = new Date(Date.now() - 60_000).toISOString();
      expect(await store.deleteUnfiledDocuments(cutoff, 100)).toEqual([sha256Of('old_unfiled')]);
      expect(await store.deleteUnfiledDocuments(cutoff, 100)).toEqual([]);
      expect(await store.getDocument('t1', 'new_unfiled')).not.toBeNull();
      expect(await store.getDocument('t1', 'filed')).not.toBeNull();
      expect(await store.deleteUnfiledDocuments(new Date(Date.now() + 60_000).toISOString(), 100)).toEqual([
        sha256Of('new_unfiled'),
      ]);
      await store.close();
    });

    it('claims the release of content only while no tenant stores it, and keeps its mark until ended', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      const kept = documentOf('t1', 'kept');
      await add(store, 't1', 'gpt', paper('Kept', '10.1000/kept'), 'e1', 'kept');
      expect(await store.claimContentRelease(kept.sha256)).toBe(false);
      expect(await store.contentReleasePending(kept.sha256)).toBe(false);
      const gone = sha256Of('gone');
      expect(await store.claimContentRelease(gone)).toBe(true);
      expect(await store.contentReleasePending(gone)).toBe(true);
      // Claimed again (a sweep finishing a release a kill cut short): still one mark.
      expect(await store.claimContentRelease(gone)).toBe(true);
      expect(await store.contentReleasesStartedBefore(new Date(Date.now() + 60_000).toISOString())).toEqual([
        gone,
      ]);
      expect(await store.contentReleasesStartedBefore(new Date(Date.now() - 60_000).toISOString())).toEqual(
        [],
      );
      await store.endContentRelease(gone);
      expect(await store.contentReleasePending(gone)).toBe(false);
      await store.endContentRelease(gone);
      // Ended marks are kept (late writes to released content are leftovers) until forgotten.
      expect(await store.contentReleasesStartedBefore(new Date(Date.now() + 60_000).toISOString())).toEqual(
        [],
      );
      expect(await store.releasedContent([gone, kept.sha256])).toEqual(new Set([gone]));
      expect(await store.forgetContentReleases(new Date(Date.now() - 60_000).toISOString())).toBe(0);
      expect(await store.forgetContentReleases(new Date(Date.now() + 60_000).toISOString())).toBe(1);
      expect(await store.releasedContent([gone])).toEqual(new Set());
      // Claimed again after it ended (the same bytes stored and deleted once more): pending again.
      expect(await store.claimContentRelease(gone)).toBe(true);
      expect(await store.contentReleasePending(gone)).toBe(true);
      await store.close();
    });

    it('never lets a release claim content an add is filing unseen (release racing an add)', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureProject('t1', 'gpt');
      // Either the add's row comes first and the claim fails, or the claim comes first and the add,
      // looking right after it filed, sees the mark. A claim that succeeds while the add saw no
      // mark would delete the blobs of a filed document.
      for (let round = 0; round < 40; round += 1) {
        const document = documentOf('t1', `raced_${round}`);
        const [claimed, seen] = await Promise.all([
          store.claimContentRelease(document.sha256),
          store
            .addEntry('t1', 'gpt', {
              entryId: `e${round}`,
              paper: paper(`Raced ${round}`, `10.1000/raced${round}`),
              document,
              identityKeys: [],
            })
            .then(() => store.contentReleasePending(document.sha256)),
        ]);
        if (claimed) expect(seen, `round ${round}`).toBe(true);
        await store.endContentRelease(document.sha256);
      }
      await store.close();
    });

    it('never leaves an entry without its document when removals and adds of one PDF race', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      for (const project of ['p1', 'p2']) await store.createProject('t1', { id: project, name: project });
      for (let round = 0; round < 20; round += 1) {
        const value = paper(`Raced ${round}`, `10.1000/race${round}`);
        const document = documentOf('t1', `doc_race_${round}`);
        const file = (project: string, entryId: string) =>
          store.addEntry('t1', project, {
            entryId,
            paper: value,
            document,
            identityKeys: identityKeys(value),
          });
        await file('p1', `first${round}`);
        // The paper leaves p1 and its project p2 is deleted while it is filed again in both.
        await store.createProject('t1', { id: `gone${round}`, name: `gone${round}` });
        await file(`gone${round}`, `doomed${round}`);
        await Promise.all([
          store.removeEntry('t1', 'p1', `first${round}`),
          store.deleteProject('t1', `gone${round}`),
          file('p1', `again${round}`),
          file('p2', `other${round}`),
        ]);
        const holders = [
          ...(await store.listEntries('t1', 'p1')),
          ...(await store.listEntries('t1', 'p2')),
        ].filter((entry) => entry.documentId === document.id);
        expect(holders.length, `round ${round}`).toBeGreaterThan(0);
        expect(await store.getDocument('t1', document.id), `round ${round}`).not.toBeNull();
      }
      await store.close();
    });

    it('sums each tenant’s stored PDFs', async () => {
      const store = await create();
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      await store.putDocument(documentOf('t1', 'a', 'a', 1000));
      await store.putDocument(documentOf('t1', 'b', 'b', 234));
      await store.putDocument(documentOf('t2', 'a', 'a', 1000));
      expect(await store.storageByTenant()).toEqual([
        { tenantId: 't1', documents: 2, bytes: 1234 },
        { tenantId: 't2', documents: 1, bytes: 1000 },
      ]);
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

/**
 * Migration 0005 (decision 0049) on a store that an older release left: `open` opens (and migrates)
 * the same database each time, `forget` deletes a migration's row so the next open runs it again.
 */
export function runOthersMigrationCase(
  name: string,
  database: () => Promise<{
    open: () => Promise<ProjectStore>;
    forget: (migration: string) => Promise<void>;
  }>,
): void {
  it(`${name}: migration 0005 turns an author named "others" from an older import into "et al."`, async () => {
    const { open, forget } = await database();
    const store = await open();
    await store.ensureTenant('t1');
    await store.createProject('t1', { id: 'p1', name: 'Old import' });
    const old = { ...emptyPaper('S2ORC'), authors: ['Kyle Lo', 'Daniel Weld', 'others'], year: 2020 };
    await store.addEntry('t1', 'p1', { entryId: 'e1', paper: old, document: null, identityKeys: [] });
    const plain = { ...emptyPaper('Others in the title'), authors: ['Ada Lovelace'] };
    await store.addEntry('t1', 'p1', { entryId: 'e2', paper: plain, document: null, identityKeys: [] });
    await store.close();
    // As a release before 0049 left the database: the rows as they were, the migration not yet run.
    await forget('0005_others_is_et_al');
    const reopened = await open();
    const entries = await reopened.listEntries('t1', 'p1');
    expect(entries.map((entry) => entry.paper.authors)).toEqual([
      ['Kyle Lo', 'Daniel Weld'],
      ['Ada Lovelace'],
    ]);
    expect(entries[0]?.paper.bibliographic?.more_authors).toBe(true);
    expect(entries[1]?.paper.bibliographic).toBeUndefined();
    await reopened.close();
  });
}
