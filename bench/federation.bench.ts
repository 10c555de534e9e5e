import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MemoryCache } from '../src/adapters/memory/memory-cache.js';
import { createUpstreamSources } from '../src/adapters/sources/create-upstream-sources.js';
import type { SearchRequest } from '../src/domain/search.js';
import { percentile } from '../src/platform/percentile.js';
import { systemClock } from '../src/ports/clock.js';
import { FederatedSearch } from '../src/services/federation/federated-search.js';
import { emptyLocalIndex } from '../src/services/federation/paper-metadata-service.js';
import type { BenchReport } from './lib/report.js';

const upstream = join(import.meta.dirname, '..', '..', 'shared', 'data', 'upstream');

/** A recorded body of one API (first interaction whose URI contains `part`). */
function recordedBody(api: string, part: string): string {
  const line = readFileSync(join(upstream, api, 'interactions.jsonl'), 'utf8')
    .split('\n')
    .find((candidate) => candidate.includes(part));
  if (!line) throw new Error(`no ${api} recording with ${part}`);
  return (JSON.parse(line) as { body: string }).body;
}

interface FakeSource {
  name: string;
  latencyMs: number;
  body: string;
  /** `fail`: HTTP 503 at once; `hang`: accepts and never answers. */
  mode: 'ok' | 'fail' | 'hang';
}

/** One loopback server playing every source under /<name>/, with per-source latency (±10 % jitter). */
async function startFakeSources(
  sources: FakeSource[],
): Promise<{ base: string; server: Server; stop(): Promise<void> }> {
  const byName = new Map(sources.map((source) => [source.name, source]));
  const server = createServer((request, response) => {
    const name = new URL(request.url ?? '/', 'http://fake').pathname.split('/')[1] ?? '';
    const source = byName.get(name);
    if (!source || source.mode === 'hang') return;
    if (source.mode === 'fail') {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('unavailable');
      return;
    }
    const delay = source.latencyMs * (0.9 + Math.random() * 0.2);
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(source.body);
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    server,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function buildSearch(base: string, names: string[], limits: { sourceTimeoutMs: number; deadlineMs: number }) {
  const upstreamSources = createUpstreamSources({
    enabled: names,
    contactEmail: 'bench@example.org',
    // the loopback fakes have no rate limit; the real default for S2 is 1 request/s
    semanticScholarRequestsPerSecond: 100,
    sourceTimeoutMs: limits.sourceTimeoutMs,
    breakerCooldownMs: 60_000,
    baseUrls: Object.fromEntries(names.map((name) => [name, `${base}/${name}`])),
    cache: new MemoryCache(),
    clock: systemClock,
  });
  // No response caching inside the run: every query below is new.
  return {
    upstreamSources,
    search: new FederatedSearch({
      local: emptyLocalIndex,
      sources: upstreamSources.sources,
      patentSources: [],
      cache: new MemoryCache(),
      settings: { ...limits, depth: 25 },
    }),
  };
}

const request = (index: number): SearchRequest => ({
  keywords: `copper oxide thin film ${index}`,
  sort: 'relevance',
  peerReviewedOnly: false,
  offset: 0,
  limit: 10,
});

function summarize(samples: number[]) {
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/**
 * Federated search against loopback fake sources with realistic latencies (recorded bodies:
 * OpenAlex 180 ms, Semantic Scholar 250 ms, Europe PMC 300 ms, Crossref 350 ms) and arXiv failing.
 * Baseline, same run: the slowest healthy source (Crossref) searched alone through its adapter.
 * Second scenario: the same with one source hanging; the answer must come within the deadline.
 */
export async function federationBench(options: { iterations: number }): Promise<BenchReport> {
  const healthy: FakeSource[] = [
    {
      name: 'openalex',
      latencyMs: 180,
      mode: 'ok',
      body: recordedBody('openalex', 'title.search%3AAugmenting+large'),
    },
    {
      name: 'semantic_scholar',
      latencyMs: 250,
      mode: 'ok',
      body: recordedBody('semantic_scholar', 'search?query=turing&fields=title&offset=0'),
    },
    {
      name: 'europepmc',
      latencyMs: 300,
      mode: 'ok',
      body: readFileSync(join(upstream, 'europepmc/responses/pyEuropePMC/search_cancer_core.json'), 'utf8'),
    },
    {
      name: 'crossref',
      latencyMs: 350,
      mode: 'ok',
      body: recordedBody('crossref', 'works?query=ecology&rows=2'),
    },
  ];
  const limits = { sourceTimeoutMs: 1500, deadlineMs: 2000 };
  const fakes = await startFakeSources([...healthy, { name: 'arxiv', latencyMs: 0, mode: 'fail', body: '' }]);
  const hanging = await startFakeSources([
    ...healthy,
    { name: 'arxiv', latencyMs: 0, mode: 'hang', body: '' },
  ]);
  try {
    const names = ['openalex', 'semantic_scholar', 'europepmc', 'crossref', 'arxiv'];
    const failing = buildSearch(fakes.base, names, limits);
    const slowest = failing.upstreamSources.sources.find((source) => source.name === 'crossref');
    if (!slowest?.search) throw new Error('crossref source missing');

    // Warm-up: JIT, sockets, and the failing source's breaker learning that it is down.
    for (let index = 0; index < 4; index += 1) await failing.search.searchPapers(request(-index - 1));

    const baseline: number[] = [];
    const federated: number[] = [];
    let lastSources = '';
    for (let index = 0; index < options.iterations; index += 1) {
      let started = performance.now();
      await slowest.search({
        text: `copper oxide ${index}`,
        sort: 'relevance',
        peerReviewedOnly: false,
        limit: 25,
      });
      baseline.push(performance.now() - started);
      started = performance.now();
      const result = await failing.search.searchPapers(request(index));
      federated.push(performance.now() - started);
      lastSources = (result.sources ?? []).map((report) => `${report.source}=${report.status}`).join(';');
    }

    const stuck = buildSearch(hanging.base, names, limits);
    const hang: number[] = [];
    const hangRuns = Math.max(3, Math.round(options.iterations / 6));
    let hangSources = '';
    for (let index = 0; index < hangRuns; index += 1) {
      const started = performance.now();
      const result = await stuck.search.searchPapers(request(1000 + index));
      hang.push(performance.now() - started);
      hangSources = (result.sources ?? []).map((report) => `${report.source}=${report.status}`).join(';');
    }

    const base = summarize(baseline);
    const fed = summarize(federated);
    const stalled = summarize(hang);
    const overheadP95 = fed.p95 - base.p95;
    const goalOverheadMs = 50;
    return {
      name: `Federation: search over 4 healthy loopback sources + 1 failing, ${options.iterations} sequential queries`,
      rows: [
        {
          subject: 'slowest healthy source alone (crossref, 350 ms)',
          metrics: { 'p50 ms': base.p50, 'p95 ms': base.p95, 'max ms': base.max },
        },
        {
          subject: 'federated (4 ok + arxiv failing)',
          metrics: { 'p50 ms': fed.p50, 'p95 ms': fed.p95, 'max ms': fed.max },
        },
        {
          subject: `federated, arxiv hanging (timeout ${limits.sourceTimeoutMs} ms, deadline ${limits.deadlineMs} ms)`,
          metrics: { 'p50 ms': stalled.p50, 'p95 ms': stalled.p95, 'max ms': stalled.max },
        },
      ],
      summary: [
        `p95 overhead of federation over the slowest healthy source: ${overheadP95.toFixed(1)} ms (${(fed.p95 / base.p95).toFixed(2)}×; goal ≤ ${goalOverheadMs} ms: ${overheadP95 <= goalOverheadMs ? 'met' : 'NOT met'})`,
        `time to answer with a hanging source: max ${stalled.max.toFixed(0)} ms (goal ≤ deadline ${limits.deadlineMs} ms: ${stalled.max <= limits.deadlineMs ? 'met' : 'NOT met'})`,
        `sources of the last federated answer: ${lastSources}`,
        `sources with a hanging source: ${hangSources}`,
      ],
    };
  } finally {
    await fakes.stop();
    await hanging.stop();
  }
}
