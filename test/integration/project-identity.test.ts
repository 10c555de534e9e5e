import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyPdf } from '../fakes/tiny-pdf.js';
import { multipartBody } from '../helpers/multipart.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Project-entry identity and half-done add_to_project requests (issue 13, decision record 0014):
 * a shared title is no identity between two PDFs, an entry never gives up its PDF, a failed add
 * leaves no project behind, an ambiguous add is refused, and the default project is not deleted.
 */

/** A one-page PDF titled `title`, its page saying `lines` (so two of them differ in their bytes). */
const onePager = (title: string, lines: string[]) => Buffer.from(tinyPdf([[title, ...lines]], title));

const supplementOne = onePager('Supplementary Material', [
  'Copyright 2021 the authors.',
  'Table S1. Primer sequences used for qPCR.',
]);
const supplementTwo = onePager('Supplementary Material', [
  'Copyright 2021 the authors.',
  'Figure S4. Growth curves of the knockout strains at 30 degrees.',
]);

let t: TestApp;
let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/supplement.pdf') {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      return response.end(supplementOne);
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp({ ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
});

afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

type Part = Parameters<typeof multipartBody>[0][number];

const pdfPart = (bytes: Buffer, filename = 'paper.pdf', name = 'file'): Part => ({
  name,
  filename,
  contentType: 'application/pdf',
  data: bytes,
});

async function post(query: string, parts: Part[], key = t.key) {
  const form = multipartBody(parts);
  return t.app.inject({
    method: 'POST',
    url: `/api/add_to_project${query}`,
    headers: { ...withKey(key), 'content-type': form.contentType },
    payload: form.body,
  });
}

async function get(url: string, key = t.key) {
  return t.app.inject({ method: 'GET', url, headers: withKey(key) });
}

const projectNames = async (key = t.key): Promise<string[]> =>
  (await get('/api/projects', key)).json().map((project: { name: string }) => project.name);

describe('project entry identity', () => {
  it('files two different PDFs that share a title and year as two entries (silent data loss)', async () => {
    const key = await t.newKey('tenant-supplements');
    const first = await post('', [pdfPart(supplementOne, 'supp1.pdf')], key);
    const second = await post('', [pdfPart(supplementTwo, 'supp2.pdf')], key);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    const [one] = first.json();
    const [two] = second.json();
    // The regression: same title and year made the second the "same" entry and orphaned the first PDF.
    expect(one.title).toBe('Supplementary Material');
    expect(two.title).toBe('Supplementary Material');
    expect(two.year).toBe(one.year);
    expect(two.hint).toMatch(/^Added to project "gpt"/);
    expect(two.entry_id).not.toBe(one.entry_id);
    expect(two.pdf_id).not.toBe(one.pdf_id);
    for (const [paper, words] of [
      [one, 'Primer sequences'],
      [two, 'Growth curves'],
    ] as const) {
      const text = await get(`/api/fulltext?pdf_id=${encodeURIComponent(paper.pdf_id)}`, key);
      expect(text.statusCode, text.body).toBe(200);
      expect(text.body).toContain(words);
    }
    const project = (await get('/api/projects/gpt', key)).json();
    expect(project.papers.map((paper: { pdf_id: string }) => paper.pdf_id)).toEqual([one.pdf_id, two.pdf_id]);
    // The same bytes again (upload or url) are still the same entry.
    const again = await post('', [pdfPart(supplementTwo, 'renamed.pdf')], key);
    expect(again.json()[0]).toMatchObject({ entry_id: two.entry_id, pdf_id: two.pdf_id });
    const byUrl = await get(
      `/api/add_to_project?pdf_url=${encodeURIComponent(`${origin}/supplement.pdf`)}`,
      key,
    );
    expect(byUrl.json()[0]).toMatchObject({ entry_id: one.entry_id, pdf_id: one.pdf_id });
    expect((await get('/api/projects/gpt', key)).json().paper_count).toBe(2);
  });

  it('keeps the first PDF of a paper when another PDF with the same DOI is added', async () => {
    const key = await t.newKey('tenant-versions');
    const doi = '10.5555/identity.2021.7';
    const accepted = onePager('Growth of knockout strains', [`doi:${doi}`, 'Accepted manuscript.']);
    const published = onePager('Growth of knockout strains', [`doi:${doi}`, 'Published version.']);
    const [first] = (await post('', [pdfPart(accepted)], key)).json();
    expect(first.doi).toBe(doi);
    const response = await post('', [pdfPart(published)], key);
    expect(response.statusCode).toBe(200);
    const [second] = response.json();
    expect(second).toMatchObject({ entry_id: first.entry_id, pdf_id: first.pdf_id });
    expect(second.hint).toMatch(/with a different PDF .*this PDF was not filed/);
    expect(second.hint).toContain(first.entry_id);
    const text = await get(`/api/fulltext?pdf_id=${encodeURIComponent(first.pdf_id)}`, key);
    expect(text.statusCode).toBe(200);
    expect(text.body).toContain('Accepted manuscript');
    expect((await get('/api/projects/gpt', key)).json().paper_count).toBe(1);
  });

  it('completes a metadata-only entry (BibTeX import) with the PDF of the same title', async () => {
    const key = await t.newKey('tenant-bibtex');
    const bibtex = '@article{supp, title = {Supplementary Material}, year = {2021}, author = {Doe, Jane}}';
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/projects/gpt/import?format=bibtex',
      headers: { ...withKey(key), 'content-type': 'text/plain' },
      payload: bibtex,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const entryId = imported.json().papers[0].entry_id;
    const [filed] = (await post('', [pdfPart(supplementOne)], key)).json();
    expect(filed.entry_id).toBe(entryId);
    expect(filed.pdf_id).toMatch(/^PROJ:gpt\/doc_/);
    // A second, different PDF of that title does not take the first one's place.
    const [other] = (await post('', [pdfPart(supplementTwo)], key)).json();
    expect(other.entry_id).not.toBe(entryId);
    const papers = (await get('/api/projects/gpt', key)).json().papers;
    expect(papers.map((paper: { pdf_id: string }) => paper.pdf_id)).toEqual([filed.pdf_id, other.pdf_id]);
  });
});

describe('a failed or ambiguous add_to_project leaves no trace', () => {
  it('creates the named project only once a paper is filed in it', async () => {
    const key = await t.newKey('tenant-half-done');
    const notPdf = await post(
      '?project_name=Never%20made',
      [{ name: 'file', filename: 'notes.txt', contentType: 'text/plain', data: 'just notes' }],
      key,
    );
    expect(notPdf.statusCode).toBe(415);
    const unknownId = await get(
      '/api/add_to_project?paper_id=DOI:10.5555/nowhere&project_name=Never%20made',
      key,
    );
    expect(unknownId.statusCode).toBe(404);
    expect(unknownId.json().error.param).toBe('paper_id');
    const missingUrl = await get(
      `/api/add_to_project?pdf_url=${encodeURIComponent(`${origin}/gone.pdf`)}&project_name=Never%20made`,
      key,
    );
    expect(missingUrl.statusCode).toBe(502);
    expect(missingUrl.json().error.message).toContain('pdf_url');
    const empty = await post('?project_name=Never%20made', [pdfPart(Buffer.alloc(0), 'empty.pdf')], key);
    expect(empty.statusCode).toBe(415);
    expect(empty.json().error.param).toBe('file');
    expect(await projectNames(key)).toEqual(['gpt']);
    const filed = await post('?project_name=Never%20made', [pdfPart(supplementOne)], key);
    expect(filed.statusCode).toBe(200);
    expect(filed.json()[0].hint).toMatch(/^Added to project "Never made"/);
    expect(await projectNames(key)).toEqual(['gpt', 'Never made']);
  });

  it('refuses a second file, or a file beside paper_id or pdf_url, naming the parameter', async () => {
    const key = await t.newKey('tenant-ambiguous');
    const cases: Array<{ parts: Part[]; query?: string; param: string }> = [
      { parts: [pdfPart(supplementOne, 'a.pdf'), pdfPart(supplementTwo, 'b.pdf')], param: 'file' },
      { parts: [pdfPart(supplementOne), { name: 'paper_id', data: 'DOI:10.5555/x' }], param: 'paper_id' },
      { parts: [pdfPart(supplementOne)], query: '?paper_id=DOI:10.5555/x', param: 'paper_id' },
      {
        parts: [pdfPart(supplementOne)],
        query: `?pdf_url=${encodeURIComponent(`${origin}/supplement.pdf`)}`,
        param: 'pdf_url',
      },
      { parts: [pdfPart(supplementOne, 'a.pdf', 'attachment')], param: 'attachment' },
      {
        parts: [
          { name: 'project_name', data: 'One' },
          { name: 'project_name', data: 'Two' },
          pdfPart(supplementOne),
        ],
        param: 'project_name',
      },
      {
        parts: [{ name: 'project_name', data: 'One' }, pdfPart(supplementOne)],
        query: '?project_name=Two',
        param: 'project_name',
      },
    ];
    for (const { parts, query = '', param } of cases) {
      const response = await post(query, parts, key);
      expect(response.statusCode, `${param}: ${response.body}`).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_request', param });
    }
    const both = await get(
      `/api/add_to_project?paper_id=DOI:10.5555/x&url=${encodeURIComponent(`${origin}/supplement.pdf`)}`,
      key,
    );
    expect(both.statusCode).toBe(400);
    expect(both.json().error.param).toBe('paper_id');
    // Nothing was filed and no project was made by any of them.
    expect((await get('/api/projects/gpt', key)).json().paper_count).toBe(0);
    expect(await projectNames(key)).toEqual(['gpt']);
  });
});

describe('DELETE of a project', () => {
  it('refuses to delete the default project and keeps its papers (409)', async () => {
    const key = await t.newKey('tenant-delete');
    const [filed] = (await post('', [pdfPart(supplementOne)], key)).json();
    const refused = await t.app.inject({ method: 'DELETE', url: '/api/projects/gpt', headers: withKey(key) });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'conflict', param: 'id' });
    expect(refused.json().error.message).toContain('DELETE /api/projects/gpt/papers/<entry_id>');
    const project = (await get('/api/projects/gpt', key)).json();
    expect(project.papers.map((paper: { pdf_id: string }) => paper.pdf_id)).toEqual([filed.pdf_id]);
    expect((await get(`/api/fulltext?pdf_id=${encodeURIComponent(filed.pdf_id)}`, key)).statusCode).toBe(200);
    // The way the message gives empties it; a named project is deleted as before.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/gpt/papers/${filed.entry_id}`,
      headers: withKey(key),
    });
    expect(removed.statusCode).toBe(200);
    expect((await get('/api/projects/gpt', key)).json().paper_count).toBe(0);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Scratch',
      headers: withKey(key),
    });
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/${created.json().id}`,
      headers: withKey(key),
    });
    expect(deleted.statusCode).toBe(200);
    expect(await projectNames(key)).toEqual(['gpt']);
  });

  it('documents the 409 of DELETE /api/projects/{id} in the OpenAPI description', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = spec.paths['/api/projects/{id}'].delete;
    expect(Object.keys(operation.responses)).toContain('409');
    expect(operation.description).toMatch(/"gpt" always exists and is not deleted/);
  });
});
