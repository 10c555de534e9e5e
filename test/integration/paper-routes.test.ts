import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CannedResponse, recorded, recordedFile } from '../fakes/recorded-fetch.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * /api/paper and /api/literature_map end to end: configuration → composition root → sources →
 * HTTP, against a loopback server that replays recorded OpenAlex, Semantic Scholar and Crossref
 * answers (ALEXANDRIA_SOURCE_URLS points the sources at it). Never the network.
 */
const routes: Array<[RegExp, CannedResponse]> = [
  [/^\/openalex\/works\/doi:10\.1073\/pnas\.1414271111/, recorded('openalex', 'pnas.1414271111')],
  [
    /^\/s2\/graph\/v1\/paper\/DOI:10\.1073\/pnas\.1414271111\?/,
    recorded('semantic_scholar', 'DOI:10.1073/pnas.1414271111'),
  ],
  [
    /^\/s2\/graph\/v1\/paper\/DOI:10\.1073\/pnas\.1414271111\/references/,
    recorded('semantic_scholar', 'references?fields=title&offset=0'),
  ],
  [
    /^\/s2\/graph\/v1\/paper\/DOI:10\.1073\/pnas\.1414271111\/citations/,
    {
      status: 200,
      body: `{"data":[${recordedFile('semantic_scholar/responses/danielnsilva_semanticscholar/Citation.json').body}]}`,
    },
  ],
  [
    /^\/s2\/recommendations\//,
    recorded('semantic_scholar', 'forpaper/10.2139/ssrn.2250500?fields=title&limit=100&from=recent'),
  ],
  [
    /^\/crossref\/works\/10\.1073%2Fpnas\.1414271111/,
    recorded('crossref', 'works/10.1073%2Fpnas.1414271111?mailto'),
  ],
  [/^\/crossref\//, { status: 503, body: 'maintenance' }],
];

let upstream: Server;
let app: TestApp;
let hits: string[];

beforeAll(async () => {
  hits = [];
  upstream = createServer((request, response) => {
    const path = decodeURIComponent(request.url ?? '').replace('%2F', '%2F');
    hits.push(request.url ?? '');
    const route = routes.find(([pattern]) => pattern.test(request.url ?? '') || pattern.test(path));
    const canned = route?.[1] ?? { status: 404, body: '{"error":"not found"}' };
    response.writeHead(canned.status, { 'content-type': 'application/json' });
    response.end(canned.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  app = await createTestApp({
    ALEXANDRIA_SOURCES: 'openalex,semantic_scholar,crossref',
    ALEXANDRIA_SOURCE_URLS: `openalex=${base}/openalex,semantic_scholar=${base}/s2,crossref=${base}/crossref`,
    ALEXANDRIA_CONTACT_EMAIL: 'team@example.org',
    ALEXANDRIA_SOURCE_TIMEOUT_MS: '2000',
    // the real default is 1 request/s; the replay server has no such limit
    ALEXANDRIA_SEMANTIC_SCHOLAR_RPS: '50',
  });
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('GET /api/paper', () => {
  it('merges what the sources know and names them in x-alexandria-sources', async () => {
    const response = await app.app.inject({
      url: '/api/paper?paper_id=DOI:10.1073/pnas.1414271111',
      headers: withKey(app.key),
    });
    expect(response.statusCode).toBe(200);
    const paper = response.json();
    expect(paper).toMatchObject({
      title:
        'Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen cross-linking',
      doi: '10.1073/pnas.1414271111',
      pdf_id: 'PDF_URL:https://www.pnas.org/content/pnas/111/45/E4832.full.pdf',
      identifiers: { pmid: '25349395', pmcid: 'PMC4234579', openalex: 'W2109415576' },
    });
    expect(paper.ss_id).toMatch(/^[0-9a-f]{40}$/);
    expect(paper.hint).toContain('/api/fulltext?pdf_id=PDF_URL:https://www.pnas.org/');
    expect(response.headers['x-alexandria-sources']).toBe(
      'index=ok;openalex=ok;semantic_scholar=ok;crossref=ok',
    );
    expect(hits.some((hit) => hit.includes('mailto=team%40example.org'))).toBe(true);
  });

  it('answers 400 naming paper_id for a malformed identifier and 404 for an unknown one', async () => {
    const bad = await app.app.inject({ url: '/api/paper?paper_id=ISBN:123', headers: withKey(app.key) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', param: 'paper_id' });
    const unknown = await app.app.inject({
      url: '/api/paper?paper_id=DOI:10.9999/unknown',
      headers: withKey(app.key),
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toContain('not answering: crossref');
    expect(unknown.headers['x-alexandria-sources']).toBe(
      'index=ok;openalex=ok;semantic_scholar=ok;crossref=failed',
    );
  });

  it('requires an API key', async () => {
    const response = await app.app.inject({ url: '/api/paper?paper_id=DOI:10.1073/pnas.1414271111' });
    expect(response.statusCode).toBe(401);
  });
});

describe('GET /api/literature_map', () => {
  it('lists references, citations and related papers, and counts source calls in /metrics', async () => {
    const response = await app.app.inject({
      url: '/api/literature_map?paper_id=DOI:10.1073/pnas.1414271111&limit=3',
      headers: withKey(app.key),
    });
    expect(response.statusCode).toBe(200);
    const map = response.json();
    expect(map.paper.doi).toBe('10.1073/pnas.1414271111');
    expect(map.references).toHaveLength(3);
    expect(map.citations[0].doi).toBe('10.1109/lra.2022.3229266');
    expect(map.related).toHaveLength(3);
    expect(response.headers['x-alexandria-sources']).toContain('semantic_scholar.references=ok');
    const metrics = await app.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(
      /alexandria_source_calls_total\{operation="graph",source="semantic_scholar\.references",status="ok"\} 1/,
    );
  });
});

describe('offline (ALEXANDRIA_SOURCES=none, as every test starts)', () => {
  it('answers from the local index alone, without any upstream call', async () => {
    const offline = await createTestApp();
    try {
      const before = hits.length;
      const started = performance.now();
      const response = await offline.app.inject({
        url: '/api/paper?paper_id=DOI:10.1073/pnas.1414271111',
        headers: withKey(offline.key),
      });
      expect(response.statusCode).toBe(404);
      expect(response.headers['x-alexandria-sources']).toBe('index=ok');
      expect(performance.now() - started).toBeLessThan(500);
      const map = await offline.app.inject({
        url: '/api/literature_map?paper_id=DOI:10.1073/pnas.1414271111',
        headers: withKey(offline.key),
      });
      expect(map.statusCode).toBe(404);
      expect(hits.length).toBe(before);
    } finally {
      await offline.close();
    }
  });
});
