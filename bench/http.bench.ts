import { request } from 'undici';
import { startChildServer } from './lib/child-server.js';
import { runLoad } from './lib/load.js';
import { type BenchReport, ratioLine } from './lib/report.js';

/**
 * An authenticated endpoint of ours (key check, rate limit, metrics, logging, a store read) against
 * a bare node:http server sending the same body, each in its own process, same load, same run.
 */
export async function httpBench(options: { durationMs: number }): Promise<BenchReport> {
  const path = '/api/projects';
  const ours = await startChildServer(new URL('./servers/alexandria.ts', import.meta.url));
  const headers = { 'x-alexandria-api-key': ours.extra };
  const body = await (await request(`${ours.url}${path}`, { headers })).body.text();
  const bare = await startChildServer(new URL('./servers/bare-http.ts', import.meta.url), {
    BENCH_BODY: body,
  });
  try {
    const load = { path, connections: 32, durationMs: options.durationMs };
    const baseline = await runLoad({ ...load, url: bare.url });
    const alexandria = await runLoad({ ...load, url: ours.url, headers });
    const row = (subject: string, result: typeof baseline) => ({
      subject,
      metrics: {
        'req/s': result.requestsPerSecond,
        'p50 ms': result.p50Ms,
        'p95 ms': result.p95Ms,
        'p99 ms': result.p99Ms,
        errors: result.errors,
      },
    });
    return {
      name: `HTTP: GET ${path} (authenticated) vs bare node:http, 32 connections, ${options.durationMs / 1000} s each`,
      rows: [row('bare node:http', baseline), row('alexandria', alexandria)],
      summary: [
        ratioLine(
          'req/s ratio alexandria / bare',
          alexandria.requestsPerSecond / baseline.requestsPerSecond,
          0.5,
        ),
        `p95: ${alexandria.p95Ms.toFixed(2)} ms vs ${baseline.p95Ms.toFixed(2)} ms`,
      ],
    };
  } finally {
    await ours.stop();
    await bare.stop();
  }
}
