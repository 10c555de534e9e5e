import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Environment, loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { resolveInputs } from '../../src/ingest/ingest-inputs.js';
import { ingest } from '../../src/ingest/ingest-pipeline.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';
import { FigureLinks } from '../../src/services/documents/figure-links.js';
import { fixtures, needsPostgresExtension, needsRedis } from '../helpers/requirements.js';
import { adminQuery, testPostgresUrl, testRedisUrl } from '../helpers/services.js';
import { offline, withKey } from '../helpers/test-app.js';

// Issue 12, "nothing replica-local": replicas with data dirs of their own on one PostgreSQL database
// and one Redis. Before, they signed figure links with different secrets, shared search answers
// computed from different indexes through Redis, and answered from caches filled before an ingest.

const aclSample = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');
const database = `alexandria_replicas_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const databaseUrl = testPostgresUrl.replace(/\/[^/]*$/, `/${database}`);
const cleanups: Array<() => Promise<unknown>> = [];

interface Replica {
  container: Container;
  app: FastifyInstance;
  dataDir: string;
  key: string;
}

async function startReplica(env: Environment = {}): Promise<Replica> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-replica-'));
  const config = loadConfig({
    ...offline,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
    ALEXANDRIA_BLOB_SWEEP_INTERVAL_MINUTES: '0',
    ...env,
  });
  const container = await createContainer(config, createLogger({ level: 'silent' }));
  const app = await createHttpApp(container);
  await app.ready();
  const { key } = await container.services.auth.createKey(`lab-${Math.random().toString(36).slice(2, 8)}`);
  cleanups.push(async () => {
    await app.close();
    await container.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { container, app, dataDir, key };
}

const sharedEnv = () => ({ DATABASE_URL: databaseUrl, REDIS_URL: testRedisUrl });

async function search(replica: Replica, path: string, keywords: string) {
  const response = await replica.app.inject({
    method: 'GET',
    url: `${path}?keywords=${encodeURIComponent(keywords)}&peer_reviewed_only=false&limit=5`,
    headers: withKey(replica.key),
  });
  expect(response.statusCode).toBe(200);
  return { total: Number(response.headers['x-total-count']), response };
}

async function ingestSample(replica: Replica): Promise<void> {
  const report = await ingest(replica.container.stores.index, await resolveInputs(aclSample, process.stdin));
  expect(report.inserted).toBeGreaterThan(400);
}

beforeAll(async () => {
  await adminQuery(`create database ${database}`);
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await adminQuery(`drop database if exists ${database} with (force)`);
});

const servicesMissing = (await needsPostgresExtension()) || (await needsRedis());

describe.skipIf(servicesMissing)(
  'replicas on one PostgreSQL database and one Redis, each with its own data dir',
  () => {
    it('sign figure links with one secret generated into the database, none kept in a data dir', async () => {
      const [first, second] = await Promise.all([startReplica(sharedEnv()), startReplica(sharedEnv())]);
      if (!first || !second) throw new Error('two replicas expected');
      expect(first.container.signingSecret.length).toBeGreaterThanOrEqual(32);
      expect(second.container.signingSecret).toBe(first.container.signingSecret);
      for (const replica of [first, second]) expect(await readdir(replica.dataDir)).not.toContain('secret');

      // A link the first replica signs is honoured by the second: 404 (this tenant stores no such
      // PDF), not 403 (bad signature), which is what a link signed with another secret gets.
      const linkFor = (secret: string) =>
        new FigureLinks({ secret, publicUrl: '', ttlSeconds: 3600 }).url(
          'a'.repeat(64),
          'fig_1',
          'png',
          'lab',
        );
      const answer = async (link: string) =>
        (await second.app.inject({ method: 'GET', url: link })).statusCode;
      expect(await answer(linkFor(first.container.signingSecret))).toBe(404);
      expect(await answer(linkFor('another-secret-of-at-least-32-characters'))).toBe(403);

      const later = await startReplica(sharedEnv());
      expect(later.container.signingSecret).toBe(first.container.signingSecret);
    });

    it('search one shared index: records ingested through one replica answer on the other ("0 hits vs 702"), and an answer cached before the ingest is not served after it', async () => {
      const [first, second] = await Promise.all([startReplica(sharedEnv()), startReplica(sharedEnv())]);
      if (!first || !second) throw new Error('two replicas expected');
      // The second replica answers first, from the empty index; the answer lands in the shared cache…
      expect((await search(second, '/api/abstracts', 'dependency parsing')).total).toBe(0);
      await ingestSample(first);
      // …and is not served after the ingest: both replicas answer from the one index, alike.
      const onFirst = await search(first, '/api/abstracts', 'dependency parsing');
      const onSecond = await search(second, '/api/abstracts', 'dependency parsing');
      expect(onFirst.total).toBeGreaterThan(0);
      expect(onSecond.total).toBe(onFirst.total);
      expect(onSecond.response.json()).toEqual(onFirst.response.json());
      expect(await first.container.stores.index.dataVersion()).toBe(
        await second.container.stores.index.dataVersion(),
      );
      // The index lives in PostgreSQL: no index file in either data dir.
      for (const replica of [first, second]) expect(await readdir(replica.dataDir)).not.toContain('index.db');
    });

    it('share the upstream circuit breaker: one replica opens it, the other skips the source', async () => {
      let hits = 0;
      const server: Server = createServer((_request, response) => {
        hits += 1;
        response.writeHead(503, { 'retry-after': '0' });
        response.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => server.close(resolve)));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // A source name of its own, so that breakers other tests leave in Redis do not interfere.
      const env = {
        ...sharedEnv(),
        ALEXANDRIA_SOURCES: 'crossref',
        ALEXANDRIA_SOURCE_URLS: `crossref=${url}`,
        ALEXANDRIA_SOURCE_BREAKER_COOLDOWN_MS: '600000',
        // Generous deadlines: on a loaded machine a call cut short by the federation deadline is
        // released, not counted as a failure, and the breaker would not open.
        ALEXANDRIA_SOURCE_TIMEOUT_MS: '20000',
        ALEXANDRIA_FEDERATION_DEADLINE_MS: '20000',
      };
      const redis = new (await import('ioredis')).Redis(testRedisUrl);
      await redis.del('alexandria:breaker:crossref', 'alexandria:gate:crossref');
      cleanups.push(async () => {
        await redis.del('alexandria:breaker:crossref', 'alexandria:gate:crossref');
        await redis.quit();
      });
      const [first, second] = await Promise.all([startReplica(env), startReplica(env)]);
      if (!first || !second) throw new Error('two replicas expected');
      // Words of this run only: merged lists of federated searches stay in Redis for a while.
      const run = Math.random().toString(36).slice(2, 8);
      // The first replica fails against the source until its breaker opens (how many searches that
      // takes depends on retries and the rate gate's spacing, which skips rather than waits after a
      // failure), then the second replica must skip the source without calling it.
      let opened = false;
      for (let attempt = 0; attempt < 12 && !opened; attempt += 1) {
        await search(first, '/api/fast_paper_search', `word${attempt}${run}`);
        opened = (await redis.hexists('alexandria:breaker:crossref', 'opened')) === 1;
        if (!opened) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(opened).toBe(true);
      const hitsWhenOpened = hits;
      expect(hitsWhenOpened).toBeGreaterThanOrEqual(3);
      const { response } = await search(second, '/api/fast_paper_search', `delta${run}`);
      expect(String(response.headers['x-alexandria-sources'])).toContain('crossref=skipped');
      expect(hits).toBe(hitsWhenOpened);
    }, 60_000);
  },
);

describe.skipIf(servicesMissing)('a replica whose index another process writes (alexandria ingest)', () => {
  it('answers a search cached before the ingest with the records after it', async () => {
    const replica = await startReplica();
    const before = await search(replica, '/api/fast_paper_search', 'dependency parsing');
    expect(before.total).toBe(0);
    const again = await search(replica, '/api/fast_paper_search', 'dependency parsing');
    expect(again.total).toBe(0);
    const run = promisify(execFile);
    const entry = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');
    await run(process.execPath, ['--import', tsxLoaderUrl(), entry, 'ingest', '--no-progress', aclSample], {
      env: { ...process.env, ALEXANDRIA_DATA_DIR: replica.dataDir, ALEXANDRIA_LOG_LEVEL: 'warn' },
      cwd: replica.dataDir,
    });
    const after = await search(replica, '/api/fast_paper_search', 'dependency parsing');
    expect(after.total).toBeGreaterThan(0);
    const direct = await replica.container.services.search.searchPapers({
      keywords: 'dependency parsing',
      peerReviewedOnly: false,
      sort: 'relevance',
      offset: 0,
      limit: 5,
    });
    expect(direct.total).toBe(after.total);
  }, 120_000);
});
