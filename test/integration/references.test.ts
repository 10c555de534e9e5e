import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContextItems, scoreContextItems } from '../../eval/lib/citation-context-score.js';
import type { ReferencesResult } from '../../src/domain/references.js';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';
import type { ParsedChunk } from '../../src/ports/pdf-extractor.js';
import { aclRecords } from '../helpers/acl-records.js';
import { connectMcp, toolText } from '../helpers/mcp-client.js';
import { multipartBody } from '../helpers/multipart.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Issue 17 parts 1, 2 and 5 through the real app: real PDFs uploaded, references parsed and linked
 * to records of the ACL Anthology corpus, citing sentences, citation contexts across a tenant's
 * PDFs, reference checking of the BibTeX fixture, and the MCP tools through the real SDK client.
 */

const pdfs = join(sharedData, 'pdfs');
const fixtureBib = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'verify-references.bib'), 'utf8');
/** ACL records the PaperMage paper cites (S2ORC, SciREX, CORD-19, …) plus the ones the fixture names. */
const aclIds = new Set([
  '2020.acl-main.447',
  '2020.acl-main.670',
  '2020.nlpcovid19-acl.1',
  'P19-1299',
  '2020.findings-emnlp.118',
  'P17-1108',
  'W18-2317',
  '2022.acl-demo.1',
  '2020.semeval-1.7',
  'W17-2903',
  '2020.coling-main.362',
  '2020.coling-main.107',
  '2021.mrqa-1.3',
  // Published versions of the fixture's two preprint citations (BART, Sentence-BERT).
  '2020.acl-main.703',
  'D19-1410',
]);

/** True (their tests are skipped) when the shared data lacks the two real papers. */
const papersMissing = needsSharedData('pdfs/papermage_emnlp2023_demo.pdf', 'pdfs/litqa_nar_gkae223.pdf');

let t: TestApp;
let baseUrl: string;
let papermagePdf = '';
let narPdf = '';

beforeAll(async () => {
  t = await createTestApp();
  await t.container.stores.index.upsert(aclRecords(aclIds));
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  if (papersMissing) return;
  const papermage = await uploadPdf(
    t,
    t.key,
    'papermage.pdf',
    readFileSync(join(pdfs, 'papermage_emnlp2023_demo.pdf')),
  );
  expect(papermage.statusCode).toBe(200);
  papermagePdf = papermage.json()[0].pdf_id;
  const nar = await uploadPdf(
    t,
    t.key,
    'nar.pdf',
    readFileSync(join(pdfs, 'litqa_nar_gkae223.pdf')),
    'project_name=Biology',
  );
  expect(nar.statusCode).toBe(200);
  narPdf = nar.json()[0].pdf_id;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const get = (url: string, key = t.key) => t.app.inject({ method: 'GET', url, headers: withKey(key) });

describe('GET /api/references', () => {
  it.skipIf(papersMissing)(
    'parses an author–year list and links cited ACL papers with their citing sentences',
    async () => {
      const response = await get(`/api/references?pdf_id=${encodeURIComponent(papermagePdf)}`);
      expect(response.statusCode).toBe(200);
      const body = response.json() as ReferencesResult;
      expect(body.style).toBe('author-year');
      expect(body.references.length).toBeGreaterThanOrEqual(45);
      const s2orc = body.references.find((reference) => /^S2ORC/.test(reference.title ?? ''));
      expect(s2orc).toMatchObject({ year: 2020, paper_id: 'DOI:10.18653/v1/2020.acl-main.447' });
      expect(s2orc?.authors[0]).toBe('Kyle Lo');
      expect(s2orc?.paper?.title).toBe('S2ORC: The Semantic Scholar Open Research Corpus');
      expect(s2orc?.match_confidence).toBeGreaterThan(0.9);
      expect(s2orc?.contexts.length).toBeGreaterThan(0);
      const context = s2orc?.contexts[0];
      expect(context?.marker).toMatch(/Lo et al\.?,? 2020/);
      expect(context?.chunk).toBeGreaterThanOrEqual(1);
      expect(context?.pages.length).toBeGreaterThan(0);
      // Entries whose work is not in the index stay unlinked rather than linked to a look-alike.
      const linked = body.references.filter((reference) => reference.paper);
      for (const reference of linked) expect(aclIds.has(reference.paper?.identifiers?.acl ?? '')).toBe(true);
      const brown = body.references.find((reference) => /few-shot learners/i.test(reference.title ?? ''));
      expect(brown?.paper).toBeNull();
      expect(body.hint).toMatch(/references, \d+ linked/);
      expect(body.hint).toContain('/api/citation_contexts?paper_id=');
    },
  );

  it.skipIf(papersMissing)(
    'parses a numbered list (NAR) with its parenthesised citations and pages',
    async () => {
      const response = await get(`/api/references?pdf_url=${encodeURIComponent(narPdf)}`);
      expect(response.statusCode).toBe(200);
      const body = response.json() as ReferencesResult;
      expect(body.style).toBe('numbered');
      expect(body.references[0]).toMatchObject({ number: 1, year: 2014, authors: ['Dorman, C.J.'] });
      expect(body.references[0]?.title).toMatch(/^Function of nucleoid-associated proteins/);
      const second = body.references.find((reference) => reference.number === 2);
      expect(second?.contexts.some((context) => /such as HU \(2\), IHF \(3\)/.test(context.sentence))).toBe(
        true,
      );
      // The sentence is on page 1 of a chunk that runs onto page 2: located on its page, with its
      // boxes there (decision 0034).
      const context = second?.contexts[0];
      expect(context?.pages).toEqual(expect.arrayContaining([1, 2]));
      expect(context?.page).toBe(1);
      expect(context?.boxes.length).toBeGreaterThan(0);
      for (const box of context?.boxes ?? []) {
        expect(box.page).toBe(1);
        expect(box.x1).toBeGreaterThan(box.x0);
        expect(box.y1).toBeGreaterThan(box.y0);
      }
    },
  );

  it.skipIf(papersMissing)('keeps another tenant out, and names the parameter of a bad request', async () => {
    const other = await t.newKey('tenant-z');
    const hidden = await get(`/api/references?pdf_id=${encodeURIComponent(papermagePdf)}`, other);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error).toMatchObject({ code: 'not_found', param: 'pdf_id' });
    const missing = await get('/api/references');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.param).toBe('pdf_id');
    const bad = await get('/api/references?pdf_id=PROJ:../etc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe('pdf_id');
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/references?pdf_id=PROJ:a/b' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('GET /api/citation_contexts', () => {
  it.skipIf(papersMissing)("returns the sentences of the caller's PDFs that cite the paper", async () => {
    const response = await get('/api/citation_contexts?paper_id=ACL:2020.acl-main.447');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.paper.title).toBe('S2ORC: The Semantic Scholar Open Research Corpus');
    expect(body.contexts.length).toBeGreaterThan(0);
    for (const context of body.contexts) {
      expect(context.pdf_id).toBe(papermagePdf);
      expect(context.sentence).toMatch(/Lo et al\.?,? 2020/);
      expect(context.reference).toMatch(/S2ORC/);
    }
    // The same paper by its DOI.
    const byDoi = await get('/api/citation_contexts?paper_id=DOI:10.18653/v1/2020.acl-main.447');
    expect(byDoi.json().contexts.length).toBe(body.contexts.length);
    // Another tenant has no stored PDF citing it.
    const other = await get(
      '/api/citation_contexts?paper_id=ACL:2020.acl-main.447',
      await t.newKey('tenant-y'),
    );
    expect(other.statusCode).toBe(200);
    expect(other.json().contexts).toEqual([]);
    expect(other.json().hint).toMatch(/None of your stored PDFs/);
  });

  it('refuses a malformed paper_id naming it', async () => {
    for (const url of [
      '/api/citation_contexts',
      '/api/citation_contexts?paper_id=FOO:1',
      '/api/citation_contexts?paper_id=DOI:nope',
    ]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.param).toBe('paper_id');
    }
  });
});

describe('POST /api/verify_references', () => {
  const expected = [...fixtureBib.matchAll(/note\s*=\s*\{expect:\s*([a-z_ ]+)\}/g)].map((match) =>
    match[1]?.trim(),
  );

  function verdicts(body: { results: Array<{ status: string; fields: string[] }> }) {
    return body.results.map((result) => [result.status, ...result.fields].join(' '));
  }

  it('answers exists, mismatch (naming the field) or not_found for every entry of a JSON body', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/verify_references',
      headers: { ...withKey(t.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ text: fixtureBib }),
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(verdicts(body)).toEqual(expected);
    expect(body.counts).toEqual({ exists: 5, mismatch: 5, not_found: 3, preprint_now_published: 2 });
    expect(body.results[0]).toMatchObject({ key: 'chen2019multisource', status: 'exists' });
    expect(body.results[0].paper.identifiers.acl).toBe('P19-1299');
  });

  it('takes the file as multipart or as the body too', async () => {
    const form = multipartBody([
      {
        name: 'file',
        filename: 'refs.bib',
        contentType: 'application/x-bibtex',
        data: Buffer.from(fixtureBib),
      },
    ]);
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/verify_references',
      headers: { ...withKey(t.key), 'content-type': form.contentType },
      payload: form.body,
    });
    expect(multipart.statusCode).toBe(200);
    expect(verdicts(multipart.json())).toEqual(expected);
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/verify_references?format=bibtex',
      headers: { ...withKey(t.key), 'content-type': 'text/plain' },
      payload: fixtureBib,
    });
    expect(raw.statusCode).toBe(200);
    expect(raw.json().counts.not_found).toBe(3);
  });

  it('refuses bad bodies with the envelope, naming the parameter', async () => {
    const cases: Array<{ type: string; payload: string; status: number; param: string }> = [
      { type: 'application/json', payload: '{"text": ', status: 400, param: 'text' },
      { type: 'application/json', payload: '{"text": ""}', status: 400, param: 'text' },
      { type: 'application/json', payload: '{"text": "x", "format": "word"}', status: 400, param: 'format' },
      { type: 'application/json', payload: '{"text": "no references here"}', status: 400, param: 'format' },
      { type: 'text/plain', payload: '@article{broken,', status: 422, param: 'file' },
    ];
    for (const item of cases) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/verify_references',
        headers: { ...withKey(t.key), 'content-type': item.type },
        payload: item.payload,
      });
      expect(response.statusCode, item.payload).toBe(item.status);
      expect(response.json().error, item.payload).toMatchObject({ param: item.param });
    }
  });
});

describe('MCP tools (real SDK client over /mcp)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(baseUrl, t.key, 'references-test');
  });
  afterAll(async () => {
    await client?.close();
  });
  const textOf = toolText;

  it.skipIf(papersMissing)(
    'get_references lists the linked references, with a hint naming the next tool calls',
    async () => {
      const result = await client.callTool({ name: 'get_references', arguments: { pdf_id: papermagePdf } });
      expect(result.isError).toBeFalsy();
      const { hint, result: value } = JSON.parse(textOf(result));
      expect(
        value.references.some(
          (reference: { paper_id: string | null }) =>
            reference.paper_id === 'DOI:10.18653/v1/2020.acl-main.447',
        ),
      ).toBe(true);
      expect(hint).toContain('get_citation_contexts(paper_id=');
      expect(hint).not.toContain('/api/');
    },
  );

  it.skipIf(papersMissing)(
    'get_citation_contexts and verify_references answer as the REST routes do',
    async () => {
      const contexts = await client.callTool({
        name: 'get_citation_contexts',
        arguments: { paper_id: 'ACL:2020.acl-main.447' },
      });
      expect(JSON.parse(textOf(contexts)).result.contexts.length).toBeGreaterThan(0);
      const checked = await client.callTool({ name: 'verify_references', arguments: { text: fixtureBib } });
      expect(JSON.parse(textOf(checked)).result.counts).toEqual({
        exists: 5,
        mismatch: 5,
        not_found: 3,
        preprint_now_published: 2,
      });
    },
  );

  it('reports a bad pdf_id as a tool error naming the parameter', async () => {
    const result = await client.callTool({ name: 'get_references', arguments: { pdf_id: 'PROJ:nope/none' } });
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ code: 'not_found', status: 404, param: 'pdf_id' });
  });
});

it('serves the references operations in /openapi.json with operationIds and short descriptions', async () => {
  const document = (await get('/openapi.json')).json();
  const operations = [
    document.paths['/api/references'].get,
    document.paths['/api/citation_contexts'].get,
    document.paths['/api/verify_references'].post,
  ];
  expect(operations.map((operation: { operationId: string }) => operation.operationId)).toEqual([
    'references',
    'citation_contexts',
    'verify_references',
  ]);
  for (const operation of operations) expect(operation.description.length).toBeLessThanOrEqual(300);
  expect(Object.keys(document.paths['/api/verify_references'].post.requestBody.content)).toEqual(
    expect.arrayContaining(['application/json', 'multipart/form-data']),
  );
  expect((t.app.server.address() as AddressInfo).port).toBeGreaterThan(0);
});

it.skipIf(needsSharedData('pdfs'))(
  'links the hand-checked citation contexts of test/fixtures/citation-contexts.json (≥ 90%)',
  async () => {
    const items = loadContextItems();
    const chunks = new Map<string, ParsedChunk[]>();
    for (const file of new Set(items.map((item) => item.file))) {
      const bytes = new Uint8Array(readFileSync(join(pdfs, file)));
      chunks.set(file, (await parseDocument(bytes, { ...defaultParseOptions, images: false })).chunks);
    }
    const score = scoreContextItems(items, (file) => chunks.get(file) ?? []);
    expect(new Set(items.map((item) => item.file)).size).toBeGreaterThanOrEqual(5);
    expect(score.accuracy, score.misses.join('\n')).toBeGreaterThanOrEqual(0.9);
  },
  120_000,
);
