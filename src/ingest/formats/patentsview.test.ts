import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { patentsViewCompanionFiles, readPatentsView, readPatentsViewTable } from './patentsview.js';
import { fileInput, fixtures, papersOf, readAll } from './test-support.js';

const folder = join(fixtures, 'patentsview');
const table = (name: string) => fileInput(join(folder, name));

async function collect(items: AsyncIterable<import('../ingest-item.js').IngestItem>) {
  const out = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('PatentsView tables', () => {
  it('joins inventors, assignees, abstracts and filing dates to the patent table in one pass', async () => {
    const items = await collect(
      readPatentsView(table('g_patent.tsv'), {
        inventors: table(patentsViewCompanionFiles.inventors),
        assignees: table(patentsViewCompanionFiles.assignees),
        abstracts: table(patentsViewCompanionFiles.abstracts),
        applications: table(patentsViewCompanionFiles.applications),
      }),
    );
    const papers = papersOf(items, false);
    expect(papers.map((paper) => paper.patent_number)).toEqual([
      'US6336130',
      'US6859910',
      'US7272630',
      'US8926509',
      'US8927118',
    ]);
    expect(papers[2]).toMatchObject({
      title:
        'Locating potentially identical objects across multiple computers based on stochastic partitioning of workload',
      authors: ['John R. Douceur', 'Marvin M. Theimer', 'Atul Adya', 'William J. Bolosky'],
      assignees: ['Microsoft Corporation'],
      publication_date: '2007-09-18',
      filing_date: '2004-11-18',
      kind: 'B2',
      type: 'patent',
      identifiers: { patent_number: 'US7272630' },
      url: 'https://patents.google.com/patent/US7272630B2',
      source: 'patentsview',
    });
    expect(papers[2]?.abstract).toMatch(
      /^Potentially identical objects \(e\.g\., files\) are located across multiple computers/,
    );
    // A line break inside a quoted abstract is kept as part of the field.
    expect(papers[3]?.abstract).toMatch(
      /^The present invention provides methods, devices, and systems for wireless physiological sensor patches/,
    );
    // No assignee rows for this patent; an inventor row of a patent missing from g_patent is skipped.
    expect(papers[1]).toMatchObject({ authors: ['John Charles Croy'], assignees: [] });
    expect(items.filter((item) => !item.ok)).toEqual([
      { ok: false, reason: 'patent 7272631 was withdrawn', location: 'line 5' },
      { ok: false, reason: 'row has 3 fields, the header 8', location: 'line 8' },
    ]);
  });

  it('reads the patent table alone (no names) and explains a companion table given alone', async () => {
    const papers = papersOf(await readAll(readPatentsViewTable, table('g_patent.tsv')), false);
    expect(papers).toHaveLength(5);
    expect(papers[0]).toMatchObject({
      title: 'Arrangement for improving availability of services in a communication system',
      authors: [],
      abstract: null,
    });
    const items = await readAll(readPatentsViewTable, table(patentsViewCompanionFiles.inventors));
    expect(items).toEqual([
      {
        ok: false,
        reason: 'the PatentsView inventors table: ingest g_patent.tsv, which reads its companion tables',
        location: 'line 1',
      },
    ]);
  });

  it('reads the legacy patent.tsv with the abstract in the patent table', async () => {
    const legacy =
      'id\ttype\tnumber\tcountry\tdate\tabstract\ttitle\tkind\tnum_claims\tfilename\twithdrawn\n' +
      '7272630\tutility\t7272630\tUS\t2007-09-18\tPotentially identical objects are located.\tLocating potentially identical objects\tB2\t17\tipg070918.xml\t0\n';
    const [paper] = papersOf(await readAll(readPatentsViewTable, textInput(legacy)));
    expect(paper).toMatchObject({
      patent_number: 'US7272630',
      abstract: 'Potentially identical objects are located.',
      kind: 'B2',
    });
  });
});
