// `npm run bench -- soak`: mixed load against a real `alexandria serve` process on loopback for
// SOAK_SECONDS (default 600), with the server's RSS sampled over time. Not run by a plain `npm run bench`.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { percentile } from '../src/platform/percentile.js';
import { serverListening } from '../test/helpers/server-process.js';
import type { BenchReport, BenchRow } from './lib/report.js';
import { seededRandom } from './lib/seeded-random.js';

const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');
const cliEntry = join(import.meta.dirname, 'servers', 'cli.ts');
/** Loaded into the server: every thread's V8 heap, sampled (see the file). */
const threadProbe = pathToFileURL(join(import.meta.dirname, 'lib', 'thread-memory-probe.mjs')).href;
const pdfNames = [
  'immunology_editorial_imm13445.pdf',
  'beyond_summarization_2304.02623v1.pdf',
  'quantum_criticality_bethe_lattice_1111.2011v2.pdf',
  'novelty_controlled_paraphrase_aaai2022.pdf',
  'pasa_2501.10120.pdf',
  'litqa_nar_gkae223.pdf',
];
const questions = [
  'What method does the paper propose?',
  'Which datasets were used in the evaluation?',
  'What are the main limitations?',
  'How does the approach compare with the baselines?',
  'What is the main result?',
];
const operations = ['search', 'fulltext', 'question', 'chat', 'upload'] as const;
type Operation = (typeof operations)[number];
/** Share of the requests per operation (reads dominate, as in use). */
const weights: Record<Operation, number> = { search: 45, fulltext: 25, question: 12, chat: 8, upload: 10 };

/**
 * The server's resident set in MiB and its split (Linux /proc; NaN elsewhere): anonymous memory (V8
 * heaps, native allocations — a leak shows here), file-backed pages (the code, the SQLite index's
 * memory map — page cache, given back under pressure) and shared memory. /proc/<pid>/status has the
 * same split as the Rss_* lines of smaps_rollup, and is cheaper to read.
 */
interface ResidentSet {
  rss: number;
  anon: number;
  file: number;
  shmem: number;
}

function residentSet(pid: number): ResidentSet {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // not Linux, or the process is gone
  }
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  };
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
}

interface ThreadHeap {
  kind: string;
  threadId: number;
  used: number;
  total: number;
  external: number;
}

/** The probe's latest line: every live thread's V8 heap (bytes), the main thread first. */
function latestHeaps(path: string): ThreadHeap[] | undefined {
  if (!existsSync(path)) return undefined;
  const last = readFileSync(path, 'utf8').trimEnd().split('\n').at(-1);
  if (!last) return undefined;
  try {
    return (JSON.parse(last) as { threads: ThreadHeap[] }).threads;
  } catch {
    return undefined;
  }
}

interface MemorySample extends ResidentSet {
  atSeconds: number;
  /** MiB: the main thread's heap (used, committed, external) and the worker threads' together. */
  heaps?: {
    mainUsed: number;
    mainTotal: number;
    mainExternal: number;
    workers: number;
    workersUsed: number;
    workersTotal: number;
    kinds: string[];
  };
}

function memorySample(pid: number, atSeconds: number, probeOut: string): MemorySample {
  const sample: MemorySample = { atSeconds, ...residentSet(pid) };
  const threads = latestHeaps(probeOut);
  const main = threads?.[0];
  if (threads && main) {
    const workers = threads.slice(1);
    const mib = (bytes: number) => bytes / 1024 / 1024;
    sample.heaps = {
      mainUsed: mib(main.used),
      mainTotal: mib(main.total),
      mainExternal: mib(main.external),
      workers: workers.length,
      workersUsed: mib(workers.reduce((sum, thread) => sum + thread.used, 0)),
      workersTotal: mib(workers.reduce((sum, thread) => sum + thread.total, 0)),
      kinds: workers.map((thread) => thread.kind),
    };
  }
  return sample;
}

/** Deterministic choices, so two soak runs send the same mix. */
const seeded = seededRandom;

function runCli(dataDir: string, args: string[], probe?: { out: string; intervalMs: number }): ChildProcess {
  const loaders = ['--import', 'tsx', ...(probe ? ['--import', threadProbe] : [])];
  return spawn(process.execPath, [...loaders, cliEntry, ...args], {
    env: {
      ...process.env,
      ...(probe
        ? {
            ALEXANDRIA_SOAK_PROBE_OUT: probe.out,
            ALEXANDRIA_SOAK_PROBE_INTERVAL_MS: String(probe.intervalMs),
          }
        : {}),
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_PORT: '0',
      ALEXANDRIA_HOST: '127.0.0.1',
      ALEXANDRIA_LOG_LEVEL: 'warn',
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '100000000',
      ALEXANDRIA_RATE_LIMIT_BURST: '100000000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

async function startServer(
  dataDir: string,
  probe: { out: string; intervalMs: number },
): Promise<{ url: string; key: string; child: ChildProcess }> {
  const child = runCli(dataDir, ['serve'], probe);
  const { url, adminKey: key } = await serverListening(child);
  if (!key) throw new Error('the server printed no admin key');
  return { url, key, child };
}

interface Tally {
  latencies: number[];
  errors: number;
  /** The first few error answers, to say what went wrong. */
  examples: string[];
}

/**
 * `workers` closed loops of mixed requests for `seconds`, after `warmupSeconds` of the same load that
 * is not measured; RSS is sampled every `sampleSeconds` over the whole run.
 */
export async function soakBench(options: {
  seconds: number;
  workers?: number;
  warmupSeconds?: number;
  sampleSeconds?: number;
}): Promise<BenchReport> {
  const workers = options.workers ?? 8;
  const warmupSeconds = options.warmupSeconds ?? Math.min(60, Math.max(5, Math.round(options.seconds / 10)));
  const sampleSeconds = options.sampleSeconds ?? Math.max(1, Math.min(10, Math.round(options.seconds / 60)));
  const dataDir = mkdtempSync(join(tmpdir(), 'alexandria-soak-'));
  // The full shipped ACL Anthology corpus (27k records) for /api/fast_paper_search.
  const corpus = join(sharedData, 'corpus', 'acl_anthology_2016_2022.jsonl.gz');
  const ingesting = runCli(dataDir, ['ingest', corpus, '--no-progress']);
  const [ingestCode] = await once(ingesting, 'exit');
  if (ingestCode !== 0) throw new Error(`ingest exited with ${ingestCode}`);
  // The probe's file lives beside the data folder, not in it (the server owns that folder).
  const probeOut = `${dataDir}-memory.jsonl`;
  const server = await startServer(dataDir, { out: probeOut, intervalMs: sampleSeconds * 1000 });
  const pid = server.child.pid ?? 0;
  const headers = { 'x-alexandria-api-key': server.key };
  const pdfs = pdfNames.map((name) => ({ name, bytes: readFileSync(join(sharedData, 'pdfs', name)) }));
  const titles = readFileSync(join(sharedData, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => String((JSON.parse(line) as { title: string }).title));

  const upload = async (index: number, project: string) => {
    const pdf = pdfs[index % pdfs.length] as (typeof pdfs)[number];
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pdf.bytes)], { type: 'application/pdf' }), pdf.name);
    return fetch(`${server.url}/api/add_to_project?project_name=${encodeURIComponent(project)}`, {
      method: 'POST',
      headers,
      body: form,
      signal: AbortSignal.timeout(120_000),
    });
  };
  try {
    // Every PDF stored (and parsed) once before the clock starts; their pdf_ids feed the readers.
    const pdfIds: string[] = [];
    for (let index = 0; index < pdfs.length; index += 1) {
      const response = await upload(index, 'soak');
      const body = (await response.json()) as Array<{ pdf_id?: string }>;
      if (response.status !== 200 || !body[0]?.pdf_id) throw new Error(`setup upload: ${response.status}`);
      pdfIds.push(body[0].pdf_id);
    }
    // Each PDF's chunk count, so fulltext asks only for chunks that exist.
    const chunkCounts = new Map<string, number>();
    for (const pdfId of pdfIds) {
      const response = await fetch(`${server.url}/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}`, {
        headers,
      });
      const body = (await response.json()) as { total_chunk_num?: number };
      chunkCounts.set(pdfId, Math.max(1, body.total_chunk_num ?? 1));
    }
    // And their passage vectors built (embedded on add, in the background): until then a question
    // is answered by words at the question deadline, and the server is still doing setup work (the
    // ONNX sessions grow to their batch shapes), which is not what the soak measures.
    const embedDeadline = performance.now() + 600_000;
    for (const pdfId of pdfIds) {
      const ask = `/api/question?pdf_id=${encodeURIComponent(pdfId)}&question=${encodeURIComponent('What is the main result?')}`;
      while (performance.now() < embedDeadline) {
        const response = await fetch(`${server.url}${ask}`, { headers });
        const text = await response.text();
        if (response.status !== 200)
          throw new Error(`setup question: ${response.status} ${text.slice(0, 200)}`);
        if (!text.includes('Ranked by words only')) break;
      }
    }

    const random = seeded(20);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const totalWeight = operations.reduce((sum, operation) => sum + weights[operation], 0);
    const nextOperation = (): Operation => {
      let draw = random() * totalWeight;
      for (const operation of operations) {
        draw -= weights[operation];
        if (draw < 0) return operation;
      }
      return 'search';
    };
    const send = (operation: Operation): Promise<Response> => {
      const signal = AbortSignal.timeout(120_000);
      const get = (path: string) => fetch(`${server.url}${path}`, { headers, signal });
      switch (operation) {
        case 'search': {
          const words = pick(titles)
            .split(/\s+/)
            .slice(0, 1 + Math.floor(random() * 4));
          return get(`/api/fast_paper_search?query=${encodeURIComponent(words.join(' '))}`);
        }
        case 'fulltext': {
          const pdfId = pick(pdfIds);
          const chunk = 1 + Math.floor(random() * (chunkCounts.get(pdfId) ?? 1));
          return get(`/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}&chunk=${chunk}`);
        }
        case 'question':
          return get(
            `/api/question?pdf_id=${encodeURIComponent(pick(pdfIds))}&question=${encodeURIComponent(pick(questions))}`,
          );
        case 'chat':
          return fetch(`${server.url}/api/chat/completions`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ messages: [{ role: 'user', content: pick(questions) }] }),
            signal,
          });
        case 'upload':
          return upload(Math.floor(random() * pdfs.length), `soak-${Math.floor(random() * 10)}`);
      }
    };

    const tallies = new Map<Operation, Tally>(
      operations.map((operation) => [operation, { latencies: [], errors: 0, examples: [] }]),
    );
    const samples: MemorySample[] = [];
    /** Questions answered at the question deadline by words alone (vectors still being built). */
    const wordsOnly = { count: 0, lastAtSeconds: Number.NaN };
    const started = performance.now();
    const sample = () => memorySample(pid, (performance.now() - started) / 1000, probeOut);
    const sampler = setInterval(() => samples.push(sample()), sampleSeconds * 1000);
    samples.push(sample());
    const measureFrom = started + warmupSeconds * 1000;
    const end = measureFrom + options.seconds * 1000;
    // Bounded: each loop stops at `end`; each request has its own deadline.
    const loop = async () => {
      while (performance.now() < end) {
        const operation = nextOperation();
        const begin = performance.now();
        let failure: string | null = null;
        try {
          const response = await send(operation);
          const text = await response.text();
          if (response.status !== 200) failure = `${response.status} ${text.slice(0, 200)}`;
          // Past ALEXANDRIA_QUESTION_DEADLINE_MS without the document's vectors: ranked by words.
          else if (operation === 'question' && text.includes('Ranked by words only')) {
            wordsOnly.count += 1;
            wordsOnly.lastAtSeconds = (performance.now() - started) / 1000;
          }
        } catch (error) {
          failure = (error as Error).message;
        }
        if (begin < measureFrom) continue;
        const tally = tallies.get(operation) as Tally;
        tally.latencies.push(performance.now() - begin);
        if (failure !== null) {
          tally.errors += 1;
          if (tally.examples.length < 3) tally.examples.push(failure);
        }
      }
    };
    await Promise.all(Array.from({ length: workers }, loop));
    clearInterval(sampler);
    samples.push(sample());
    const measuredSeconds = (performance.now() - measureFrom) / 1000;

    const rows: BenchRow[] = operations.map((operation) => {
      const tally = tallies.get(operation) as Tally;
      const sorted = Float64Array.from(tally.latencies).sort();
      return {
        subject: operation,
        metrics: {
          requests: tally.latencies.length,
          'req/s': tally.latencies.length / measuredSeconds,
          'p50 ms': percentile(sorted, 0.5),
          'p95 ms': percentile(sorted, 0.95),
          errors: tally.errors,
        },
      };
    });
    const all = Float64Array.from([...tallies.values()].flatMap((tally) => tally.latencies)).sort();
    const errors = [...tallies.values()].reduce((sum, tally) => sum + tally.errors, 0);
    rows.push({
      subject: 'all',
      metrics: {
        requests: all.length,
        'req/s': all.length / measuredSeconds,
        'p50 ms': percentile(all, 0.5),
        'p95 ms': percentile(all, 0.95),
        errors,
      },
    });

    const afterWarmup = samples.filter((sample) => sample.atSeconds >= warmupSeconds);
    const first = afterWarmup[0]?.rss ?? Number.NaN;
    const last = afterWarmup.at(-1)?.rss ?? Number.NaN;
    const max = Math.max(...afterWarmup.map((sample) => sample.rss));
    const change = (last - first) / first;
    const flat = Math.abs(change) <= 0.1 && (max - first) / first <= 0.1;
    const met = errors === 0 && flat;
    const every = Math.max(1, Math.ceil(afterWarmup.length / 12));
    const spaced = afterWarmup.filter((_, index) => index % every === 0 || index === afterWarmup.length - 1);
    const timeline = spaced
      .map((sample) => `${sample.atSeconds.toFixed(0)} s ${sample.rss.toFixed(0)}`)
      .join(', ');
    return {
      name: `Soak: mixed load (search/fulltext/question/chat/upload ${operations.map((operation) => weights[operation]).join('/')}), ${workers} loops against one \`alexandria serve\` process, ${options.seconds} s after ${warmupSeconds} s warm-up`,
      rows,
      summary: [
        'no baseline: a soak is judged against its goal, not against another implementation',
        `server RSS (MiB) after warm-up: first ${first.toFixed(0)}, last ${last.toFixed(0)}, max ${max.toFixed(0)}, change ${(change * 100).toFixed(1)}% (max ${(((max - first) / first) * 100).toFixed(1)}% over first); ${afterWarmup.length} samples every ${sampleSeconds} s`,
        `RSS over time (s MiB): ${timeline}`,
        ...memoryBreakdown(afterWarmup, spaced),
        `questions answered by words only at the question deadline (the document's vectors not built yet): ${wordsOnly.count}${wordsOnly.count > 0 ? `, the last at ${wordsOnly.lastAtSeconds.toFixed(0)} s` : ''} (warm-up included)`,
        ...[...tallies.entries()]
          .filter(([, tally]) => tally.examples.length > 0)
          .map(([operation, tally]) => `${operation} errors, e.g.: ${tally.examples.join(' | ')}`),
        `goal: 0 errors, RSS flat within 10% after warm-up: ${met ? 'met' : 'NOT met'} (${errors} errors, RSS ${flat ? 'flat' : 'not flat'})`,
      ],
    };
  } finally {
    server.child.kill('SIGTERM');
    if (server.child.exitCode === null) await once(server.child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(probeOut, { force: true });
  }
}

/**
 * Where the resident set went after warm-up: anonymous vs file-backed pages, the V8 heaps of the
 * main thread and of the worker threads, and the rest of the anonymous memory (native: SQLite page
 * caches, ONNX Runtime, PDFium, malloc), first → last.
 */
function memoryBreakdown(afterWarmup: MemorySample[], spaced: MemorySample[]): string[] {
  const first = afterWarmup[0];
  const last = afterWarmup.at(-1);
  if (!first || !last) return [];
  const mib = (value: number) => value.toFixed(0);
  const span = (from: number, to: number) =>
    `${mib(from)} → ${mib(to)} (${to >= from ? '+' : ''}${mib(to - from)})`;
  const lines = [
    `RSS split (MiB, first → last after warm-up): anonymous ${span(first.anon, last.anon)}, file-backed ${span(first.file, last.file)}, shared ${span(first.shmem, last.shmem)}`,
  ];
  const a = first.heaps;
  const b = last.heaps;
  if (a && b) {
    const kinds = [...new Set(b.kinds)]
      .map((kind) => `${kind} ×${b.kinds.filter((other) => other === kind).length}`)
      .join(', ');
    const native = (sample: MemorySample, heaps: NonNullable<MemorySample['heaps']>) =>
      sample.anon - heaps.mainTotal - heaps.workersTotal;
    lines.push(
      `V8 heaps (MiB, used; committed): main thread ${span(a.mainUsed, b.mainUsed)}; ${span(a.mainTotal, b.mainTotal)}; external ${span(a.mainExternal, b.mainExternal)} — worker threads (${b.workers} at the end: ${kinds || 'none'}) ${span(a.workersUsed, b.workersUsed)}; ${span(a.workersTotal, b.workersTotal)}`,
      `anonymous memory outside the V8 heaps (native: SQLite, ONNX Runtime, PDFium, allocator): ${span(native(first, a), native(last, b))} MiB`,
      `anonymous / main-thread heap used over time (s MiB/MiB): ${spaced
        .map(
          (sample) =>
            `${sample.atSeconds.toFixed(0)} s ${mib(sample.anon)}/${sample.heaps ? mib(sample.heaps.mainUsed) : '?'}`,
        )
        .join(', ')}`,
    );
  }
  return lines;
}
