import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsSharedData } from '../../test/helpers/requirements.js';
import { createSqlitePaperIndex } from '../adapters/sqlite/sqlite-paper-index.js';
import { fixtures, recordedBodies, sharedData, testFixtures } from './formats/test-support.js';
import { resolveInputs } from './ingest-inputs.js';
import { ingest } from './ingest-pipeline.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-idempotency-'));
  // Recorded API answers, written out as the files a user would ingest.
  const openalex = recordedBodies('openalex', /api\.openalex\.org\/works\//);
  await writeFile(
    join(folder, 'openalex-works.jsonl'),
    openalex.map((body) => JSON.stringify(JSON.parse(body))).join('\n'),
  );
  const crossref = recordedBodies('crossref', /api\.crossref\.org\/works\?/).filter((body) =>
    body.includes('"work-list"'),
  );
  await writeFile(join(folder, 'crossref-page.json'), crossref[0] ?? '');
  // A BEIR corpus in our own words (SciFact, the real one, is CC BY-NC and stays in the shared data).
  await writeFile(
    join(folder, 'beir-corpus.jsonl'),
    ['Deltas grow where rivers slow down.', 'Glaciers carve valleys.', 'Dunes migrate downwind.']
      .map((text, index) => JSON.stringify({ _id: String(100 + index), title: `Landforms ${index}`, text }))
      .join('\n'),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** One real sample (or fixture, where shared data has none) per shipped format. */
const samples: Array<[format: string, path: () => string]> = [
  ['jsonl (ACL Anthology sample)', () => join(testFixtures, 'corpus/acl_anthology_sample_500.jsonl')],
  ['beir', () => join(folder, 'beir-corpus.jsonl')],
  ['openalex', () => join(folder, 'openalex-works.jsonl')],
  ['crossref', () => join(folder, 'crossref-page.json')],
  ['semantic-scholar', () => join(fixtures, 's2-papers-dataset.jsonl')],
  ['arxiv', () => join(fixtures, 'arxiv-metadata-snapshot.jsonl')],
  ['arxiv-atom', () => join(testFixtures, 'upstream/arxiv/responses/arxiv.py_2016')],
  ['csl-json', () => join(fixtures, 'references.csl.json')],
  ['bibtex', () => join(fixtures, 'references.bib')],
  ['ris', () => join(fixtures, 'references.ris')],
  ['pubmed', () => join(testFixtures, 'upstream/pubmed_eutils/responses/biopython/pubmed4.xml')],
  ['acl-xml', () => join(fixtures, 'acl-anthology-P19.xml')],
  ['uspto', () => join(testFixtures, 'patents/uspto_xml')],
  ['patentsview', () => join(fixtures, 'patentsview')],
];

describe('re-ingesting is a no-op for every format (issue 13)', () => {
  it.each(samples)('%s: a second run adds nothing', async (_format, path) => {
    const index = await createSqlitePaperIndex(join(folder, `index-${Math.random()}.db`));
    try {
      const run = async () =>
        ingest(index, await resolveInputs(path(), Readable.from([])), { batchSize: 500 });
      const first = await run();
      expect(first.inserted).toBeGreaterThan(0);
      const counted = await index.count();
      const second = await run();
      expect({ inserted: second.inserted, merged: second.merged }).toEqual({ inserted: 0, merged: 0 });
      expect(second.unchanged).toBe(first.inserted + first.merged + first.unchanged);
      expect(await index.count()).toEqual(counted);
    } finally {
      await index.close();
    }
  });

  // The large real corpora, where the shared data is there.
  for (const [format, file] of [
    ['jsonl (ML Anthology 2024)', 'corpus/mlanthology_2024.jsonl.gz'],
    ['beir (SciFact)', 'eval/scifact/corpus.jsonl.gz'],
  ] as const) {
    it.skipIf(needsSharedData(file))(`${format}: a second run adds nothing`, async () => {
      const index = await createSqlitePaperIndex(join(folder, `index-${Math.random()}.db`));
      try {
        const run = async () =>
          ingest(index, await resolveInputs(join(sharedData, file), Readable.from([])), { batchSize: 500 });
        const first = await run();
        expect(first.inserted).toBeGreaterThan(0);
        const second = await run();
        expect({ inserted: second.inserted, merged: second.merged }).toEqual({ inserted: 0, merged: 0 });
      } finally {
        await index.close();
      }
    });
  }

  it.skipIf(needsSharedData('corpus/mlanthology_2024.jsonl.gz'))(
    'ML Anthology: the four short-titled papers are found again by their OpenReview id or JMLR page',
    async () => {
      const index = await createSqlitePaperIndex(join(folder, 'index-ml.db'));
      try {
        const path = join(sharedData, 'corpus/mlanthology_2024.jsonl.gz');
        await ingest(index, await resolveInputs(path, Readable.from([])));
        for (const key of [
          'openreview:sP1tCl2QBk',
          'openreview:DYIIRgwg2i',
          'openreview:gctmyMiPHH',
          'jmlr:v25/21-1334',
        ]) {
          expect((await index.findByKeys([key]))?.title, key).toMatch(
            /^(Fiber Monte Carlo|The LLM Surgeon|Feature Collapse|Kernel Thinning)$/,
          );
        }
        expect((await index.findByKeys(['pmlr:v235/abad-rocamora24a']))?.identifiers).toMatchObject({
          openreview: 'AZWqXfM6z9',
          pmlr: 'v235/abad-rocamora24a',
        });
      } finally {
        await index.close();
      }
    },
  );
});
