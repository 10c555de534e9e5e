import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tsxLoaderUrl } from '../src/platform/worker-file.js';
import type { BenchReport, BenchRow } from './lib/report.js';

const scifact = join(import.meta.dirname, '..', '..', 'shared', 'data', 'eval', 'scifact');
const cli = join(import.meta.dirname, 'servers', 'cli.ts');
const apiKey = 'alx_bench_vectors_0123456789abcdefghijklmnopqrstu';
const model = 'onnx:all-MiniLM-L6-v2';

/** Issue 38's goal lines for the record vectors of an ingest. */
const drainGoal = 30;
const ndcgGoal = 0.735;

/**
 * The record vectors of a real ingest, as an operator sees them (issue 38): `alexandria serve` on an
 * empty data folder, `alexandria ingest` of SciFact's 5,183 abstracts beside it, then
 * `alexandria_record_vectors_pending` on /metrics polled until it reaches 0 — records/s drained from
 * the ingest's end to the last vector. Then every SciFact claim with relevance judgements is asked
 * over HTTP (`/api/abstracts`, the hybrid ranking the server runs) and scored by nDCG@10, so the
 * quality figure is the one a client gets from the drained index. `--quick`: the first 1,000
 * abstracts (the claims' nDCG is then not comparable and not printed).
 */
export async function vectorsBench(options: { quick: boolean }): Promise<BenchReport> {
  const loadAtStart = loadavg()[0] ?? 0;
  const folder = await mkdtemp(join(tmpdir(), 'alexandria-vectors-bench-'));
  const children = new Set<ChildProcess>();
  const environment = {
    ALEXANDRIA_DATA_DIR: folder,
    ALEXANDRIA_PORT: '0',
    ALEXANDRIA_HOST: '127.0.0.1',
    ALEXANDRIA_LOG_LEVEL: 'warn',
    ALEXANDRIA_SOURCES: 'none',
    ALEXANDRIA_API_KEYS: `bench:${apiKey}`,
    ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
    ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
    // Looks for new records every second (the default 15 s would count as waiting).
    ALEXANDRIA_RECORD_VECTORS_IDLE_MS: '1000',
  };
  const run = (args: string[]) => {
    const child = spawn(process.execPath, ['--import', tsxLoaderUrl(), cli, ...args], {
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    return child;
  };
  try {
    const corpusFile = join(scifact, 'corpus.jsonl.gz');
    const lines = gunzipSync(readFileSync(corpusFile)).toString('utf8').trim().split('\n');
    const count = options.quick ? 1000 : lines.length;
    const input = options.quick ? join(folder, 'scifact-part.jsonl') : corpusFile;
    if (options.quick) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(input, `${lines.slice(0, count).join('\n')}\n`);
    }
    const server = run(['serve']);
    const url = await listening(server);
    const metric = async (name: string) => {
      const page = await (await fetch(`${url}/metrics`)).text();
      const line = page.split('\n').find((text) => text.startsWith(`${name}{model="${model}"}`));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    const ingestStarted = performance.now();
    const ingest = run(['ingest', input]);
    const [code] = (await once(ingest, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`alexandria ingest exited with ${code}`);
    const ingested = performance.now();
    // /metrics re-reads the index at most every 5 s: wait for a reading that shows the backlog.
    let pending = await metric('alexandria_record_vectors_pending');
    let stored = (await metric('alexandria_record_vectors_stored')) ?? 0;
    const deadline = Date.now() + 3 * 3600_000;
    while ((stored === 0 || (pending ?? 1) > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pending = await metric('alexandria_record_vectors_pending');
      stored = (await metric('alexandria_record_vectors_stored')) ?? 0;
    }
    const drained = performance.now();
    const drainSeconds = (drained - ingested) / 1000;
    const rate = stored / drainSeconds;
    const rows: BenchRow[] = [
      {
        subject: `SciFact ingest of ${count} abstracts into a running server, record vectors drained (${model})`,
        metrics: {
          'ingest seconds': (ingested - ingestStarted) / 1000,
          'drain seconds (ingest end → pending 0)': drainSeconds,
          'vectors stored': stored,
          'records/s drained': rate,
        },
      },
    ];
    const summary = [
      `record vectors: ${rate.toFixed(1)} records/s drained after an ingest of ${count} SciFact abstracts (goal ≥ ${drainGoal}: ${rate >= drainGoal ? 'met' : 'NOT met'})`,
    ];
    if (!options.quick) {
      const ndcg = await claimsOverHttp(url, lines);
      rows.push({
        subject: `SciFact claims over HTTP after the drain (/api/abstracts, ${ndcg.claims} claims)`,
        metrics: { 'nDCG@10': ndcg.ndcg },
      });
      summary.push(
        `SciFact nDCG@10 over HTTP once drained: ${ndcg.ndcg.toFixed(4)} on ${ndcg.claims} claims (goal ≥ ${ndcgGoal}: ${ndcg.ndcg >= ndcgGoal ? 'met' : 'NOT met'})`,
      );
    }
    summary.push(`load average at start ${loadAtStart.toFixed(2)}, at end ${(loadavg()[0] ?? 0).toFixed(2)}`);
    return { name: 'vectors', rows, summary };
  } finally {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    await rm(folder, { recursive: true, force: true });
  }
}

async function listening(child: ChildProcess): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
}

/**
 * nDCG@10 of every SciFact claim with judgements, asked as a question over HTTP. A result is
 * matched to SciFact's documents by its exact title (titles of the corpus's documents; a title
 * shared by several documents matches any of them).
 */
async function claimsOverHttp(url: string, lines: string[]): Promise<{ ndcg: number; claims: number }> {
  const idsByTitle = new Map<string, Set<string>>();
  for (const line of lines) {
    const record = JSON.parse(line) as { _id: string; title: string };
    const key = record.title.trim().toLowerCase();
    const set = idsByTitle.get(key) ?? new Set<string>();
    set.add(record._id);
    idsByTitle.set(key, set);
  }
  const relevant = new Map<string, Set<string>>();
  for (const line of readFileSync(join(scifact, 'qrels.tsv'), 'utf8').trim().split('\n').slice(1)) {
    const [query, doc, score] = line.split('\t');
    if (!query || !doc || Number(score) <= 0) continue;
    relevant.set(query, (relevant.get(query) ?? new Set()).add(doc));
  }
  const claims = readFileSync(join(scifact, 'queries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { _id: string; text: string })
    .filter((claim) => relevant.has(claim._id));
  let total = 0;
  for (const claim of claims) {
    const parameters = new URLSearchParams({
      query: claim.text,
      peer_reviewed_only: 'false',
      sort: 'relevance',
      limit: '10',
    });
    const response = await fetch(`${url}/api/abstracts?${parameters}`, {
      headers: { 'x-alexandria-api-key': apiKey },
    });
    if (!response.ok) throw new Error(`/api/abstracts answered ${response.status}: ${await response.text()}`);
    const papers = (await response.json()) as Array<{ title: string }>;
    const gold = relevant.get(claim._id) as Set<string>;
    const seen = new Set<string>();
    let dcg = 0;
    papers.slice(0, 10).forEach((paper, rank) => {
      const ids = idsByTitle.get(paper.title.trim().toLowerCase()) ?? new Set<string>();
      const hit = [...ids].find((id) => gold.has(id) && !seen.has(id));
      if (hit) {
        seen.add(hit);
        dcg += 1 / Math.log2(rank + 2);
      }
    });
    let ideal = 0;
    for (let rank = 0; rank < Math.min(10, gold.size); rank += 1) ideal += 1 / Math.log2(rank + 2);
    total += dcg / ideal;
  }
  return { ndcg: total / claims.length, claims: claims.length };
}
