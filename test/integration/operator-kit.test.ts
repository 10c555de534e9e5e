// The operator's kit (decision 0051) on real processes: `alexandria serve` on a data folder, an
// `alexandria ingest` of a fixture beside it, `alexandria status`. The goal line of issue 34:
// "/metrics shows the index size and a vector backlog that drains to 0 after an ingest". And every
// metric the Grafana dashboard and the Prometheus rules query is on a real server's /metrics.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertRules,
  dashboardExpressions,
  parseMetricsPage,
  ruleExpressions,
  sampleValue,
  seriesNames,
} from '../helpers/prometheus-text.js';
import { fixtures, needsPostgresExtension, needsRedis } from '../helpers/requirements.js';
import { finished, serverListening, spawnCli } from '../helpers/server-process.js';
import { adminQuery, testPostgresUrl, testRedisUrl } from '../helpers/services.js';

const records = join(fixtures, 'corpus', 'acl_anthology_records.jsonl');
const recordCount = 173;
const model = 'onnx:all-MiniLM-L6-v2';
const children = new Set<ChildProcess>();
const folders: string[] = [];
let dataDir: string;
let url: string;

const metrics = async (base = url) => parseMetricsPage(await (await fetch(`${base}/metrics`)).text());

/** `alexandria <args>` on the test's data folder, to its end. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(dataDir, args, env);
  children.add(child);
  const result = await finished(child);
  children.delete(child);
  return result;
}

async function startServer(
  folder: string,
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnCli(folder, ['serve'], {
    // The record-vector walk looks for new records every 200 ms and does not pause between batches,
    // at the priority of the tests around it: at nice 10 (the default, which gives way to requests)
    // the drain was most of this file's 55–95 s in a loaded test run.
    ALEXANDRIA_RECORD_VECTORS_IDLE_MS: '200',
    ALEXANDRIA_RECORD_VECTORS_PAUSE_MS: '0',
    ALEXANDRIA_EMBEDDING_BACKGROUND_NICE: '0',
    ...env,
  });
  children.add(child);
  return { url: (await serverListening(child)).url, child };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-operator-'));
  folders.push(dataDir);
  ({ url } = await startServer(dataDir));
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('/metrics after an ingest (the goal line)', () => {
  it('shows the index size and a vector backlog that drains to 0', { timeout: 300_000 }, async () => {
    const before = await metrics();
    expect(sampleValue(before, 'alexandria_index_records')).toBe(0);
    expect(sampleValue(before, 'alexandria_record_vectors_pending', { model })).toBe(0);

    const ingest = await cli(['ingest', records]);
    expect(ingest.code, ingest.stderr).toBe(0);

    // The figures come from one read of the index, re-read at most every 5 s: until a read after the
    // ingest, /metrics still shows the empty index (pending 0 too), so wait for the records first.
    await expect
      .poll(async () => sampleValue(await metrics(), 'alexandria_index_records'), {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(recordCount);
    // Polled, not timed: the walk embeds in the background at whatever pace this machine has.
    await expect
      .poll(async () => sampleValue(await metrics(), 'alexandria_record_vectors_pending', { model }), {
        timeout: 240_000,
        interval: 1_000,
      })
      .toBe(0);
    const after = await metrics();
    expect(sampleValue(after, 'alexandria_record_vectors_pending', { model })).toBe(0);
    expect(sampleValue(after, 'alexandria_record_vectors_stored', { model })).toBe(recordCount);
    // This server's own walk embedded every one of them: the backlog existed, and drained here.
    expect(sampleValue(after, 'alexandria_record_vectors_embedded_total')).toBe(recordCount);
    // Measured between the reading before the ingest (nothing stored) and one after the drain.
    expect(sampleValue(after, 'alexandria_record_vectors_drain_per_second', { model })).toBeGreaterThan(0);
    expect(sampleValue(after, 'alexandria_record_vectors_eta_seconds', { model })).toBe(0);
    // Parsing and chat counters exist from the start (nothing parsed, no chat model configured).
    expect(sampleValue(after, 'alexandria_pdf_pages_parsed_total')).toBe(0);
    expect(sampleValue(after, 'alexandria_chat_tokens_generated_total')).toBe(0);
  });

  it('`alexandria status` prints the same figures, as text and as JSON', { timeout: 120_000 }, async () => {
    const json = await cli(['status', '--json', '--sample', '0']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      database: { kind: 'sqlite', location: dataDir },
      index: { records: recordCount },
      vectors: { model, stored: recordCount, pending: 0, etaSeconds: 0 },
      storage: [],
    });
    const text = await cli(['status']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`index      ${recordCount} records`);
    expect(text.stdout).toMatch(/vectors {4}0 records waiting, 173 embedded \(onnx:all-MiniLM-L6-v2\); done/);
    expect(text.stdout).toContain('jobs       in-process (no REDIS_URL)');
  });

  it('`alexandria status` on a folder without data says where to point it', { timeout: 60_000 }, async () => {
    const empty = await mkdtemp(join(tmpdir(), 'alexandria-operator-empty-'));
    folders.push(empty);
    const child = spawnCli(empty, ['status']);
    const result = await finished(child);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`No Alexandria data in ${empty}`);
  });
});

/** Names PromQL provides itself, not the service. */
const prometheusOwn = new Set(['up']);
/** Registered only by a PostgreSQL-backed index (searches by the database that answered). */
const postgresOnly = new Set(['alexandria_index_searches_total']);
const withoutPostgres = await needsPostgresExtension();
const withoutRedis = await needsRedis();

/** Whether `name` is a family on the page, or a histogram's _bucket/_sum/_count series. */
function onPage(types: Map<string, string>, name: string): boolean {
  if (types.has(name)) return true;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return base !== name && (types.get(base) === 'histogram' || types.get(base) === 'summary');
}

describe('the dashboard and the alert rules query what the server exposes', () => {
  const rules = alertRules();
  const recorded = new Set(rules.groups.flatMap((group) => group.rules.flatMap((rule) => rule.record ?? [])));
  const queries = [...dashboardExpressions(), ...ruleExpressions(rules)];

  it('has expressions to check, and each names at least one series', () => {
    expect(dashboardExpressions().length).toBeGreaterThanOrEqual(20);
    expect(
      rules.groups.flatMap((group) => group.rules.filter((rule) => rule.alert)).length,
    ).toBeGreaterThanOrEqual(6);
    for (const { where, expr } of queries) expect(seriesNames(expr), `${where}: ${expr}`).not.toEqual([]);
  });

  it("finds every alexandria_* name on a running server's /metrics", { timeout: 60_000 }, async () => {
    const { types } = await metrics();
    const missing: string[] = [];
    for (const { where, expr } of queries) {
      for (const name of seriesNames(expr)) {
        if (prometheusOwn.has(name) || postgresOnly.has(name)) continue;
        if (name.includes(':')) {
          if (!recorded.has(name)) missing.push(`${where}: recording rule ${name} is not defined`);
          continue;
        }
        if (!onPage(types, name)) missing.push(`${where}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.skipIf(withoutPostgres)(
    'finds the PostgreSQL-only names on a server backed by PostgreSQL; status reads that database and Redis',
    { timeout: 120_000 },
    async () => {
      const database = `alexandria_operator_${process.pid}`;
      await adminQuery(`create database ${database}`);
      try {
        const folder = await mkdtemp(join(tmpdir(), 'alexandria-operator-pg-'));
        folders.push(folder);
        const databaseUrl = new URL(testPostgresUrl);
        databaseUrl.pathname = `/${database}`;
        const server = await startServer(folder, { DATABASE_URL: databaseUrl.href });
        const page = await metrics(server.url);
        for (const name of postgresOnly) expect(onPage(page.types, name), name).toBe(true);
        expect(sampleValue(page, 'alexandria_index_records')).toBe(0);
        expect(sampleValue(page, 'alexandria_dependency_up', { dependency: 'postgres' })).toBe(1);
        server.child.kill('SIGTERM');
        await finished(server.child);
        // `alexandria status` reads the same database (and, with Redis, the deployment's queue).
        const shared = { DATABASE_URL: databaseUrl.href, ALEXANDRIA_DATA_DIR: folder };
        const status = await cli(['status', '--json'], shared);
        expect(status.code, status.stderr).toBe(0);
        expect(JSON.parse(status.stdout)).toMatchObject({
          database: {
            kind: 'postgres',
            location: `${databaseUrl.hostname}:${databaseUrl.port || 5432}/${database}`,
          },
          index: { records: 0 },
          vectors: { model, stored: 0, pending: 0, etaSeconds: 0 },
        });
        if (!withoutRedis) {
          const queued = await cli(['status', '--json'], {
            ...shared,
            REDIS_URL: testRedisUrl,
            ALEXANDRIA_JOB_PREFIX: `alexandria-operator-${process.pid}`,
          });
          expect(queued.code, queued.stderr).toBe(0);
          const jobs = JSON.parse(queued.stdout).jobs as Array<{
            type: string;
            state: string;
            count: number;
          }>;
          expect(jobs.find((job) => job.type === 'parse-pdf' && job.state === 'waiting')?.count).toBe(0);
          const text = await cli(['status'], { ...shared, REDIS_URL: testRedisUrl });
          expect(text.stdout).toMatch(
            /^jobs\n {2}queue +waiting +active +delayed +failed\n {2}parse-pdf +0 +0 +0 +0$/m,
          );
        }
      } finally {
        await adminQuery(`drop database if exists ${database} with (force)`);
      }
    },
  );
});
