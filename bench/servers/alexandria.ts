// Our service on a throw-away data folder, with one API key; prints the URL and the key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { resolveInputs } from '../../src/ingest/ingest-inputs.js';
import { ingest } from '../../src/ingest/ingest-pipeline.js';
import { createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';

const dataDir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'alexandria-bench-'));
const config = loadConfig({
  // Measured offline, on the local index, unless the environment names sources (decision 0045).
  ALEXANDRIA_SOURCES: 'none',
  ...process.env,
  ALEXANDRIA_DATA_DIR: dataDir,
  ALEXANDRIA_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
  ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '100000000',
  ALEXANDRIA_RATE_LIMIT_BURST: '100000000',
  ALEXANDRIA_SEARCH_CACHE_TTL_SECONDS: '3600',
});
const container = await createContainer(config, createLogger({ level: config.server.logLevel }));
// Records to search (BENCH_INGEST: a file the ingest pipeline reads), so search endpoints answer real pages.
if (process.env.BENCH_INGEST) {
  await ingest(container.stores.index, await resolveInputs(process.env.BENCH_INGEST, process.stdin));
}
const { key } = await container.services.auth.createKey('bench');
// BENCH_MORE_TENANTS: how many other tenants get a key too (printed after the first, space-separated).
const more: string[] = [];
for (let index = 0; index < Number(process.env.BENCH_MORE_TENANTS ?? 0); index++) {
  more.push((await container.services.auth.createKey(`bench-${index + 2}`)).key);
}
const app = await createHttpApp(container);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`LISTENING ${address} ${[key, ...more].join(' ')}`);
// BENCH_LOOP_DELAY: print the event loop's longest delay of each second ("LOOP <ms>"), so a bench
// can tell a stalled event loop from a busy machine.
if (process.env.BENCH_LOOP_DELAY) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    console.log(`LOOP ${(delay.max / 1e6).toFixed(0)}`);
    delay.reset();
  }, 1000).unref();
}
process.on('SIGTERM', async () => {
  await app.close();
  await container.close();
  process.exit(0);
});
