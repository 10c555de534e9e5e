import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { multipartBody } from '../helpers/multipart.js';
import { needsPoppler, needsSharedData, sharedData } from '../helpers/requirements.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * The documents endpoints over HTTP on small PDFs written by pdfkit (and one real paper of the
 * shared data, for a figure stored as JPEG): add_to_project (upload, url, paper_id),
 * fulltext, question, signed figures, and the refusals (SSRF, traversal, limits, hostile PDFs).
 * Every PDF of the shared data goes through the whole path in documents-pdfs.test.ts.
 */
const pdfDir = join(sharedData, 'pdfs');
// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
const editorial = await editorialPdf();
const knownPaper = await gaugingReportPdf(10);
const figurePaper = await figurePaperPdf();

/** The words poppler's pdftotext prints with their centre inside one of `boxes` (page fractions). */
function popplerWordsIn(
  path: string,
  boxes: Array<{ page: number; x0: number; y0: number; x1: number; y1: number }>,
): string[] {
  const html = execFileSync('pdftotext', ['-bbox', path, '-'], { encoding: 'utf8' });
  const words: string[] = [];
  let page = 0;
  let width = 1;
  let height = 1;
  for (const match of html.matchAll(
    /<page width="([\d.]+)" height="([\d.]+)">|<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g,
  )) {
    if (match[1]) {
      page++;
      width = Number(match[1]);
      height = Number(match[2]);
      continue;
    }
    const x = (Number(match[3]) + Number(match[5])) / 2 / width;
    const y = (Number(match[4]) + Number(match[6])) / 2 / height;
    if (boxes.some((box) => box.page === page && x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1))
      words.push((match[7] ?? '').replace(/[^\p{L}\p{N}]/gu, ''));
  }
  return words;
}

let t: TestApp;
let closedApp: TestApp;
let server: Server;
let origin = '';
let hits = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits++;
    switch (request.url) {
      case '/editorial.pdf':
        response.writeHead(200, { 'content-type': 'application/pdf' });
        return response.end(editorial);
      case '/open-access/known.pdf':
        response.writeHead(200, { 'content-type': 'application/pdf' });
        return response.end(knownPaper);
      case '/page.html':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html><body>Not a PDF</body></html>');
      case '/huge.pdf':
        response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': 3 * 1024 * 1024 });
        return response.end(
          Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024 - 9, 32)]),
        );
      case '/to-metadata':
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return response.end();
      default:
        response.writeHead(404);
        return response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = {
    ALEXANDRIA_PUBLIC_URL: 'http://alexandria.test',
    ALEXANDRIA_UPLOAD_MAX_MB: '2',
    ALEXANDRIA_FETCH_MAX_MB: '2',
  };
  t = await createTestApp({ ...env, ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
  closedApp = await createTestApp(env);
  // The local index knows two papers: one with an open PDF (served by the loopback server), one without.
  const known: Paper[] = [
    {
      ...emptyPaper('Yearly report of the river gauging network'),
      identifiers: { arxiv: '2304.02623' },
      year: 2023,
      venue: 'arXiv',
      pdf_url: `${origin}/open-access/known.pdf`,
    },
    {
      ...emptyPaper('A paper without an open PDF'),
      doi: '10.5555/closed',
      identifiers: { doi: '10.5555/closed', pmid: '31452104' },
    },
  ];
  await t.container.stores.index.upsert(known);
});

afterAll(async () => {
  await t.close();
  await closedApp.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function upload(app: TestApp, bytes: Buffer, query = '', filename = 'paper.pdf', key = app.key) {
  const form = multipartBody([{ name: 'file', filename, contentType: 'application/pdf', data: bytes }]);
  return app.app.inject({
    method: 'POST',
    url: `/api/add_to_project${query}`,
    headers: { ...withKey(key), 'content-type': form.contentType },
    payload: form.body,
  });
}

async function get(url: string, key = t.key, app = t) {
  return app.app.inject({ method: 'GET', url, headers: withKey(key) });
}

describe('add_to_project', () => {
  let editorialRef = '';

  it('files a multipart upload with metadata read from the PDF', async () => {
    const response = await upload(t, editorial);
    expect(response.statusCode, response.body).toBe(200);
    const [paper] = response.json();
    expect(paper.title).toBe('Vaccination and treatment of COVID-19 in immunosuppressed patients');
    expect(paper.doi).toBe('10.5555/alexandria.editorial.2024');
    expect(paper.pdf_id).toMatch(/^PROJ:gpt\/doc_[0-9a-f]{24}$/);
    expect(paper.hint).toContain(`pdf_id=${paper.pdf_id}`);
    editorialRef = paper.pdf_id;
  });

  it('is idempotent: the same PDF again is the same entry, by upload, raw body or url', async () => {
    const again = (await upload(t, editorial, '', 'renamed.pdf')).json()[0];
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project',
      headers: { ...withKey(t.key), 'content-type': 'application/pdf' },
      payload: editorial,
    });
    const byUrl = await get(`/api/add_to_project?pdf_url=${encodeURIComponent(`${origin}/editorial.pdf`)}`);
    for (const paper of [again, raw.json()[0], byUrl.json()[0]]) {
      expect(paper.pdf_id).toBe(editorialRef);
      expect(paper.hint).toMatch(/^Already in project "gpt"/);
    }
    const project = (await get('/api/projects/gpt')).json();
    expect(project.papers.filter((paper: { pdf_id?: string }) => paper.pdf_id === editorialRef)).toHaveLength(
      1,
    );
  });

  it('accepts the url as pdf_url or url, in the query, a JSON body or a form field, into a named project', async () => {
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project',
      headers: withKey(t.key),
      payload: { url: `${origin}/editorial.pdf`, project_name: 'Vaccines' },
    });
    expect(json.statusCode).toBe(200);
    expect(json.json()[0].pdf_id).toMatch(/^PROJ:prj_[a-z0-9]+\/doc_/);
    const form = multipartBody([
      { name: 'pdf_url', data: `PDF_URL:${origin}/editorial.pdf` },
      { name: 'project_name', data: 'Vaccines' },
    ]);
    const viaForm = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project',
      headers: { ...withKey(t.key), 'content-type': form.contentType },
      payload: form.body,
    });
    expect(viaForm.json()[0].entry_id).toBe(json.json()[0].entry_id);
  });

  it('resolves paper_id through the index: stores the open PDF, or files metadata only with a hint', async () => {
    const withPdf = await get('/api/add_to_project?paper_id=ARXIV:2304.02623v1&project_id=gpt');
    expect(withPdf.statusCode).toBe(200);
    expect(withPdf.json()[0]).toMatchObject({
      title: 'Yearly report of the river gauging network',
      venue: 'arXiv',
    });
    expect(withPdf.json()[0].pdf_id).toMatch(/^PROJ:gpt\/doc_/);
    const closed = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project?paper_id=PMID:31452104',
      headers: withKey(t.key),
    });
    expect(closed.json()[0].pdf_id).toBeUndefined();
    expect(closed.json()[0].hint).toMatch(/metadata only/);
    const again = await get('/api/add_to_project?paper_id=DOI:10.5555/closed');
    expect(again.json()[0].entry_id).toBe(closed.json()[0].entry_id);
    const unknown = await get('/api/add_to_project?paper_id=DOI:10.5555/unknown');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.param).toBe('paper_id');
    const malformed = await get('/api/add_to_project?paper_id=ISBN:123');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.param).toBe('paper_id');
  });

  it('refuses an empty request, non-PDFs (415) and oversized uploads (413)', async () => {
    expect((await get('/api/add_to_project')).statusCode).toBe(400);
    const text = await upload(t, Buffer.from('just some text, not a PDF'), '', 'notes.txt');
    expect(text.statusCode).toBe(415);
    expect(text.json().error.param).toBe('file');
    const html = await get(`/api/add_to_project?pdf_url=${encodeURIComponent(`${origin}/page.html`)}`);
    expect(html.statusCode).toBe(415);
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2 * 1024 * 1024 + 10, 32)]);
    expect((await upload(t, big)).statusCode).toBe(413);
    const remoteBig = await get(`/api/add_to_project?pdf_url=${encodeURIComponent(`${origin}/huge.pdf`)}`);
    expect(remoteBig.statusCode).toBe(413);
  });

  it('answers 422 for broken and hostile PDFs, stores nothing, and stays healthy', async () => {
    const before = (await get('/api/projects/gpt')).json().papers.length;
    const hostile = [
      Buffer.concat([
        Buffer.from('%PDF-1.7\n'),
        Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)),
      ]),
      Buffer.from(
        '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF',
      ),
      editorial.subarray(0, 2000),
    ];
    for (const bytes of hostile) {
      const response = await upload(t, bytes, '', 'hostile.pdf');
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe('unprocessable');
    }
    expect((await get('/api/projects/gpt')).json().papers.length).toBe(before);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await get(`/api/fulltext?pdf_id=${editorialRef}`)).statusCode).toBe(200);
  });
});

describe('SSRF through the HTTP surface', () => {
  it('refuses loopback urls with the switch off (the server is never reached) and fetches them with it on', async () => {
    const url = encodeURIComponent(`${origin}/editorial.pdf`);
    const before = hits;
    for (const path of [`/api/add_to_project?pdf_url=${url}`, `/api/fulltext?pdf_url=${url}`]) {
      const refused = await get(path, closedApp.key, closedApp);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'invalid_request', param: 'pdf_url' });
      expect(refused.json().error.message).toMatch(/loopback/);
    }
    expect(hits).toBe(before);
    expect((await get(`/api/fulltext?pdf_url=${url}`)).statusCode).toBe(200);
  });

  it('refuses other schemes, localhost and a redirect to the metadata address', async () => {
    for (const target of ['file:///etc/passwd', 'ftp://example.org/a.pdf', `${origin}/to-metadata`]) {
      const response = await get(`/api/fulltext?pdf_id=${encodeURIComponent(target)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.param).toBe('pdf_id');
    }
    const localhost = await get('/api/fulltext?pdf_id=http://localhost/a.pdf', closedApp.key, closedApp);
    expect(localhost.statusCode).toBe(400);
    expect(localhost.json().error.message).toMatch(/localhost resolves to a refused address/);
  });
});

describe('fulltext', () => {
  let ref = '';
  beforeAll(async () => {
    ref = (await upload(t, editorial)).json()[0].pdf_id;
  });

  it('reads chunks by pdf_id or pdf_url with hints; 0 reads 1; out of range names chunk and the range', async () => {
    const first = await get(`/api/fulltext?pdf_id=${ref}`);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.chunks[0].chunk_num).toBe(1);
    expect(body.chunks[0].pdf_url).toBe(ref);
    expect(body.chunks[0].chunk).toMatch(/People whose immune defences are weakened carry a higher risk/);
    const zero = (await get(`/api/fulltext?pdf_url=${ref}&chunk=0`)).json();
    expect(zero.chunks[0].chunk).toBe(body.chunks[0].chunk);
    const total = body.total_chunk_num;
    expect(body.hint).toBe(
      total === 1
        ? 'This document has a single chunk; you have read all of it.'
        : `Read chunk 2 of ${total} next with chunk=2.`,
    );
    const beyond = await get(`/api/fulltext?pdf_id=${ref}&chunk=${total + 1}`);
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().error.param).toBe('chunk');
    expect(beyond.json().error.message).toContain(`between 1 and ${total}`);
    expect((await get(`/api/fulltext?pdf_id=${ref}&chunk=-1`)).json().error.param).toBe('chunk');
    expect((await get('/api/fulltext')).json().error.param).toBe('pdf_url');
  });

  it('keeps PROJ paths inside the tenant (traversal and other tenants)', async () => {
    const documentId = ref.split('/')[1];
    for (const attempt of [
      'PROJ:../x',
      'PROJ:gpt/../../etc/passwd',
      'PROJ:gpt/..%2f..%2fetc',
      'PROJ:%2e%2e/x',
      'PROJ:gpt/%252e%252e',
      'PROJ:/etc/passwd',
      'PROJ:gpt/doc/../x',
    ]) {
      const response = await get(`/api/fulltext?pdf_id=${attempt}`);
      expect([400, 404]).toContain(response.statusCode);
      expect(response.json().error.param).toBe('pdf_id');
    }
    const otherKey = await t.newKey('tenant-other');
    const other = await get(`/api/fulltext?pdf_id=${ref}`, otherKey);
    expect(other.statusCode).toBe(404);
    const guessed = await get(`/api/fulltext?pdf_id=PROJ:gpt/doc_${'0'.repeat(24)}`);
    expect(guessed.statusCode).toBe(404);
    // The other tenant's own copy of the same bytes is theirs, under their own project.
    const theirs = (await upload(t, editorial, '', 'paper.pdf', otherKey)).json()[0];
    expect(theirs.pdf_id).toBe(`PROJ:gpt/${documentId}`);
    expect((await get(`/api/fulltext?pdf_id=${theirs.pdf_id}`, otherKey)).statusCode).toBe(200);
  });

  it('serves figures through signed links; a tampered link is 403', async () => {
    const paper = (await upload(t, figurePaper)).json()[0];
    const first = (await get(`/api/fulltext?pdf_id=${paper.pdf_id}`)).json();
    const links: string[] = [];
    for (let chunk = 1; chunk <= first.total_chunk_num; chunk++) {
      links.push(
        ...(await get(`/api/fulltext?pdf_id=${paper.pdf_id}&chunk=${chunk}`)).json().chunks[0].img_mds,
      );
    }
    expect(links.length).toBeGreaterThan(0);
    const match =
      /^!\[Figure (\d+), page (\d+)[^\]]*\]\((http:\/\/alexandria\.test(\/files\/figures\/[0-9a-f]{64}\/[\w-]+\.png\?exp=\d+&sig=[\w-]+))\)$/.exec(
        links[0] ?? '',
      );
    expect(match).not.toBeNull();
    const path = match?.[4] ?? '';
    const image = await t.app.inject({ method: 'GET', url: path });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const tampered = [
      path.replace(/sig=([\w-])/, (_all, first) => `sig=${first === 'A' ? 'B' : 'A'}`),
      path.replace(/exp=(\d+)/, (_all, exp) => `exp=${Number(exp) + 1}`),
      path.replace(
        /\/files\/figures\/([0-9a-f])/,
        (_all, first) => `/files/figures/${first === 'a' ? 'b' : 'a'}`,
      ),
      path.replace(/\?.*$/, ''),
    ];
    for (const url of tampered) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(403);
    }
  });

  it.skipIf(needsSharedData('pdfs/litqa_nar_gkae223.pdf'))(
    'serves a figure the PDF stored as JPEG as that JPEG, under a .jpg link',
    async () => {
      // The Dps paper's schematic (Figure 1) is a plain RGB JPEG in the PDF.
      const paper = (await upload(t, readFileSync(join(pdfDir, 'litqa_nar_gkae223.pdf')))).json()[0];
      const links: string[] = [];
      const first = (await get(`/api/fulltext?pdf_id=${paper.pdf_id}`)).json();
      for (let chunk = 1; chunk <= first.total_chunk_num; chunk++) {
        links.push(
          ...(await get(`/api/fulltext?pdf_id=${paper.pdf_id}&chunk=${chunk}`)).json().chunks[0].img_mds,
        );
      }
      const jpeg = links
        .map((link) =>
          /\((http:\/\/alexandria\.test(\/files\/figures\/[0-9a-f]{64}\/[\w-]+\.jpg\?exp=\d+&sig=[\w-]+))\)$/.exec(
            link,
          ),
        )
        .find((match) => match !== null);
      expect(jpeg).toBeDefined();
      const path = jpeg?.[2] ?? '';
      const image = await t.app.inject({ method: 'GET', url: path });
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/jpeg');
      expect(image.rawPayload.subarray(0, 3).toString('hex')).toBe('ffd8ff');
      // The same signed figure asked for as PNG does not exist.
      expect((await t.app.inject({ method: 'GET', url: path.replace('.jpg?', '.png?') })).statusCode).toBe(
        404,
      );
    },
  );
});

describe('question', () => {
  it('returns the chunk holding the best passage, and 400 naming question when it is empty', async () => {
    const ref = (await upload(t, editorial)).json()[0].pdf_id;
    const answer = await get(
      `/api/question?pdf_id=${ref}&question=${encodeURIComponent('How well did patients with solid tumours respond to the vaccine in T-cell assays?')}`,
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json().chunks[0].chunk).toMatch(/severely attenuated in patients with solid tumours/);
    expect(answer.json().hint).toMatch(/^The most relevant passage is in chunk \d+ of \d+\./);
    // The best passage comes with the page it is printed on and its boxes.
    const { passage, pages, boxes } = answer.json().chunks[0];
    expect(passage.text).toMatch(/solid tumours/);
    expect(pages.length).toBeGreaterThan(0);
    expect(boxes.length).toBeGreaterThan(0);
    expect(passage.pages.every((page: number) => pages.includes(page))).toBe(true);
    expect(passage.boxes.length).toBeGreaterThan(0);
    // /api/fulltext gives the same chunk the same pages and boxes (without a passage).
    const read = (await get(`/api/fulltext?pdf_id=${ref}&chunk=${answer.json().chunks[0].chunk_num}`)).json();
    expect(read.chunks[0]).toMatchObject({ pages, boxes });
    expect(read.chunks[0].passage).toBeUndefined();
    for (const question of ['', '%20%20']) {
      const empty = await get(`/api/question?pdf_id=${ref}&question=${question}`);
      expect(empty.statusCode).toBe(400);
      expect(empty.json().error.param).toBe('question');
    }
    expect((await get(`/api/question?pdf_id=${ref}`)).json().error.param).toBe('question');
  });

  it.skipIf(needsPoppler())(
    'puts the passage in boxes where poppler, reading the PDF on its own, prints its words',
    async () => {
      const ref = (await upload(t, editorial)).json()[0].pdf_id;
      const answer = await get(
        `/api/question?pdf_id=${ref}&question=${encodeURIComponent('How well did patients with solid tumours respond to the vaccine in T-cell assays?')}`,
      );
      const folder = await mkdtemp(join(tmpdir(), 'alexandria-boxes-'));
      try {
        await writeFile(join(folder, 'editorial.pdf'), editorial);
        const inside = popplerWordsIn(join(folder, 'editorial.pdf'), answer.json().chunks[0].passage.boxes);
        expect(inside).toContain('attenuated');
        expect(inside).toContain('tumours');
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  );

  it('embeds a filed PDF in the background, so its first question finds the vectors stored', async () => {
    const fresh = await createTestApp();
    try {
      const vectorDir = join(fresh.dataDir, 'blobs', 'question-vectors');
      // Stored vector files (the folder of a file appears a moment before the file is written).
      const stored = () =>
        existsSync(vectorDir)
          ? readdirSync(vectorDir, { recursive: true }).filter((name) => String(name).endsWith('.bin')).length
          : 0;
      expect(stored()).toBe(0);
      const added = await upload(fresh, editorial);
      expect(added.statusCode).toBe(200);
      // No question was asked: the passages were embedded and stored because the PDF was filed.
      await expect.poll(stored, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
      const files = stored();
      const answer = await fresh.app.inject({
        method: 'GET',
        url: `/api/question?pdf_id=${added.json()[0].pdf_id}&question=${encodeURIComponent('How well did patients with solid tumours respond to the vaccine in T-cell assays?')}`,
        headers: withKey(fresh.key),
      });
      expect(answer.json().chunks[0].chunk).toMatch(/severely attenuated in patients with solid tumours/);
      // The question reused the stored vectors (same key): nothing new was written.
      expect(stored()).toBe(files);
    } finally {
      await fresh.close();
    }
  });
});
