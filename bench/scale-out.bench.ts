// `npm run bench -- scale-out`: one mixed load (searches, paper lookups, full text and questions on
// a stored PDF) against one `alexandria serve` replica and then against two (round robin), both on
// one PostgreSQL database, one Redis and one S3 endpoint (s3rver), in the same run (issue 12, item 5).

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';
import { percentile } from '../src/platform/percentile.js';
import { serverListening, spawnCli } from '../test/helpers/server-process.js';
import { seededRandom } from './lib/large-corpus.js';
import type { BenchReport, BenchRow } from './lib/report.js';

const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

const kinds = ['search', 'paper', 'fulltext', 'question'] as const;
type Kind = (typeof kinds)[number];
/**
 * Share of each kind in the load: finding papers dominates, then reading them; questions (an
 * embedding per request) are the heavy tail. The soak bench uses the same order of shares.
 */
const weights: Record<Kind, number> = { search: 50, paper: 20, fulltext: 20, question: 10 };
const questions = [
  'Which two LLM agents does the PaSa system consist of?',
  'What does the Crawler do?',
  'How was PaSa trained?',
  'What is AutoScholarQuery?',
  'Which baselines does PaSa outperform?',
  'How much does PaSa-7B improve recall@20 over Google with GPT-4o?',
  'What is RealScholarQuery?',
  'What reward does the Selector give?',
];

interface Replica {
  url: string;
  child: ChildProcess;
  dataDir: string;
}

/** User + system CPU seconds of a process (Linux /proc; 0 elsewhere). */
function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Busy and total CPU ticks of the whole machine (Linux /proc/stat; zeros elsewhere). */
function machineTicks(): { busy: number; total: number } {
  try {
    const [, ...values] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
    const numbers = values.map(Number);
    const total = numbers.reduce((sum, value) => sum + value, 0);
    const idle = (numbers[3] ?? 0) + (numbers[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Deletes the run's job-queue keys from Redis. */
async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

interface PhaseResult {
  requests: number;
  errors: number;
  examples: string[];
  requestsPerSecond: number;
  latencies: Record<Kind | 'all', number[]>;
  /** Machine CPU busy over the measured window, in percent of all cores. */
  machineBusyPercent: number;
  /** CPU milliseconds the replicas spent per answered request. */
  replicaCpuMsPerRequest: number;
}

/**
 * `connections` closed loops sending the mixed load to `targets` in turn (round robin per request)
 * for `durationMs`, after `warmupMs` of the same load that is not measured.
 */
async function runPhase(options: {
  targets: Replica[];
  key: string;
  next: () => { kind: Kind; path: string };
  connections: number;
  warmupMs: number;
  durationMs: number;
}): Promise<PhaseResult> {
  const headers = { 'x-alexandria-api-key': options.key };
  let turn = 0;
  const latencies: PhaseResult['latencies'] = { all: [], search: [], paper: [], fulltext: [], question: [] };
  const examples: string[] = [];
  let errors = 0;
  const measureFrom = performance.now() + options.warmupMs;
  const end = measureFrom + options.durationMs;
  let cpuBefore = 0;
  let ticksBefore = machineTicks();
  const startMeasuring = setTimeout(() => {
    cpuBefore = options.targets.reduce((sum, target) => sum + processCpuSeconds(target.child.pid ?? 0), 0);
    ticksBefore = machineTicks();
  }, options.warmupMs);
  const loop = async () => {
    while (performance.now() < end) {
      const target = options.targets[turn++ % options.targets.length] as Replica;
      const { kind, path } = options.next();
      const begin = performance.now();
      let failure: string | null = null;
      try {
        const response = await fetch(`${target.url}${path}`, {
          headers,
          signal: AbortSignal.timeout(60_000),
        });
        const text = await response.text();
        if (response.status !== 200) failure = `${kind} ${response.status} ${text.slice(0, 160)}`;
      } catch (error) {
        failure = `${kind} ${(error as Error).message}`;
      }
      if (begin < measureFrom) continue;
      const elapsed = performance.now() - begin;
      latencies.all.push(elapsed);
      latencies[kind].push(elapsed);
      if (failure !== null) {
        errors += 1;
        if (examples.length < 3) examples.push(failure);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  clearTimeout(startMeasuring);
  const seconds = (performance.now() - measureFrom) / 1000;
  const cpu =
    options.targets.reduce((sum, target) => sum + processCpuSeconds(target.child.pid ?? 0), 0) - cpuBefore;
  const ticks = machineTicks();
  const totalTicks = ticks.total - ticksBefore.total;
  return {
    requests: latencies.all.length,
    errors,
    examples,
    requestsPerSecond: latencies.all.length / seconds,
    latencies,
    machineBusyPercent: totalTicks > 0 ? (100 * (ticks.busy - ticksBefore.busy)) / totalTicks : Number.NaN,
    replicaCpuMsPerRequest: (cpu * 1000) / Math.max(1, latencies.all.length),
  };
}

const p95 = (values: number[]) => percentile(values, 0.95);

function row(subject: string, result: PhaseResult): BenchRow {
  const sorted = Float64Array.from(result.latencies.all).sort();
  return {
    subject,
    metrics: {
      'req/s': result.requestsPerSecond,
      'p50 ms': percentile(sorted, 0.5),
      'p95 ms': percentile(sorted, 0.95),
      ...Object.fromEntries(kinds.map((kind) => [`${kind} p95 ms`, p95(result.latencies[kind])])),
      'replica CPU ms/req': result.replicaCpuMsPerRequest,
      'machine CPU %': result.machineBusyPercent,
      errors: result.errors,
    },
  };
}

/**
 * The same mixed load against one replica, then two, on PostgreSQL + Redis + S3 (s3rver): req/s,
 * p50/p95 (overall and per kind) and the ratio two/one. The database is created for the run and
 * dropped after it; the job queue has a Redis prefix of its own.
 */
export async function scaleOutBench(options: { quick: boolean }): Promise<BenchReport> {
  const run = `${process.pid}_${Date.now().toString(36)}`;
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const database = `alexandria_bench_scale_${run}`;
  const connections = 16;
  const warmupMs = options.quick ? 1500 : 5000;
  const durationMs = options.quick ? 5000 : 20_000;
  // Quick: the 500-record sample; full: the whole ACL Anthology 2016–2022 corpus (27k records).
  const corpus = join(
    sharedData,
    'corpus',
    options.quick ? 'acl_anthology_sample_500.jsonl' : 'acl_anthology_2016_2022.jsonl.gz',
  );
  const folders: string[] = [];
  const children: ChildProcess[] = [];
  const s3Dir = mkdtempSync(join(tmpdir(), 'alexandria-bench-s3-'));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'alexandria-bench', configs: [] }],
  });
  await adminQuery(`create database ${database}`);
  try {
    const endpoint = `http://127.0.0.1:${((await s3.run()) as { port: number }).port}`;
    const env = {
      DATABASE_URL: postgresUrl.replace(/\/[^/]*$/, `/${database}`),
      REDIS_URL: redisUrl,
      ALEXANDRIA_JOB_PREFIX: `bench:scale:${run}`,
      ALEXANDRIA_S3_BUCKET: 'alexandria-bench',
      ALEXANDRIA_S3_ENDPOINT: endpoint,
      ALEXANDRIA_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      ALEXANDRIA_SOURCES: '',
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '100000000',
      ALEXANDRIA_RATE_LIMIT_BURST: '100000000',
    };
    const cli = (args: string[]) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'alexandria-bench-scale-'));
      folders.push(dataDir);
      const child = spawnCli(dataDir, args, env);
      // Its logs (warnings only) are not read, but must not fill the pipe.
      child.stdout?.resume();
      children.push(child);
      return { child, dataDir };
    };
    const startReplica = async (): Promise<Replica & { adminKey?: string }> => {
      const { child, dataDir } = cli(['serve']);
      return { ...(await serverListening(child)), child, dataDir };
    };

    // The first replica migrates the empty database and prints the admin key; then the corpus goes
    // in through `alexandria ingest` while the second replica starts.
    const first = await startReplica();
    const key = first.adminKey;
    if (!key) throw new Error('the first replica printed no admin key');
    const ingestStarted = performance.now();
    const ingesting = cli(['ingest', '--no-progress', corpus]).child;
    const [second, [ingestCode]] = await Promise.all([startReplica(), once(ingesting, 'exit')]);
    if (ingestCode !== 0) throw new Error(`alexandria ingest exited with ${ingestCode}`);
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    const replicas = [first, second];

    // One stored PDF, read and asked through both replicas before the clock starts (parsed, its
    // passages embedded, both replicas' models loaded).
    const headers = { 'x-alexandria-api-key': key };
    const form = new FormData();
    const pdf = new Uint8Array(readFileSync(join(sharedData, 'pdfs', 'pasa_2501.10120.pdf')));
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'pasa.pdf');
    const added = await fetch(`${first.url}/api/add_to_project?project_name=Bench`, {
      method: 'POST',
      headers,
      body: form,
    });
    const pdfId = ((await added.json()) as Array<{ pdf_id?: string }>)[0]?.pdf_id;
    if (added.status !== 200 || !pdfId) throw new Error(`setup upload answered ${added.status}`);
    const encodedPdf = encodeURIComponent(pdfId);
    const text = (await (
      await fetch(`${first.url}/api/fulltext?pdf_id=${encodedPdf}`, { headers })
    ).json()) as {
      total_chunk_num: number;
    };
    for (const replica of replicas) {
      for (let attempt = 0; attempt < 60; attempt += 1) {
        const answer = await fetch(
          `${replica.url}/api/question?pdf_id=${encodedPdf}&question=${encodeURIComponent(questions[0] ?? '')}`,
          { headers },
        );
        const body = await answer.text();
        if (answer.status !== 200) throw new Error(`setup question answered ${answer.status}: ${body}`);
        if (!body.includes('Ranked by words only')) break;
      }
    }

    // The requests: searches by title words (a pool of the sample's titles, so some repeat and hit
    // the shared cache as real users' searches do), records by id, chunks, questions.
    const records = readFileSync(join(sharedData, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; title: string });
    const random = seededRandom(12);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const totalWeight = kinds.reduce((sum, kind) => sum + weights[kind], 0);
    const nextKind = (): Kind => {
      let draw = random() * totalWeight;
      for (const kind of kinds) {
        draw -= weights[kind];
        if (draw < 0) return kind;
      }
      return 'search';
    };
    const next = (): { kind: Kind; path: string } => {
      const kind = nextKind();
      switch (kind) {
        case 'search': {
          const words = pick(records)
            .title.split(/\s+/)
            .filter((word) => word.length > 3)
            .slice(0, 2 + Math.floor(random() * 3));
          const parameter = random() < 0.5 ? 'keywords' : 'query';
          return {
            kind,
            path: `/api/fast_paper_search?${parameter}=${encodeURIComponent(words.join(' '))}&peer_reviewed_only=false`,
          };
        }
        case 'paper':
          return { kind, path: `/api/paper?paper_id=${encodeURIComponent(`ACL:${pick(records).id}`)}` };
        case 'fulltext':
          return {
            kind,
            path: `/api/fulltext?pdf_id=${encodedPdf}&chunk=${1 + Math.floor(random() * text.total_chunk_num)}`,
          };
        case 'question':
          return {
            kind,
            path: `/api/question?pdf_id=${encodedPdf}&question=${encodeURIComponent(pick(questions))}`,
          };
      }
    };

    const phase = { key, next, connections, warmupMs, durationMs };
    const one = await runPhase({ ...phase, targets: [first] });
    const two = await runPhase({ ...phase, targets: replicas });
    const ratio = two.requestsPerSecond / one.requestsPerSecond;
    const cores = cpus().length;
    const errors = [...one.examples, ...two.examples];
    return {
      name: `Scale-out: mixed load (search ${weights.search}%, paper ${weights.paper}%, fulltext ${weights.fulltext}%, question ${weights.question}%), ${connections} connections, ${durationMs / 1000} s each, one replica vs two (round robin) on PostgreSQL + Redis + S3 (s3rver)`,
      rows: [row('one replica', one), row('two replicas, round robin', two)],
      summary: [
        `req/s ratio two/one: ${ratio.toFixed(2)}× (p95 ${p95(one.latencies.all).toFixed(1)} ms → ${p95(two.latencies.all).toFixed(1)} ms)`,
        `Why not 2×: this machine has ${cores} cores, shared by both replicas, PostgreSQL, Redis, s3rver and the load generator; with one replica the machine was already ${one.machineBusyPercent.toFixed(0)}% busy (${two.machineBusyPercent.toFixed(0)}% with two; every process counts, other work on the machine too: load average ${loadAtStart.toFixed(1)} at the start), so a second replica can only add what one replica's event loop left idle. Replicas on machines of their own add their cores; the figure to carry over is the replica CPU per request (${one.replicaCpuMsPerRequest.toFixed(1)} ms one, ${two.replicaCpuMsPerRequest.toFixed(1)} ms two).`,
        `Corpus: ${corpus.split('/').pop()} ingested through \`alexandria ingest\` in ${ingestSeconds.toFixed(1)} s (while the second replica started).`,
        ...(errors.length > 0 ? [`errors (first): ${errors.join(' | ')}`] : []),
      ],
    };
  } finally {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        child.kill('SIGKILL');
      }
    }
    await s3.close();
    await deleteKeys(`bench:scale:${run}:*`);
    await adminQuery(`drop database if exists ${database} with (force)`);
    for (const folder of [...folders, s3Dir]) rmSync(folder, { recursive: true, force: true });
  }
}
