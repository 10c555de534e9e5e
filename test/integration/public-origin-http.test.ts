import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/load-config.js';
import { buildApp } from '../../src/http/app.js';
import { packageVersion } from '../../src/platform/version.js';
import { figurePaperPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Remote users (issue 16): with no ALEXANDRIA_PUBLIC_URL, figure links, the web page's CSP img-src
 * and the OpenAPI servers name the origin the request arrived for, not http://localhost:<port>;
 * forwarded headers count only from a trusted proxy; a hostile Host never reaches a link.
 */
const remote = 'papers.example.org:8443';
const hostile = 'evil.example/x)![p](http://evil.example/p.png';
const figurePaper = await figurePaperPdf();

let t: TestApp;
let webDir: string;
let pdfId = '';
/** A chunk of the paper whose first image is a figure link. */
let figureChunk = 0;
/** Other HTTP apps on the same container (same stores), with other server settings. */
const others: FastifyInstance[] = [];

/** Another HTTP app over `t`'s container, with the server settings changed. */
async function appWith(server: Partial<Config['server']>): Promise<FastifyInstance> {
  const { container } = t;
  const config = { ...container.config, server: { ...container.config.server, ...server } };
  const app = await buildApp({
    config,
    logger: container.logger,
    services: container.services,
    rateLimiter: container.rateLimiter,
    probes: container.probes,
    indexVersion: () => container.stores.index.dataVersion(),
    version: packageVersion(),
  });
  await app.ready();
  others.push(app);
  return app;
}

async function figureLink(app: FastifyInstance, headers: Record<string, string>): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}&chunk=${figureChunk}`,
    headers: { ...withKey(t.key), ...headers },
  });
  expect(response.statusCode).toBe(200);
  const image = response.json().chunks[0].img_mds[0] as string;
  return /\]\(([^)]+)\)$/.exec(image)?.[1] ?? image;
}

async function serversOf(app: FastifyInstance, headers: Record<string, string>, url = '/openapi.json') {
  const response = await app.inject({ method: 'GET', url, headers });
  expect(response.statusCode).toBe(200);
  return { servers: response.json().servers as Array<{ url: string }>, body: response.body, response };
}

async function imgSrcOf(app: FastifyInstance, headers: Record<string, string>): Promise<string> {
  const page = await app.inject({ method: 'GET', url: '/', headers });
  expect(page.statusCode).toBe(200);
  const csp = String(page.headers['content-security-policy']);
  return /img-src ([^;]+)/.exec(csp)?.[1] ?? '';
}

beforeAll(async () => {
  webDir = await mkdtemp(join(tmpdir(), 'alexandria-web-origin-'));
  await writeFile(join(webDir, 'index.html'), '<!doctype html><title>Alexandria</title>');
  t = await createTestApp({ ALEXANDRIA_WEB_DIR: webDir });
  const added = await uploadPdf(t, t.key, 'deltas.pdf', figurePaper);
  expect(added.statusCode).toBe(200);
  pdfId = added.json()[0].pdf_id;
  const read = async (chunk: number) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}&chunk=${chunk}`,
        headers: withKey(t.key),
      })
    ).json();
  const total = (await read(1)).total_chunk_num as number;
  for (let chunk = 1; chunk <= total && figureChunk === 0; chunk++) {
    if ((await read(chunk)).chunks[0].img_mds.length > 0) figureChunk = chunk;
  }
  expect(figureChunk).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  for (const app of others) await app.close();
  await t?.close();
  await rm(webDir, { recursive: true, force: true });
});

describe('public origin from the request (ALEXANDRIA_PUBLIC_URL unset)', () => {
  it('figure links name the Host the request arrived for, and they open', async () => {
    const link = await figureLink(t.app, { host: remote });
    expect(link.startsWith(`http://${remote}/files/figures/`)).toBe(true);
    const { pathname, search } = new URL(link);
    const image = await t.app.inject({
      method: 'GET',
      url: `${pathname}${search}`,
      headers: { host: remote },
    });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    // Another client, another host: its own origin, the same signed path.
    const other = await figureLink(t.app, { host: '192.168.1.20:8080' });
    expect(other).toBe(link.replace(`http://${remote}`, 'http://192.168.1.20:8080'));
  });

  it('OpenAPI servers (and Swagger UI) and the page CSP name that origin too', async () => {
    const document = await serversOf(t.app, { host: remote });
    expect(document.servers).toEqual([{ url: `http://${remote}` }]);
    expect(String(document.response.headers.vary)).toMatch(/host.*x-forwarded-host.*forwarded/);
    expect((await serversOf(t.app, { host: remote }, '/docs/json')).servers).toEqual([
      { url: `http://${remote}` },
    ]);
    expect((await imgSrcOf(t.app, { host: remote })).split(' ')).toContain(`http://${remote}`);
    // The shared document is not changed by a request: the next one gets its own host.
    expect((await serversOf(t.app, { host: 'lab.example' })).servers).toEqual([
      { url: 'http://lab.example' },
    ]);
  });

  it('ignores X-Forwarded-* and Forwarded when the proxy is not trusted (the default)', async () => {
    const headers = {
      host: remote,
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      forwarded: 'host=evil.example;proto=https',
    };
    expect(await figureLink(t.app, headers)).toMatch(new RegExp(`^http://${remote}/files/figures/`));
    expect((await serversOf(t.app, headers)).servers).toEqual([{ url: `http://${remote}` }]);
    expect(await imgSrcOf(t.app, headers)).not.toContain('evil');
  });

  it('a hostile Host reaches no link: localhost on the configured port instead', async () => {
    const headers = { host: hostile };
    const link = await figureLink(t.app, headers);
    expect(link.startsWith('http://localhost:8080/files/figures/')).toBe(true);
    const document = await serversOf(t.app, headers);
    expect(document.servers).toEqual([{ url: 'http://localhost:8080' }]);
    expect(document.body).not.toContain('evil');
    expect(await imgSrcOf(t.app, headers)).not.toContain('evil');
  });
});

describe('behind a trusted proxy (ALEXANDRIA_TRUST_PROXY=true)', () => {
  it('honours X-Forwarded-Host/-Proto, and Forwarded before them', async () => {
    const app = await appWith({ trustProxy: true });
    const xForwarded = {
      host: '127.0.0.1:8080',
      'x-forwarded-host': 'papers.example.org',
      'x-forwarded-proto': 'https',
    };
    expect(await figureLink(app, xForwarded)).toMatch(/^https:\/\/papers\.example\.org\/files\/figures\//);
    expect((await serversOf(app, xForwarded)).servers).toEqual([{ url: 'https://papers.example.org' }]);
    expect((await imgSrcOf(app, xForwarded)).split(' ')).toContain('https://papers.example.org');
    const standard = { host: '127.0.0.1:8080', forwarded: `for=203.0.113.9;proto=https;host="${remote}"` };
    expect((await serversOf(app, standard)).servers).toEqual([{ url: `https://${remote}` }]);
    // A forwarded host is validated like a Host.
    const bad = { host: '127.0.0.1:8080', 'x-forwarded-host': hostile, 'x-forwarded-proto': 'https' };
    expect(await figureLink(app, bad)).toMatch(/^http:\/\/localhost:8080\/files\/figures\//);
  });
});

describe('ALEXANDRIA_PUBLIC_URL configured', () => {
  it('wins over Host and forwarded headers, for links, servers and CSP', async () => {
    const app = await appWith({ publicUrl: 'https://alexandria.example.org/', trustProxy: true });
    const headers = { host: remote, 'x-forwarded-host': 'other.example', 'x-forwarded-proto': 'http' };
    expect(await figureLink(app, headers)).toMatch(/^https:\/\/alexandria\.example\.org\/files\/figures\//);
    expect((await serversOf(app, headers)).servers).toEqual([{ url: 'https://alexandria.example.org' }]);
    const imgSrc = (await imgSrcOf(app, headers)).split(' ');
    expect(imgSrc).toContain('https://alexandria.example.org');
    expect(imgSrc.join(' ')).not.toContain('other.example');
  });
});
