import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startChildServer } from './lib/child-server.js';
import { runLoad } from './lib/load.js';
import { type BenchReport, ratioLine } from './lib/report.js';

/** Issue 38's goal line for the authenticated cached search against bare node:http. */
const httpGoal = 0.75;

/** User + system CPU seconds a process has used so far (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** 500 real ACL Anthology records, so the search endpoint answers a real page of ten records. */
const corpus = join(
  import.meta.dirname,
  '..',
  '..',
  'shared',
  'data',
  'corpus',
  'acl_anthology_sample_500.jsonl',
);

/**
 * A cached, authenticated endpoint of ours — `/api/fast_paper_search`, the same query repeated, so
 * every request after the first is served from the search cache (key check, rate limit, metrics,
 * logging, validation, cache read, serialisation) — against a bare node:http server sending the
 * same body, each in its own process, same load, same run.
 */
export async function httpBench(options: { durationMs: number }): Promise<BenchReport> {
  const path = '/api/fast_paper_search?query=neural%20machine%20translation%20for%20low-resource%20languages';
  const ours = await startChildServer(new URL('./servers/alexandria.ts', import.meta.url), {
    BENCH_INGEST: corpus,
  });
  const headers = { 'x-alexandria-api-key': ours.extra };
  const body = await (await request(`${ours.url}${path}`, { headers })).body.text();
  const bare = await startChildServer(new URL('./servers/bare-http.ts', import.meta.url), {
    BENCH_BODY: body,
  });
  try {
    const load = { path, connections: 32, durationMs: options.durationMs };
    const bareCpu = cpuSeconds(bare.pid);
    const baseline = await runLoad({ ...load, url: bare.url });
    const bareCpuPerRequest = (cpuSeconds(bare.pid) - bareCpu) / baseline.requests;
    const oursCpu = cpuSeconds(ours.pid);
    const alexandria = await runLoad({ ...load, url: ours.url, headers });
    const oursCpuPerRequest = (cpuSeconds(ours.pid) - oursCpu) / alexandria.requests;
    const row = (subject: string, result: typeof baseline, cpu: number) => ({
      subject,
      metrics: {
        'req/s': result.requestsPerSecond,
        'server CPU µs/req': cpu * 1e6,
        'p50 ms': result.p50Ms,
        'p95 ms': result.p95Ms,
        'p99 ms': result.p99Ms,
        errors: result.errors,
      },
    });
    return {
      name: `HTTP: GET ${path} (authenticated, cached search, ${body.length} bytes) vs bare node:http, 32 connections, ${options.durationMs / 1000} s each`,
      rows: [
        row('bare node:http', baseline, bareCpuPerRequest),
        row('alexandria', alexandria, oursCpuPerRequest),
      ],
      ratios: {
        'http req/s': alexandria.requestsPerSecond / baseline.requestsPerSecond,
        'http cpu per request': bareCpuPerRequest / oursCpuPerRequest,
      },
      summary: [
        ratioLine(
          'req/s ratio alexandria / bare',
          alexandria.requestsPerSecond / baseline.requestsPerSecond,
          httpGoal,
        ),
        ratioLine(
          'server CPU per request, bare / alexandria (throughput ratio on an idle machine)',
          bareCpuPerRequest / oursCpuPerRequest,
          httpGoal,
        ),
        `p95: ${alexandria.p95Ms.toFixed(2)} ms vs ${baseline.p95Ms.toFixed(2)} ms`,
        'The machine is shared: req/s follows the load of the moment; the CPU per request of each server process is steadier.',
      ],
    };
  } finally {
    await ours.stop();
    await bare.stop();
  }
}
