import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { IndexClause, IndexQuery, PaperIndex } from '../../src/ports/paper-index.js';

const term = (text: string): IndexClause => ({ kind: 'term', text });
const phrase = (text: string): IndexClause => ({ kind: 'phrase', text });

function paper(title: string, fields: Partial<Paper> = {}): Paper {
  const year = fields.year === undefined ? 2020 : fields.year;
  const date = year === null ? null : String(year);
  return { ...emptyPaper(title), type: 'conference-paper', year, publication_date: date, ...fields };
}

/** A relevance search of papers, first page of ten, with `fields` changed. */
export function query(fields: Partial<IndexQuery>): IndexQuery {
  return {
    kind: 'paper',
    must: [],
    should: [],
    peerReviewedOnly: false,
    sort: 'relevance',
    offset: 0,
    limit: 10,
    ...fields,
  };
}

const titles = (page: { papers: Paper[] }) => page.papers.map((record) => record.title);

/**
 * The behaviour every PaperIndex adapter must have. Each adapter's test file calls this with a
 * factory that returns a fresh, empty index.
 */
export function runPaperIndexContract(name: string, create: () => Promise<PaperIndex>): void {
  describe(`PaperIndex contract: ${name}`, () => {
    it('stores records and finds them by a title word, fields intact', async () => {
      const index = await create();
      const record = paper('Neural Machine Translation of Rare Words with Subword Units', {
        authors: ['Rico Sennrich', 'Barry Haddow', 'Alexandra Birch'],
        abstract: 'Neural machine translation models typically operate with a fixed vocabulary.',
        doi: '10.18653/v1/p16-1162',
        url: 'https://aclanthology.org/P16-1162',
        pdf_url: 'https://aclanthology.org/P16-1162.pdf',
        pdf_id: 'PDF_URL:https://aclanthology.org/P16-1162.pdf',
        venue: 'ACL',
        year: 2016,
        publication_date: '2016-08',
        identifiers: { doi: '10.18653/v1/p16-1162', acl: 'P16-1162' },
        cited_by_count: 5000,
      });
      expect(await index.upsert([record])).toEqual({ inserted: 1, merged: 0, unchanged: 0 });
      const page = await index.search(query({ should: [term('subword')] }));
      expect(page.total).toBe(1);
      expect(page.papers[0]).toMatchObject({
        title: record.title,
        authors: record.authors,
        abstract: record.abstract,
        doi: '10.18653/v1/p16-1162',
        pdf_id: 'PDF_URL:https://aclanthology.org/P16-1162.pdf',
        year: 2016,
        publication_date: '2016-08',
        cited_by_count: 5000,
        identifiers: { acl: 'P16-1162' },
      });
      expect(page.scores[0]).toBeGreaterThan(0);
      expect(await index.count()).toEqual({ papers: 1, patents: 0 });
      await index.close();
    });

    it('is idempotent: the same records again change nothing', async () => {
      const index = await create();
      const records = [
        paper('Deep contextualized word representations', { identifiers: { acl: 'N18-1202' } }),
        paper('Attention is all you need for everything', { identifiers: { arxiv: '1706.03762' } }),
        paper('A record with no identifier at all here', {}),
      ];
      expect(await index.upsert(records)).toEqual({ inserted: 3, merged: 0, unchanged: 0 });
      expect(await index.upsert(records)).toEqual({ inserted: 0, merged: 0, unchanged: 3 });
      const twice = paper('The same record twice in one batch', { doi: '10.1000/twice' });
      expect(await index.upsert([twice, { ...twice, cited_by_count: 7 }])).toEqual({
        inserted: 1,
        merged: 1,
        unchanged: 0,
      });
      expect((await index.findByKeys(['doi:10.1000/twice']))?.cited_by_count).toBe(7);
      expect(await index.count()).toEqual({ papers: 4, patents: 0 });
      const page = await index.search(query({ should: [term('identifier')] }));
      expect(page.total).toBe(1);
      await index.close();
    });

    it('merges the same paper from two sources: known values win, citations take the maximum', async () => {
      const index = await create();
      const fromAnthology = paper('BERT: Pre-training of Deep Bidirectional Transformers', {
        year: 2019,
        identifiers: { acl: 'N19-1423' },
        abstract: 'We introduce a new language representation model called BERT.',
        pdf_url: 'https://aclanthology.org/N19-1423.pdf',
        cited_by_count: 10,
      });
      const fromCrossref = paper('BERT: Pre-training of Deep Bidirectional Transformers', {
        year: 2019,
        publication_date: '2019-06-02',
        doi: '10.18653/v1/N19-1423',
        identifiers: { doi: '10.18653/v1/n19-1423' },
        venue: 'NAACL',
        cited_by_count: 90000,
      });
      const fromS2 = paper('BERT: pre-training of deep bidirectional transformers', {
        year: 2019,
        identifiers: { doi: '10.18653/v1/n19-1423', ss_id: 'df2b0e26d0599ce3e70df8a9da02e51594e0e992' },
        ss_id: 'df2b0e26d0599ce3e70df8a9da02e51594e0e992',
        cited_by_count: 500,
      });
      await index.upsert([fromAnthology]);
      expect(await index.upsert([fromCrossref])).toEqual({ inserted: 0, merged: 1, unchanged: 0 });
      expect(await index.upsert([fromS2])).toEqual({ inserted: 0, merged: 1, unchanged: 0 });
      expect(await index.count()).toEqual({ papers: 1, patents: 0 });
      const merged = await index.findByKeys(['acl:N19-1423']);
      expect(merged).toMatchObject({
        title: 'BERT: Pre-training of Deep Bidirectional Transformers',
        abstract: 'We introduce a new language representation model called BERT.',
        doi: '10.18653/v1/N19-1423',
        venue: 'NAACL',
        publication_date: '2019-06-02',
        cited_by_count: 90000,
        ss_id: 'df2b0e26d0599ce3e70df8a9da02e51594e0e992',
        pdf_url: 'https://aclanthology.org/N19-1423.pdf',
        identifiers: { acl: 'N19-1423', doi: '10.18653/v1/n19-1423' },
      });
      expect((await index.findByKeys(['s2:df2b0e26d0599ce3e70df8a9da02e51594e0e992']))?.title).toBe(
        merged?.title,
      );
      const page = await index.search(query({ should: [term('bidirectional')] }));
      expect(page.total).toBe(1);
      await index.close();
    });

    it('never merges on title alone when identifiers conflict (patents share titles)', async () => {
      const index = await create();
      const first = paper('Semiconductor device and method of manufacturing the same', {
        type: 'patent',
        patent_number: 'US6336130',
        identifiers: { patent_number: 'US6336130' },
      });
      const second = paper('Semiconductor device and method of manufacturing the same', {
        type: 'patent',
        patent_number: 'US6859910',
        identifiers: { patent_number: 'US6859910' },
      });
      expect(await index.upsert([first, second])).toEqual({ inserted: 2, merged: 0, unchanged: 0 });
      expect(await index.count()).toEqual({ papers: 0, patents: 2 });
      await index.close();
    });

    it('folds two stored records together when a new record proves they are one paper', async () => {
      const index = await create();
      await index.upsert([
        paper('Preprint version title of a paper', {
          identifiers: { arxiv: '2101.00001' },
          type: 'preprint',
        }),
        paper('Published version title of the paper', {
          doi: '10.1000/xyz',
          identifiers: { doi: '10.1000/xyz' },
        }),
      ]);
      const bridge = paper('Published version title of the paper', {
        doi: '10.1000/xyz',
        identifiers: { doi: '10.1000/xyz', arxiv: '2101.00001' },
      });
      expect(await index.upsert([bridge])).toEqual({ inserted: 0, merged: 1, unchanged: 0 });
      expect(await index.count()).toEqual({ papers: 1, patents: 0 });
      // The monitoring figure follows the fold too (PostgreSQL keeps it in a statistics row).
      expect(await index.stats()).toEqual({ records: 1 });
      const record = await index.findByKeys(['arxiv:2101.00001']);
      expect(record?.type).toBe('conference-paper');
      expect(record?.identifiers).toMatchObject({ arxiv: '2101.00001', doi: '10.1000/xyz' });
      await index.close();
    });

    it('counts its records for monitoring: papers and patents, merges, a refused batch', async () => {
      const index = await create();
      expect(await index.stats()).toEqual({ records: 0 });
      await index.upsert([
        paper('Counting records for an operator', { doi: '10.1/count-a' }),
        paper('A second record to count', { doi: '10.1/count-b' }),
        paper('A patent to count', {
          type: 'patent',
          patent_number: 'US1234567',
          identifiers: { patent_number: 'US1234567' },
        }),
      ]);
      expect(await index.stats()).toEqual({ records: 3 });
      // The same paper again merges: still three.
      await index.upsert([paper('Counting records for an operator', { doi: '10.1/count-a', venue: 'ACL' })]);
      await expect(index.upsert([paper('One more'), paper('')])).rejects.toMatchObject({
        code: 'unprocessable',
      });
      expect(await index.stats()).toEqual({ records: 3 });
      const { papers, patents } = await index.count();
      expect(papers + patents).toBe(3);
      await index.close();
    });

    it('writes a batch all or nothing', async () => {
      const index = await create();
      await expect(index.upsert([paper('A fine record to keep'), paper('')])).rejects.toMatchObject({
        code: 'unprocessable',
      });
      expect(await index.count()).toEqual({ papers: 0, patents: 0 });
      await index.close();
    });

    it('changes its data version with every committed change, and no two indexes share one', async () => {
      const index = await create();
      const other = await create();
      const empty = await index.dataVersion();
      expect(empty).not.toBe(await other.dataVersion());
      await index.upsert([paper('Dependency parsing with graph neural networks', { doi: '10.1000/dv1' })]);
      const one = await index.dataVersion();
      expect(one).not.toBe(empty);
      await index.upsert([paper('Dependency parsing with graph neural networks', { doi: '10.1000/dv1' })]);
      expect(await index.dataVersion()).toBe(one); // an unchanged re-run commits nothing
      await index.upsert([
        paper('Dependency parsing with graph neural networks', { doi: '10.1000/dv1', cited_by_count: 9 }),
      ]);
      const merged = await index.dataVersion();
      expect(merged).not.toBe(one);
      await expect(index.upsert([emptyPaper('')])).rejects.toThrow();
      expect(await index.dataVersion()).toBe(merged); // a rolled-back batch neither
      await index.close();
      await other.close();
    });

    it('lets an untitled record complete a stored paper it shares an identifier with', async () => {
      const index = await create();
      await index.upsert([
        paper('Paper known first without its abstract', { identifiers: { corpus_id: '42' } }),
      ]);
      const abstractOnly = paper('', {
        abstract: 'The abstract, from a second dataset.',
        identifiers: { corpus_id: '42' },
      });
      expect(await index.upsert([abstractOnly])).toEqual({ inserted: 0, merged: 1, unchanged: 0 });
      expect(await index.findByKeys(['corpus:42'])).toMatchObject({
        title: 'Paper known first without its abstract',
        abstract: 'The abstract, from a second dataset.',
      });
      await expect(index.upsert([paper('', { identifiers: { corpus_id: '43' } })])).rejects.toMatchObject({
        code: 'unprocessable',
      });
      await index.close();
    });

    it('keeps the bibliographic fields of a record (0049)', async () => {
      const index = await create();
      const bibliographic = {
        author_names: [{ family: 'García Márquez', given: 'Ana' }],
        editors: [{ family: 'Brown', given: 'Alice' }],
        volume: '12',
        issue: '3',
        pages: '101–130',
        publisher: 'Example Academic',
        place: 'Zürich',
        isbn: '978-3-16-148410-0',
        keywords: ['deltas'],
      };
      await index.upsert([
        paper('Sediment budgets of small deltas', {
          doi: '10.5555/deltas',
          authors: ['Ana García Márquez'],
          bibliographic,
        }),
      ]);
      expect((await index.findByKeys(['doi:10.5555/deltas']))?.bibliographic).toEqual(bibliographic);
      await index.close();
    });

    it('finds by identity keys and returns null for unknown ones', async () => {
      const index = await create();
      await index.upsert([paper('Known paper with a digital object identifier', { doi: '10.5555/abc' })]);
      expect((await index.findByKeys(['pmid:1', 'doi:10.5555/abc']))?.title).toBe(
        'Known paper with a digital object identifier',
      );
      expect(await index.findByKeys(['doi:10.5555/nothing'])).toBeNull();
      await index.close();
    });

    describe('record vectors', () => {
      /** A unit vector of 384 dimensions, spread like a sentence embedding's, one per seed. */
      const unit = (seed: number): Float32Array => {
        const vector = new Float32Array(384).map((_, i) => Math.sin((i + 1) * (seed + 1) * 12.9898) * 0.5);
        let norm = 0;
        for (const value of vector) norm += value * value;
        return vector.map((value) => value / Math.sqrt(norm));
      };
      const cosine = (a: Float32Array, b: Float32Array) =>
        a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);
      const model = 'test:model-a';

      async function vectorIndex() {
        const index = await create();
        const { recordsWithoutVectors, putRecordVectors, recordVectors, vectorCoverage, recordsByIds } =
          index;
        if (
          !recordsWithoutVectors ||
          !putRecordVectors ||
          !recordVectors ||
          !vectorCoverage ||
          !recordsByIds
        ) {
          throw new Error('this adapter stores no record vectors');
        }
        return index as Required<PaperIndex>;
      }

      it('lists records without vectors by id, stores vectors and returns them close to what was put', async () => {
        const index = await vectorIndex();
        await index.upsert([
          paper('Graph neural networks for molecules', { doi: '10.1/a', abstract: 'Message passing.' }),
          paper('Dense retrieval of scientific claims', { doi: '10.1/b' }),
          paper('Quantised sentence embeddings', { doi: '10.1/c' }),
        ]);
        const missing = await index.recordsWithoutVectors(model, 0, 10);
        expect(missing.map((record) => record.paper.title)).toEqual([
          'Graph neural networks for molecules',
          'Dense retrieval of scientific claims',
          'Quantised sentence embeddings',
        ]);
        expect(missing[0]?.paper.abstract).toBe('Message passing.');
        const ids = missing.map((record) => record.id);
        expect([...ids].sort((a, b) => a - b)).toEqual(ids);
        // Paging by id: after the first, two are left; a limit is respected.
        expect((await index.recordsWithoutVectors(model, ids[0] as number, 1)).map((r) => r.id)).toEqual([
          ids[1],
        ]);
        const stored = await index.putRecordVectors(
          model,
          missing.slice(0, 2).map((record, i) => ({ id: record.id, stamp: record.stamp, vector: unit(i) })),
        );
        expect(stored).toBe(2);
        expect((await index.recordsWithoutVectors(model, 0, 10)).map((r) => r.id)).toEqual([ids[2]]);
        // Another model has none yet.
        expect(await index.recordsWithoutVectors('test:model-b', 0, 10)).toHaveLength(3);
        const vectors = await index.recordVectors(model, ids);
        expect([...vectors.keys()].sort()).toEqual([ids[0], ids[1]].sort());
        expect(cosine(vectors.get(ids[0] as number) as Float32Array, unit(0))).toBeGreaterThan(0.999);
        expect(cosine(vectors.get(ids[1] as number) as Float32Array, unit(0))).toBeLessThan(0.5);
        expect(await index.recordVectors('test:model-b', ids)).toEqual(new Map());
        expect(await index.vectorCoverage(model)).toEqual({ withVectors: 2, records: 3 });
        // The backlog /metrics and `alexandria status` show: per model.
        expect(await index.stats(model)).toEqual({ records: 3, vectors: { model, stored: 2, pending: 1 } });
        expect(await index.stats('test:model-b')).toEqual({
          records: 3,
          vectors: { model: 'test:model-b', stored: 0, pending: 3 },
        });
        await index.close();
      });

      it('gives search results their ids, the ones vectors are keyed by', async () => {
        const index = await vectorIndex();
        await index.upsert([
          paper('Contrastive learning of sentence embeddings'),
          paper('Sentence boundary detection'),
        ]);
        const page = await index.search(query({ should: [term('sentence')] }));
        expect(page.ids).toHaveLength(2);
        const missing = await index.recordsWithoutVectors(model, 0, 10);
        const idOf = new Map(missing.map((record) => [record.paper.title, record.id]));
        expect(page.ids).toEqual(page.papers.map((record) => idOf.get(record.title)));
        // Ids only, then the records of some of them.
        const bare = await index.search(query({ should: [term('sentence')], withoutRecords: true }));
        expect(bare.ids).toEqual(page.ids);
        expect(bare.total).toBe(2);
        const byId = await index.recordsByIds?.([...(page.ids ?? [])].reverse().concat([9_999_999]));
        expect([...(byId?.entries() ?? [])].map(([id, record]) => [id, record.title]).sort()).toEqual(
          page.papers.map((record, i) => [page.ids?.[i], record.title]).sort(),
        );
        await index.close();
      });

      it('drops a vector when a re-upsert changes the title or abstract, keeps it for other changes', async () => {
        const index = await vectorIndex();
        await index.upsert([
          paper('Protein folding with attention', { doi: '10.2/a', abstract: 'First abstract.' }),
          paper('Citation intent classification', { doi: '10.2/b', abstract: 'Kept abstract.' }),
        ]);
        const missing = await index.recordsWithoutVectors(model, 0, 10);
        await index.putRecordVectors(
          model,
          missing.map((record, i) => ({ id: record.id, stamp: record.stamp, vector: unit(i) })),
        );
        expect(await index.recordsWithoutVectors(model, 0, 10)).toEqual([]);
        // A new abstract for the first, only more citations for the second.
        await index.upsert([
          paper('Protein folding with attention', { doi: '10.2/a', abstract: 'A longer, revised abstract.' }),
          paper('Citation intent classification', {
            doi: '10.2/b',
            abstract: 'Kept abstract.',
            cited_by_count: 40,
          }),
        ]);
        const again = await index.recordsWithoutVectors(model, 0, 10);
        expect(again.map((record) => record.paper.abstract)).toEqual(['A longer, revised abstract.']);
        expect((await index.recordVectors(model, [missing[1]?.id as number])).size).toBe(1);
        await index.close();
      });

      it('refuses a vector computed from a version the record no longer has', async () => {
        const index = await vectorIndex();
        await index.upsert([paper('Sparse attention patterns', { doi: '10.3/a', abstract: 'Old text.' })]);
        const [record] = await index.recordsWithoutVectors(model, 0, 10);
        if (!record) throw new Error('expected the record');
        // Changed while its vector was being computed.
        await index.upsert([
          paper('Sparse attention patterns', {
            doi: '10.3/a',
            abstract: 'New and longer text of the abstract.',
          }),
        ]);
        expect(await index.putRecordVectors(model, [{ ...record, vector: unit(3) }])).toBe(0);
        const [fresh] = await index.recordsWithoutVectors(model, 0, 10);
        expect(fresh?.paper.abstract).toBe('New and longer text of the abstract.');
        expect(
          await index.putRecordVectors(model, [
            { id: fresh?.id as number, stamp: fresh?.stamp as string, vector: unit(3) },
          ]),
        ).toBe(1);
        // A record that no longer exists is skipped too.
        expect(await index.putRecordVectors(model, [{ id: 9_999_999, stamp: 'x', vector: unit(1) }])).toBe(0);
        await index.close();
      });

      it('loses the vector of a record folded into another', async () => {
        const index = await vectorIndex();
        await index.upsert([
          paper('Preprint version title of a paper', {
            identifiers: { arxiv: '2101.00001' },
            type: 'preprint',
          }),
          paper('Published version title of the paper', {
            doi: '10.1000/xyz',
            identifiers: { doi: '10.1000/xyz' },
          }),
        ]);
        const before = await index.recordsWithoutVectors(model, 0, 10);
        expect(before).toHaveLength(2);
        await index.putRecordVectors(
          model,
          before.map((record, i) => ({ id: record.id, stamp: record.stamp, vector: unit(i) })),
        );
        // A record proves they are one paper: one record is left, with its id.
        await index.upsert([
          paper('Published version title of the paper', {
            doi: '10.1000/xyz',
            identifiers: { doi: '10.1000/xyz', arxiv: '2101.00001' },
          }),
        ]);
        const page = await index.search(query({ should: [term('version')] }));
        expect(page.ids).toHaveLength(1);
        const survivor = page.ids?.[0] as number;
        const left = await index.recordVectors(
          model,
          before.map((record) => record.id),
        );
        expect([...left.keys()].every((id) => id === survivor)).toBe(true);
        expect((await index.vectorCoverage(model)).records).toBe(1);
        expect((await index.vectorCoverage(model)).withVectors).toBe(left.size);
        await index.close();
      });
    });

    describe('search', () => {
      const corpus: Paper[] = [
        paper('Low-resource machine translation with back-translation', {
          abstract: 'We translate between languages with little parallel data.',
          year: 2018,
          publication_date: '2018-07-15',
          cited_by_count: 40,
        }),
        paper('Translation memories for the machine age', {
          abstract: 'A machine that stores past translation work.',
          year: 2016,
          cited_by_count: 400,
        }),
        paper('Sentiment analysis of product reviews', {
          abstract: 'Reviews are classified; machine translation is not used.',
          year: 2020,
          publication_date: '2020-01-02',
          cited_by_count: null,
        }),
        paper('Machine translation survey preprint', { type: 'preprint', year: 2021 }),
        paper('Undated machine translation note', { year: null, publication_date: null }),
        paper('Abstract mention only', {
          abstract: 'Here machine translation appears only in the abstract.',
        }),
        paper('Wireless charging coil arrangement', {
          type: 'patent',
          patent_number: 'US10510317B2',
          identifiers: { patent_number: 'US10510317B2' },
          abstract: 'A coil for wireless charging of a mobile device.',
          assignees: ['Example Corp'],
          year: 2019,
        }),
        paper('Wireless charging pad application', {
          type: 'patent-application',
          patent_number: 'US20190000001A1',
          year: 2019,
        }),
      ];
      const seeded = async () => {
        const index = await create();
        await index.upsert(corpus);
        return index;
      };

      it('requires every must clause and ranks title matches above abstract matches', async () => {
        const index = await seeded();
        const page = await index.search(query({ must: [term('machine'), term('translation')] }));
        expect(titles(page)).toContain('Abstract mention only');
        expect(titles(page)).not.toContain('Wireless charging coil arrangement');
        expect(titles(page).indexOf('Abstract mention only')).toBeGreaterThan(
          titles(page).indexOf('Low-resource machine translation with back-translation'),
        );
        const both = await index.search(query({ must: [term('sentiment'), term('translation')] }));
        expect(titles(both)).toEqual(['Sentiment analysis of product reviews']);
        await index.close();
      });

      it('matches phrases exactly and any should clause when nothing is required', async () => {
        const index = await seeded();
        const exact = await index.search(query({ must: [phrase('machine translation')] }));
        expect(titles(exact)).not.toContain('Translation memories for the machine age');
        const loose = await index.search(query({ should: [term('memories'), term('sentiment')] }));
        expect(titles(loose).sort()).toEqual([
          'Sentiment analysis of product reviews',
          'Translation memories for the machine age',
        ]);
        const stemmed = await index.search(query({ should: [term('translating')] }));
        expect(stemmed.total).toBeGreaterThan(0);
        await index.close();
      });

      it('filters years inclusively, excluding undated records, and keeps reviewed types only on request', async () => {
        const index = await seeded();
        const inRange = await index.search(
          query({ must: [term('translation')], startYear: 2016, endYear: 2018 }),
        );
        expect(titles(inRange).sort()).toEqual([
          'Low-resource machine translation with back-translation',
          'Translation memories for the machine age',
        ]);
        const from = await index.search(query({ must: [term('translation')], startYear: 2021 }));
        expect(titles(from)).toEqual(['Machine translation survey preprint']);
        const none = await index.search(
          query({ must: [term('translation')], startYear: 1990, endYear: 1995 }),
        );
        expect(none).toMatchObject({ papers: [], total: 0 });
        const reviewed = await index.search(query({ must: [term('translation')], peerReviewedOnly: true }));
        expect(titles(reviewed)).not.toContain('Machine translation survey preprint');
        expect(titles(reviewed)).toContain('Undated machine translation note');
        await index.close();
      });

      it('searches patents separately, by phrase and by number', async () => {
        const index = await seeded();
        const granted = await index.search(
          query({ kind: 'patent', must: [phrase('wireless charging')], peerReviewedOnly: true }),
        );
        expect(titles(granted)).toEqual(['Wireless charging coil arrangement']);
        expect(granted.papers[0]).toMatchObject({
          patent_number: 'US10510317B2',
          assignees: ['Example Corp'],
        });
        const all = await index.search(query({ kind: 'patent', must: [term('wireless')] }));
        expect(all.total).toBe(2);
        const byNumber = await index.search(query({ kind: 'patent', should: [term('US10510317B2')] }));
        expect(titles(byNumber)).toEqual(['Wireless charging coil arrangement']);
        const papersOnly = await index.search(query({ must: [term('wireless')] }));
        expect(papersOnly.total).toBe(0);
        await index.close();
      });

      it('sorts by citations and by date, newest first, unknown values last', async () => {
        const index = await seeded();
        const base = { must: [term('translation')], startYear: 2016, endYear: 2020 };
        const cited = await index.search(query({ ...base, sort: 'cited_by_count' }));
        expect(titles(cited).slice(0, 2)).toEqual([
          'Translation memories for the machine age',
          'Low-resource machine translation with back-translation',
        ]);
        expect(cited.papers.at(-1)?.cited_by_count ?? null).toBeNull();
        const recent = await index.search(query({ ...base, sort: 'publication_date' }));
        expect(titles(recent)[0]).toBe('Sentiment analysis of product reviews');
        expect(recent.papers.map((record) => record.year)).toEqual([2020, 2020, 2018, 2016]);
        await index.close();
      });

      it('pages with offset and limit and reports the total', async () => {
        const index = await seeded();
        const all = await index.search(query({ should: [term('translation')], limit: 100 }));
        const first = await index.search(query({ should: [term('translation')], limit: 2 }));
        const second = await index.search(query({ should: [term('translation')], limit: 2, offset: 2 }));
        expect(first.total).toBe(all.papers.length);
        expect(first.totalIsExact).toBe(true);
        expect([...titles(first), ...titles(second)]).toEqual(titles(all).slice(0, 4));
        const past = await index.search(query({ should: [term('translation')], offset: 50 }));
        expect(past.papers).toEqual([]);
        await index.close();
      });

      it('treats query-language syntax as plain text', async () => {
        const index = await seeded();
        for (const text of ['"', 'AND', 'title:', 'NEAR(a b)', '(', '*', "'; DROP TABLE papers; --", '   ']) {
          await expect(index.search(query({ should: [term(text)] }))).resolves.toBeDefined();
          await expect(index.search(query({ must: [phrase(text)] }))).resolves.toBeDefined();
        }
        const quoted = await index.search(query({ should: [term('"sentiment"')] }));
        expect(titles(quoted)).toEqual(['Sentiment analysis of product reviews']);
        expect(await index.count()).toEqual({ papers: 6, patents: 2 });
        await index.close();
      });
    });
  });
}
