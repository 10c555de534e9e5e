// Loaded into the soak's `alexandria serve` process with `--import` (never by the server itself).
// Every thread's V8 heap has its own numbers, and prom-client's /metrics only sees the main thread's,
// so this probe asks each worker thread (search, PDF, ONNX embedding) for its heap over a
// BroadcastChannel and appends one JSON line per sample to ALEXANDRIA_SOAK_PROBE_OUT:
// { t, threads: [{ kind, threadId, used, total, external }] }, the main thread first.
// Plain JavaScript so that it loads before and without the TypeScript loader.
import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';
import v8 from 'node:v8';

const require = createRequire(import.meta.url);
const threads = require('node:worker_threads');
const channelName = 'alexandria-soak-memory-probe';
const replyName = `${channelName}-reply`;

function heap() {
  const stats = v8.getHeapStatistics();
  return { used: stats.used_heap_size, total: stats.total_heap_size, external: stats.external_memory };
}

if (!threads.isMainThread) {
  const requests = new threads.BroadcastChannel(channelName);
  requests.unref();
  const replies = new threads.BroadcastChannel(replyName);
  replies.unref();
  requests.onmessage = (event) => {
    replies.postMessage({ id: event.data.id, threadId: threads.threadId, ...heap() });
  };
} else if (process.env.ALEXANDRIA_SOAK_PROBE_OUT) {
  const out = process.env.ALEXANDRIA_SOAK_PROBE_OUT;
  const intervalMs = Number(process.env.ALEXANDRIA_SOAK_PROBE_INTERVAL_MS) || 10_000;
  const self = import.meta.url;
  /** Live worker threads: module name (from piscina's start message) and their last heap numbers. */
  const known = new Map();
  const Original = threads.Worker;
  class ProbedWorker extends Original {
    constructor(filename, options = {}) {
      // Without execArgv a worker inherits the process's, which already loads this probe.
      const execArgv = options.execArgv ? [...options.execArgv, '--import', self] : undefined;
      super(filename, execArgv ? { ...options, execArgv } : options);
      const threadId = this.threadId;
      known.set(threadId, { kind: basename(String(filename)).replace(/\.[cm]?[jt]s$/, ''), heap: null });
      this.once('exit', () => known.delete(threadId));
    }

    postMessage(message, transfer) {
      // piscina starts each of its threads with a message naming the task module.
      const entry = known.get(this.threadId);
      if (entry && typeof message?.filename === 'string') {
        entry.kind = basename(message.filename).replace(/\.[cm]?[jt]s$/, '');
      }
      return super.postMessage(message, transfer);
    }
  }
  threads.Worker = ProbedWorker;
  syncBuiltinESMExports();

  const started = Date.now();
  const requests = new threads.BroadcastChannel(channelName);
  requests.unref();
  const replies = new threads.BroadcastChannel(replyName);
  replies.unref();
  let round = 0;
  replies.onmessage = (event) => {
    const entry = known.get(event.data.threadId);
    if (entry && event.data.id === round) entry.heap = event.data;
  };
  const sample = () => {
    round += 1;
    requests.postMessage({ id: round });
    // A thread busy in native code (an ONNX run, a long query) answers late: its last numbers stand.
    setTimeout(
      () => {
        const line = {
          t: (Date.now() - started) / 1000,
          threads: [
            { kind: 'main', threadId: 0, ...heap() },
            ...[...known.entries()]
              .filter(([, entry]) => entry.heap)
              .map(([threadId, entry]) => ({
                kind: entry.kind,
                threadId,
                used: entry.heap.used,
                total: entry.heap.total,
                external: entry.heap.external,
              })),
          ],
        };
        appendFileSync(out, `${JSON.stringify(line)}\n`);
      },
      Math.min(1000, intervalMs / 2),
    ).unref();
  };
  setInterval(sample, intervalMs).unref();
  sample();
}
