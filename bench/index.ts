import { agentBench, localAgentBench } from './agent.bench.js';
import { documentsBench } from './documents.bench.js';
import { embeddingBench } from './embedding.bench.js';
import { federationBench } from './federation.bench.js';
import { growthBench } from './growth.bench.js';
import { heavyWorkBench } from './heavy-work.bench.js';
import { httpBench } from './http.bench.js';
import { ingestFormatsBench } from './ingest-formats.bench.js';
import type { BenchReport } from './lib/report.js';
import { pdfBench } from './pdf.bench.js';
import { postgresIndexBench } from './postgres-index.bench.js';
import { referencesBench } from './references.bench.js';
import { scaleOutBench } from './scale-out.bench.js';
import { searchBench } from './search.bench.js';
import { soakBench } from './soak.bench.js';
import { vectorsBench } from './vectors.bench.js';

export interface Benchmark {
  name: string;
  run(options: { quick: boolean }): Promise<BenchReport>;
  /** Run only when asked for by name (long runs such as the soak), never by a plain `npm run bench`. */
  onlyWhenNamed?: boolean;
}

/** Every benchmark, in run order. A capability adds its benchmark here. */
export const benchmarks: Benchmark[] = [
  { name: 'http', run: ({ quick }) => httpBench({ durationMs: quick ? 2000 : 8000 }) },
  { name: 'federation', run: ({ quick }) => federationBench({ iterations: quick ? 20 : 60 }) },
  { name: 'embedding', run: (options) => embeddingBench(options) },
  { name: 'documents', run: (options) => documentsBench(options) },
  { name: 'pdf', run: (options) => pdfBench(options) },
  { name: 'references', run: (options) => referencesBench(options) },
  { name: 'heavy-work', run: (options) => heavyWorkBench(options) },
  { name: 'ingest-formats', run: ({ quick }) => ingestFormatsBench({ quick }) },
  { name: 'search', run: (options) => searchBench(options) },
  { name: 'vectors', run: (options) => vectorsBench(options) },
  { name: 'postgres-index', run: (options) => postgresIndexBench(options) },
  { name: 'scale-out', run: (options) => scaleOutBench(options) },
  { name: 'agent', run: (options) => agentBench(options) },
  // The same name: `npm run bench -- agent` runs both, the extractive agent first.
  { name: 'agent', run: (options) => localAgentBench(options) },
  // The same query mix at 1M and 10M records (BENCH_GROWTH_SIZES): hours to build, by name only.
  { name: 'growth', onlyWhenNamed: true, run: (options) => growthBench(options) },
  {
    name: 'soak',
    onlyWhenNamed: true,
    // SOAK_SECONDS: measured duration (default 600 s; --quick: 60 s), after a warm-up.
    run: ({ quick }) => soakBench({ seconds: Number(process.env.SOAK_SECONDS) || (quick ? 60 : 600) }),
  },
];
