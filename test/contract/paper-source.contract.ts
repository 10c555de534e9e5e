import { describe, expect, it } from 'vitest';
import { identifierKey, type PaperIdentifier } from '../../src/domain/identifiers.js';
import { identityKeys, type Paper, paperSchema } from '../../src/domain/paper.js';
import type { PaperSource, SourceQuery } from '../../src/ports/paper-source.js';
import type { PatentSource } from '../../src/ports/patent-source.js';
import type { ReplayFetch } from '../fakes/recorded-fetch.js';

/** A source under test, answering from recordings through `fetch`. */
export interface PaperSourceFixture {
  source: PaperSource;
  fetch: ReplayFetch;
  /** An identifier the recordings resolve. */
  known: PaperIdentifier;
  /** An identifier the recordings answer "not found" for. */
  unknown: PaperIdentifier;
  /** A query the recordings answer, when the source searches. */
  query?: SourceQuery;
}

/** Every record a source returns is a valid spec record of that source. */
function expectRecord(paper: Paper, sourceName: string): void {
  expect(paperSchema.safeParse(paper).success).toBe(true);
  expect(paper.title.length).toBeGreaterThan(0);
  expect(paper.source).toBe(sourceName);
  for (const field of ['abstract', 'publication_date', 'cited_by_count', 'url', 'ss_id', 'doi'] as const) {
    expect(paper[field], `${field} is null, never undefined`).not.toBeUndefined();
  }
  if (paper.pdf_url) expect(paper.pdf_id).toBe(`PDF_URL:${paper.pdf_url}`);
  else expect(paper.pdf_id).toBeUndefined();
}

/** The behaviour every `PaperSource` adapter must have (lookup, not-found, search shape). */
export function runPaperSourceContract(name: string, create: () => PaperSourceFixture): void {
  describe(`PaperSource contract: ${name}`, () => {
    it('has a stable snake_case name and declares what it can look up', () => {
      const { source } = create();
      expect(source.name).toMatch(/^[a-z][a-z_]*$/);
      expect(Array.isArray(source.lookupTypes)).toBe(true);
    });

    it('resolves a known identifier to a record that carries it', async () => {
      const { source, known } = create();
      expect(source.lookupTypes).toContain(known.type);
      const paper = await source.lookup?.(known);
      expect(paper).not.toBeNull();
      expectRecord(paper as Paper, source.name);
      expect(identityKeys(paper as Paper).map((key) => key.toLowerCase())).toContain(
        identifierKey(known).toLowerCase(),
      );
    });

    it('answers null, not an error, for an identifier it does not know', async () => {
      const { source, unknown } = create();
      expect(await source.lookup?.(unknown)).toBeNull();
    });

    it('answers null without any request for identifier types it does not handle', async () => {
      const { source, fetch } = create();
      const unsupported = (['DOI', 'PMID', 'PMCID', 'ARXIV', 'MAG', 'ACL'] as const).find(
        (type) => !source.lookupTypes.includes(type),
      );
      if (!unsupported || !source.lookup) return;
      const value = {
        DOI: '10.1000/x',
        PMID: '1',
        PMCID: 'PMC1',
        ARXIV: '2101.00001',
        MAG: '1',
        ACL: 'P19-1001',
      }[unsupported];
      expect(await source.lookup({ type: unsupported, value })).toBeNull();
      expect(fetch.calls).toHaveLength(0);
    });

    it('searches: at most `limit` valid records, best first', async () => {
      const { source, query } = create();
      if (!source.search || !query) return;
      const page = await source.search(query);
      expect(page.papers.length).toBeGreaterThan(0);
      expect(page.papers.length).toBeLessThanOrEqual(query.limit);
      for (const paper of page.papers) expectRecord(paper, source.name);
      if (page.total !== null) expect(page.total).toBeGreaterThanOrEqual(page.papers.length);
    });
  });
}

/** The behaviour every `PatentSource` adapter must have. */
export function runPatentSourceContract(
  name: string,
  create: () => { source: PatentSource; query: SourceQuery },
): void {
  describe(`PatentSource contract: ${name}`, () => {
    it('returns patents as valid records with patent numbers', async () => {
      const { source, query } = create();
      const page = await source.searchPatents(query);
      expect(page.papers.length).toBeGreaterThan(0);
      expect(page.papers.length).toBeLessThanOrEqual(query.limit);
      for (const paper of page.papers) {
        expectRecord(paper, source.name);
        expect(paper.type === 'patent' || paper.type === 'patent-application').toBe(true);
        expect(paper.patent_number ?? paper.identifiers?.patent_number).toBeTruthy();
      }
    });
  });
}
