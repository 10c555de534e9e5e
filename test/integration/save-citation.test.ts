import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { ZoteroWebApi } from '../../src/adapters/zotero/zotero-web-api.js';
import { loadConfig } from '../../src/config/load-config.js';
import { emptyPaper } from '../../src/domain/paper.js';
import { createHttpApp } from '../../src/http/server.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { ZoteroService } from '../../src/services/zotero-service.js';
import { FakePaperLookup } from '../fakes/fake-paper-lookup.js';
import { type FakeZotero, startFakeZotero } from '../fakes/fake-zotero.js';
import { offline, withKey } from '../helpers/test-app.js';

const zoteroUser = '4815162';
const zoteroKey = 'Zk7pQ2mX9vR4sT6uW8yA1bC3';
const doi = '10.1093/nar/gkae223';

interface LoggedApp {
  app: FastifyInstance;
  container: Container;
  key: string;
  dataDir: string;
  logs: string[];
  close(): Promise<void>;
}

/** A real app on a temp folder whose every log line (trace level) is kept for inspection. */
async function loggedApp(env: Record<string, string>): Promise<LoggedApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-zotero-'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const config = loadConfig({
    ...offline,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'trace',
    ...env,
  });
  const container = await createContainer(config, createLogger({ level: 'trace', destination: sink }));
  const { key } = await container.services.auth.createKey('tenant-a');
  const app = await createHttpApp(container);
  await app.ready();
  return {
    app,
    container,
    key,
    dataDir,
    logs,
    async close() {
      await app.close();
      await container.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let zotero: FakeZotero;
let t: LoggedApp;
beforeAll(async () => {
  zotero = await startFakeZotero({ userId: zoteroUser, apiKey: zoteroKey });
  t = await loggedApp({ ALEXANDRIA_ZOTERO_API_URL: zotero.baseUrl, ALEXANDRIA_ZOTERO_TIMEOUT_MS: '400' });
});
afterAll(async () => {
  await t.close();
  await zotero.close();
});

const zoteroHeaders = { 'x-zotero-user-id': zoteroUser, 'x-zotero-api-key': zoteroKey };

describe('GET /api/save-citation', () => {
  it('saves a DOI into the Zotero library named by the headers', async () => {
    const before = zotero.requests.length;
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${encodeURIComponent(`https://doi.org/${doi.toUpperCase()}`)}`,
      headers: { ...withKey(t.key), ...zoteroHeaders },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      saved: true,
      doi,
      library: `users/${zoteroUser}`,
      item_type: 'journalArticle',
      metadata: 'doi_only',
    });
    expect(response.json().item_key).toMatch(/^[0-9A-F]{8}$/);
    const sent = zotero.requests[before];
    expect(sent?.path).toBe(`/users/${zoteroUser}/items`);
    expect(sent?.headers['zotero-api-key']).toBe(zoteroKey);
    expect(sent?.headers['zotero-api-version']).toBe('3');
    expect(sent?.headers['zotero-write-token']).toMatch(/^[0-9a-f]{32}$/);
    expect(sent?.body).toEqual([
      {
        itemType: 'journalArticle',
        title: doi,
        creators: [],
        DOI: doi,
        tags: [],
        collections: [],
        relations: {},
      },
    ]);
  });

  it('uses credentials stored (encrypted) for the tenant, and never returns the key', async () => {
    const stored = await t.app.inject({
      method: 'PUT',
      url: '/api/zotero/credentials',
      headers: withKey(t.key),
      payload: { user_id: zoteroUser, api_key: zoteroKey },
    });
    expect(stored.json()).toEqual({
      configured: true,
      user_id: zoteroUser,
      api_key_hint: '…1bC3',
    });
    const onDisk = await readFile(join(t.dataDir, 'blobs', 'secrets', 'zotero', 'tenant-a.json'), 'utf8');
    expect(onDisk).not.toContain(zoteroKey);
    expect(JSON.parse(onDisk)).toMatchObject({ v: 1 });

    const saved = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}`,
      headers: withKey(t.key),
    });
    expect(saved.statusCode).toBe(200);
    expect(zotero.requests.at(-1)?.headers['zotero-api-key']).toBe(zoteroKey);

    const other = await t.container.services.auth.createKey('tenant-b');
    const theirs = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}`,
      headers: withKey(other.key),
    });
    expect(theirs.statusCode).toBe(400);
    expect(theirs.json().error.param).toBe('x-zotero-api-key');

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/zotero/credentials',
      headers: withKey(t.key),
    });
    expect(deleted.json()).toEqual({ configured: false, user_id: null, api_key_hint: null });
  });

  it('refuses a Zotero key in the query string, and keeps it out of the logs', async () => {
    const before = zotero.requests.length;
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}&zotero_user_id=${zoteroUser}&zotero_api_key=${zoteroKey}`,
      headers: withKey(t.key),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.param).toBe('zotero_api_key');
    expect(response.json().error.message).toContain('x-zotero-api-key header');
    expect(response.body).not.toContain(zoteroKey);
    expect(zotero.requests.length).toBe(before);
    const requestLines = t.logs.filter((line) => line.includes('/api/save-citation?'));
    expect(requestLines.length).toBeGreaterThan(0);
    expect(requestLines.some((line) => line.includes('zotero_api_key=%5Bredacted%5D'))).toBe(true);
  });

  it('maps Zotero failures: bad key 403, rate limit 502 with Retry-After, silence 504', async () => {
    const forbidden = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}`,
      headers: { ...withKey(t.key), ...zoteroHeaders, 'x-zotero-api-key': 'WrongKey12345678' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toContain(`user library ${zoteroUser}`);
    expect(forbidden.body).not.toContain('WrongKey12345678');

    zotero.failNext({ status: 429, retryAfter: 7 });
    const limited = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}`,
      headers: { ...withKey(t.key), ...zoteroHeaders },
    });
    expect(limited.statusCode).toBe(502);
    expect(limited.headers['retry-after']).toBe('7');

    zotero.failNext({ hang: true });
    const started = Date.now();
    const silent = await t.app.inject({
      method: 'GET',
      url: `/api/save-citation?doi=${doi}`,
      headers: { ...withKey(t.key), ...zoteroHeaders },
    });
    expect(silent.statusCode).toBe(504);
    expect(silent.json().error.message).toBe('Zotero did not answer within 400 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names the parameter at fault', async () => {
    const badDoi = await t.app.inject({
      method: 'GET',
      url: '/api/save-citation?doi=not-a-doi',
      headers: { ...withKey(t.key), ...zoteroHeaders },
    });
    expect(badDoi.statusCode).toBe(400);
    expect(badDoi.json().error.param).toBe('doi');
    const noDoi = await t.app.inject({ method: 'GET', url: '/api/save-citation', headers: withKey(t.key) });
    expect(noDoi.json().error.param).toBe('doi');
  });

  it('never wrote a Zotero key to the logs', () => {
    const all = t.logs.join('');
    expect(all.length).toBeGreaterThan(1000);
    expect(all).not.toContain(zoteroKey);
    expect(all).not.toContain('WrongKey12345678');
  });
});

describe('ALEXANDRIA_ZOTERO_ACCEPT_QUERY_KEY=true (legacy ScholarAI clients)', () => {
  it('accepts the key from the query string and still redacts it in the logs', async () => {
    const lenient = await loggedApp({
      ALEXANDRIA_ZOTERO_API_URL: zotero.baseUrl,
      ALEXANDRIA_ZOTERO_ACCEPT_QUERY_KEY: 'true',
    });
    try {
      const response = await lenient.app.inject({
        method: 'GET',
        url: `/api/save-citation?doi=${doi}&zotero_user_id=${zoteroUser}&zotero_api_key=${zoteroKey}`,
        headers: withKey(lenient.key),
      });
      expect(response.statusCode).toBe(200);
      expect(lenient.logs.join('')).not.toContain(zoteroKey);
    } finally {
      await lenient.close();
    }
  });
});

describe('Zotero items from our metadata', () => {
  it('files a conference paper with its authors, venue and date, in fields Zotero accepts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-zotero-unit-'));
    try {
      const paper = {
        ...emptyPaper('DoTAT: A Domain-oriented Text Annotation Tool'),
        authors: ['Yupian Lin', 'Tong Ruan', 'OpenAI'],
        year: 2022,
        publication_date: '2022-05-22',
        venue: 'Proceedings of ACL 2022: System Demonstrations',
        doi: '10.18653/v1/2022.acl-demo.1',
        type: 'conference-paper',
        identifiers: { doi: '10.18653/v1/2022.acl-demo.1' },
      };
      const service = new ZoteroService({
        library: new ZoteroWebApi({ baseUrl: zotero.baseUrl, timeoutMs: 2000, userAgent: 'test' }),
        blobs: new FsBlobStore(dataDir),
        secret: 'x'.repeat(32),
        lookup: new FakePaperLookup([paper]),
      });
      const saved = await service.saveDoi('tenant-a', paper.doi, { userId: zoteroUser, apiKey: zoteroKey });
      expect(saved).toMatchObject({ item_type: 'conferencePaper', metadata: 'lookup', title: paper.title });
      expect(zotero.requests.at(-1)?.body).toEqual([
        expect.objectContaining({
          itemType: 'conferencePaper',
          proceedingsTitle: 'Proceedings of ACL 2022: System Demonstrations',
          date: '2022-05-22',
          DOI: '10.18653/v1/2022.acl-demo.1',
          creators: [
            { creatorType: 'author', firstName: 'Yupian', lastName: 'Lin' },
            { creatorType: 'author', firstName: 'Tong', lastName: 'Ruan' },
            { creatorType: 'author', name: 'OpenAI' },
          ],
        }),
      ]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
