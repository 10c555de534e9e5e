import { Pool } from 'undici';
import { percentile } from '../../src/platform/percentile.js';

export interface LoadResult {
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/**
 * A closed-loop load generator: `connections` loops, each sending the next request as soon as the
 * previous answer is read, for `durationMs` (loopback only). Latencies are exact, not sampled.
 */
export async function runLoad(options: {
  url: string;
  path: string;
  headers?: Record<string, string>;
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
}): Promise<LoadResult> {
  const connections = options.connections ?? 32;
  const pool = new Pool(options.url, { connections, pipelining: 1 });
  const send = async () => {
    const response = await pool.request({
      method: 'GET',
      path: options.path,
      headers: options.headers ?? {},
    });
    await response.body.arrayBuffer();
    return response.statusCode;
  };
  const loop = async (until: number, latencies: number[] | null) => {
    let errors = 0;
    while (performance.now() < until) {
      const start = performance.now();
      const status = await send().catch(() => 0);
      if (status !== 200) errors += 1;
      latencies?.push(performance.now() - start);
    }
    return errors;
  };
  const warmupEnd = performance.now() + (options.warmupMs ?? 1000);
  await Promise.all(Array.from({ length: connections }, () => loop(warmupEnd, null)));
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + (options.durationMs ?? 5000);
  const errors = (await Promise.all(Array.from({ length: connections }, () => loop(end, latencies)))).reduce(
    (sum, count) => sum + count,
    0,
  );
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    p99Ms: percentile(sorted, 0.99),
  };
}
