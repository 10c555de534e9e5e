import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { upstreamData } from '../fakes/recorded-fetch.js';
import { aclRecords } from '../helpers/acl-records.js';
import { editorialPdf } from '../helpers/generated-pdfs.js';
import { connectMcp, toolText } from '../helpers/mcp-client.js';
import { multipartBody } from '../helpers/multipart.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Issue 17 part 5, the rest: `verify_references` on a PDF's own reference list (uploaded, stored,
 * or sent as the body) and `preprint_now_published`, offline against a real index — ACL Anthology
 * records, the real OpenAlex records of ChemCrow's arXiv preprint and its Nature Machine
 * Intelligence version (from a recorded OpenAlex answer), and the arXiv form of BART (the shared
 * corpora hold no preprint records, so this one is written from the ACL record and its arXiv id).
 */

const pdfs = join(sharedData, 'pdfs');
/** Multi-LexSum, a real paper citing 64 works (shared data: the checks of its list skip without it). */
const lexSumMissing = needsSharedData('pdfs/multi_lexsum_2206.10883v3.pdf');
let multiLexSum: Buffer;
/** A generated editorial (no reference list), stored for the refusals. */
let editorial: Buffer;

/** ACL records Multi-LexSum cites, most of them printed as arXiv preprints. */
const aclIds = new Set(['2020.acl-main.703', '2020.emnlp-main.648', 'D19-1410', 'D19-5406', 'P17-1099']);

interface OpenAlexWork {
  title: string;
  doi: string;
  publication_year: number;
  publication_date: string;
  type: string;
  ids: { openalex: string };
  primary_location: { source: { display_name: string } | null } | null;
  authorships: Array<{ author: { display_name: string } }>;
}

/** The two records of the recorded OpenAlex title search for "Augmenting large language models with chemistry tools". */
function chemCrowRecords(): Paper[] {
  const line = readFileSync(join(upstreamData, 'openalex', 'interactions.jsonl'), 'utf8')
    .split('\n')
    .find((item) => item.includes('title.search%3AAugmenting+large+language+models'));
  if (!line) throw new Error('no recorded OpenAlex search for ChemCrow');
  const { body } = JSON.parse(line) as { body: string };
  return (JSON.parse(body) as { results: OpenAlexWork[] }).results.map((work) => {
    const doi = work.doi.replace('https://doi.org/', '').toLowerCase();
    const arxiv = /^10\.48550\/arxiv\.(.+)$/.exec(doi)?.[1] ?? null;
    return {
      ...emptyPaper(work.title),
      authors: work.authorships.map((authorship) => authorship.author.display_name),
      year: work.publication_year,
      publication_date: work.publication_date,
      venue: work.primary_location?.source?.display_name ?? null,
      type: work.type === 'preprint' ? 'preprint' : 'journal-article',
      doi,
      identifiers: { doi, openalex: work.ids.openalex.replace('https://openalex.org/', ''), arxiv },
    };
  });
}

/** BART as arXiv lists it: the ACL record's title and authors, arXiv's id, date and DataCite DOI. */
function bartPreprint(published: Paper): Paper {
  return {
    ...published,
    year: 2019,
    publication_date: '2019-10-29',
    venue: 'arXiv',
    type: 'preprint',
    doi: '10.48550/arxiv.1910.13461',
    identifiers: { arxiv: '1910.13461', doi: '10.48550/arxiv.1910.13461' },
  };
}

let t: TestApp;
let storedPdf = '';
let storedEditorial = '';
let baseUrl = '';

beforeAll(async () => {
  // A 2 MiB upload limit, so a real PDF above it can be refused.
  t = await createTestApp({ ALEXANDRIA_UPLOAD_MAX_MB: '2' });
  const acl = aclRecords(aclIds);
  const bart = acl.find((paper) => paper.identifiers?.acl === '2020.acl-main.703');
  if (!bart) throw new Error('BART is not in the ACL corpus');
  await t.container.stores.index.upsert([...acl, bartPreprint(bart), ...chemCrowRecords()]);
  editorial = await editorialPdf();
  const filed = await uploadPdf(t, t.key, 'editorial.pdf', editorial);
  expect(filed.statusCode).toBe(200);
  storedEditorial = filed.json()[0].pdf_id;
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  if (lexSumMissing) return;
  multiLexSum = readFileSync(join(pdfs, 'multi_lexsum_2206.10883v3.pdf'));
  const added = await uploadPdf(t, t.key, 'multi-lexsum.pdf', multiLexSum);
  expect(added.statusCode).toBe(200);
  storedPdf = added.json()[0].pdf_id;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

interface Checked {
  index: number;
  key: string | null;
  title: string | null;
  status: string;
  fields: string[];
  raw?: string;
  paper: Paper | null;
  preprint: Paper | null;
  published: Paper | null;
}

const post = (url: string, payload: string | Buffer, contentType: string, key = t.key) =>
  t.app.inject({ method: 'POST', url, headers: { ...withKey(key), 'content-type': contentType }, payload });

const byTitle = (results: Checked[], pattern: RegExp) =>
  results.find((result) => pattern.test(result.title ?? ''));

/** What every form of the Multi-LexSum check must say. */
function expectMultiLexSum(results: Checked[], counts: Record<string, number>) {
  expect(results).toHaveLength(64);
  expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(64);
  // "Bart: … arXiv preprint arXiv:1910.13461, 2019": the arXiv record, published at ACL 2020.
  const bart = byTitle(results, /^Bart: Denoising/i);
  expect(bart).toMatchObject({ status: 'preprint_now_published' });
  expect(bart?.raw).toMatch(/arXiv:1910\.13461/);
  expect(bart?.preprint?.identifiers?.arxiv).toBe('1910.13461');
  expect(bart?.published?.identifiers?.acl).toBe('2020.acl-main.703');
  // "Multi-xscience … arXiv preprint arXiv:2010.14235, 2020": only the EMNLP record is known.
  const xscience = byTitle(results, /^Multi-xscience/i);
  expect(xscience).toMatchObject({ status: 'preprint_now_published', preprint: null });
  expect(xscience?.published?.identifiers?.acl).toBe('2020.emnlp-main.648');
  // BillSum is cited in its workshop proceedings, with its DOI: it exists as written.
  expect(byTitle(results, /^BillSum/)).toMatchObject({ status: 'exists' });
  expect(byTitle(results, /^BillSum/)?.paper?.identifiers?.acl).toBe('D19-5406');
  // Works the index does not hold are not_found, not matched to look-alikes.
  const notFound = results.filter((result) => result.status === 'not_found');
  expect(notFound.length).toBeGreaterThan(40);
  for (const result of results) {
    if (result.paper) expect(aclIds.has(result.paper.identifiers?.acl ?? '') || result.preprint).toBeTruthy();
  }
}

describe('POST /api/verify_references with a PDF', () => {
  it.skipIf(lexSumMissing)('checks an uploaded PDF’s reference list (multipart file)', async () => {
    const form = multipartBody([
      { name: 'file', filename: 'multi-lexsum.pdf', contentType: 'application/pdf', data: multiLexSum },
    ]);
    const response = await post('/api/verify_references', form.body, form.contentType);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.pdf_id).toBeUndefined();
    expectMultiLexSum(body.results, body.counts);
    expect(body.hint).toMatch(/cite a preprint whose published version is known/);
  });

  it.skipIf(lexSumMissing)(
    'checks a stored PDF by pdf_id (JSON body or query) and a PDF sent as the body',
    async () => {
      const json = await post(
        '/api/verify_references',
        JSON.stringify({ pdf_id: storedPdf }),
        'application/json',
      );
      expect(json.statusCode, json.body).toBe(200);
      expect(json.json().pdf_id).toBe(storedPdf);
      expectMultiLexSum(json.json().results, json.json().counts);
      const query = await t.app.inject({
        method: 'POST',
        url: `/api/verify_references?pdf_id=${encodeURIComponent(storedPdf)}`,
        headers: withKey(t.key),
      });
      expect(query.statusCode, query.body).toBe(200);
      expect(query.json().counts).toEqual(json.json().counts);
      const raw = await post('/api/verify_references', multiLexSum, 'application/pdf');
      expect(raw.statusCode, raw.body).toBe(200);
      expect(raw.json().counts).toEqual(json.json().counts);
    },
  );

  it('answers a PDF without a reference list with no entries and says why', async () => {
    const response = await post('/api/verify_references', editorial, 'application/pdf');
    expect(response.statusCode).toBe(200);
    expect(response.json().results).toEqual([]);
    expect(response.json().hint).toMatch(/No reference list was found/);
  });

  it('refuses wrong, missing, too large and foreign inputs with the envelope naming the parameter', async () => {
    const notPdf = multipartBody([
      { name: 'file', filename: 'paper.pdf', contentType: 'application/pdf', data: 'this is no PDF' },
    ]);
    // Over the 2 MiB upload limit: the size is refused before anything is parsed.
    const tooLarge = multipartBody([
      {
        name: 'file',
        filename: 'large.pdf',
        contentType: 'application/pdf',
        data: Buffer.concat([editorial, Buffer.alloc(2.2 * 1024 * 1024, 32)]),
      },
    ]);
    const both = multipartBody([
      { name: 'pdf_id', data: storedEditorial },
      { name: 'file', filename: 'editorial.pdf', contentType: 'application/pdf', data: editorial },
    ]);
    const cases: Array<{
      name: string;
      payload: string | Buffer;
      type: string;
      status: number;
      param: string;
    }> = [
      { name: 'not a PDF', payload: notPdf.body, type: notPdf.contentType, status: 415, param: 'file' },
      { name: 'PDF body not a PDF', payload: 'hello', type: 'application/pdf', status: 415, param: 'file' },
      {
        name: 'broken PDF',
        payload: Buffer.concat([editorial.subarray(0, 2000), Buffer.from('%%EOF\n')]),
        type: 'application/pdf',
        status: 422,
        param: 'file',
      },
      { name: 'too large', payload: tooLarge.body, type: tooLarge.contentType, status: 413, param: 'file' },
      { name: 'file and pdf_id', payload: both.body, type: both.contentType, status: 400, param: 'file' },
      { name: 'empty JSON', payload: '{}', type: 'application/json', status: 400, param: 'text' },
      {
        name: 'text and pdf_id',
        payload: JSON.stringify({ text: '@misc{a, title={A}}', pdf_id: storedEditorial }),
        type: 'application/json',
        status: 400,
        param: 'pdf_id',
      },
      {
        name: 'empty pdf_id',
        payload: '{"pdf_id": ""}',
        type: 'application/json',
        status: 400,
        param: 'pdf_id',
      },
      {
        name: 'pdf_id a number',
        payload: '{"pdf_id": 7}',
        type: 'application/json',
        status: 400,
        param: 'pdf_id',
      },
      { name: 'unknown field', payload: '{"pdf": "x"}', type: 'application/json', status: 400, param: 'pdf' },
      {
        name: 'unknown document',
        payload: '{"pdf_id": "PROJ:nope/none"}',
        type: 'application/json',
        status: 404,
        param: 'pdf_id',
      },
    ];
    for (const item of cases) {
      const response = await post('/api/verify_references', item.payload, item.type);
      expect(response.statusCode, `${item.name}: ${response.body}`).toBe(item.status);
      expect(response.json().error, item.name).toMatchObject({ param: item.param });
    }
    // Another tenant cannot check this tenant's stored PDF.
    const other = await post(
      '/api/verify_references',
      JSON.stringify({ pdf_id: storedEditorial }),
      'application/json',
      await t.newKey('tenant-q'),
    );
    expect(other.statusCode).toBe(404);
    expect(other.json().error).toMatchObject({ code: 'not_found', param: 'pdf_id' });
  });
});

describe('preprint_now_published in a bibliography', () => {
  const bib = `
@misc{lewis2019bart,
  title = {{BART}: Denoising Sequence-to-Sequence Pre-training for Natural Language Generation, Translation, and Comprehension},
  author = {Lewis, Mike and Liu, Yinhan and Goyal, Naman},
  year = {2019},
}
@inproceedings{lewis2020bart,
  title = {{BART}: Denoising Sequence-to-Sequence Pre-training for Natural Language Generation, Translation, and Comprehension},
  author = {Lewis, Mike and Liu, Yinhan and Goyal, Naman and Ghazvininejad, Marjan and Mohamed, Abdelrahman and Levy, Omer and Stoyanov, Veselin and Zettlemoyer, Luke},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  doi = {10.18653/v1/2020.acl-main.703},
}
@article{bran2023chemcrow,
  title = {ChemCrow: Augmenting large-language models with chemistry tools},
  author = {Bran, Andres M. and Cox, Sam and White, Andrew D. and Schwaller, Philippe},
  journal = {arXiv preprint arXiv:2304.05376},
  year = {2023},
}
@article{bran2024augmenting,
  title = {Augmenting large language models with chemistry tools},
  author = {Bran, Andres M. and Cox, Sam and Schilter, Oliver and Baldassari, Carlo and White, Andrew D. and Schwaller, Philippe},
  journal = {Nature Machine Intelligence},
  year = {2024},
  doi = {10.1038/s42256-024-00832-8},
}
`;

  it('names the matched preprint and its published version; the published citation exists', async () => {
    const response = await post('/api/verify_references', JSON.stringify({ text: bib }), 'application/json');
    expect(response.statusCode, response.body).toBe(200);
    const results = response.json().results as Checked[];
    expect(results.map((result) => [result.key, result.status])).toEqual([
      ['lewis2019bart', 'preprint_now_published'],
      ['lewis2020bart', 'exists'],
      ['bran2023chemcrow', 'preprint_now_published'],
      ['bran2024augmenting', 'exists'],
    ]);
    // An undated-venue 2019 citation finds the arXiv record, not the proceedings.
    expect(results[0]?.preprint).toMatchObject({ venue: 'arXiv', year: 2019 });
    expect(results[0]?.paper?.identifiers?.arxiv).toBe('1910.13461');
    expect(results[0]?.published?.identifiers?.acl).toBe('2020.acl-main.703');
    expect(results[1]?.paper?.identifiers?.acl).toBe('2020.acl-main.703');
    expect(results[1]).toMatchObject({ preprint: null, published: null });
    expect(results[2]?.preprint).toMatchObject({
      title: 'ChemCrow: Augmenting large-language models with chemistry tools',
    });
    expect(results[2]?.published).toMatchObject({
      doi: '10.1038/s42256-024-00832-8',
      venue: 'Nature Machine Intelligence',
    });
    expect(response.json().counts).toEqual({
      exists: 2,
      mismatch: 0,
      not_found: 0,
      preprint_now_published: 2,
    });
  });
});

describe('MCP verify_references with pdf_id', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(baseUrl, t.key, 'verify-pdf-test');
  });
  afterAll(async () => {
    await client?.close();
  });
  const textOf = toolText;

  it.skipIf(lexSumMissing)(
    'checks a stored PDF’s list as the REST route does, and names a missing input',
    async () => {
      const rest = await post(
        '/api/verify_references',
        JSON.stringify({ pdf_id: storedPdf }),
        'application/json',
      );
      const result = await client.callTool({ name: 'verify_references', arguments: { pdf_id: storedPdf } });
      expect(result.isError).toBeFalsy();
      const { result: value, hint } = JSON.parse(textOf(result));
      expect(value.pdf_id).toBe(storedPdf);
      expect(value.counts).toEqual(rest.json().counts);
      const bart = value.results.find((item: Checked) => /^Bart/i.test(item.title ?? ''));
      expect(bart.published.paper_id ?? bart.published.title).toBeTruthy();
      expect(hint).not.toContain('/api/');
      const missing = await client.callTool({ name: 'verify_references', arguments: {} });
      expect(missing.isError).toBe(true);
      expect(missing._meta).toMatchObject({ status: 400, param: 'text' });
    },
  );
});
