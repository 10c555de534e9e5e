// `npx tsx eval/nomic-fill.ts [nomic|minilm] [seconds]`: fills `.eval/embeddings/` with the vectors
// the `EVAL_SEARCH_LEVERS=nomic` rows of the search eval read (every SciFact record's
// `recordVectorText` and the 740 claims), for at most `seconds` (default 420) of embedding, then
// saves and exits; run it again (under the CPU lock) until it reports nothing left. Resumable:
// what is cached is never embedded again. Order: the claims, the records in some claim's BM25 top
// 100, then the rest. Prints the model's speed on this run's texts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryCache } from '../src/adapters/memory/memory-cache.js';
import { createSqlitePaperIndex } from '../src/adapters/sqlite/sqlite-paper-index.js';
import { loadConfig } from '../src/config/load-config.js';
import type { Paper } from '../src/domain/paper.js';
import { resolveInputs } from '../src/ingest/ingest-inputs.js';
import { ingest } from '../src/ingest/ingest-pipeline.js';
import { recordVectorText } from '../src/services/search/hybrid-rerank.js';
import { SearchService } from '../src/services/search-service.js';
import { memoizedEmbeddingModel } from './lib/memo-embedding-model.js';
import { memoizedNomic } from './lib/nomic-embedding.js';
import { rankedQueries } from './lib/ranked-queries.js';
import { type Claim, loadClaims } from './search.eval.js';

const which = process.argv[2] === 'minilm' ? 'minilm' : 'nomic';
const budgetMs = Number(process.argv[3] ?? 420) * 1000;
/** Candidates per claim the greedy order completes first (EVAL_NOMIC_FILL_DEPTH, default 100). */
const depth = Number(process.env.EVAL_NOMIC_FILL_DEPTH ?? 100);
const scifactCorpus = join(
  import.meta.dirname,
  '..',
  '..',
  'shared',
  'data',
  'eval',
  'scifact',
  'corpus.jsonl.gz',
);

/**
 * Every SciFact record as the index stores it (what the service's record vector is computed from),
 * and the texts of the records among some claim's BM25 top 100 (embedded first: the fusion rows
 * need only those; the full scans need every record).
 */
async function scifactRecords(claims: Claim[]): Promise<{ papers: Paper[]; candidates: string[][] }> {
  const folder = await mkdtemp(join(tmpdir(), 'alexandria-nomic-'));
  try {
    const path = join(folder, 'scifact.db');
    const index = await createSqlitePaperIndex(path, { mmapBytes: 0 });
    await ingest(index, await resolveInputs(scifactCorpus, process.stdin), { batchSize: 1000 });
    const papers: Paper[] = [];
    let after = 0;
    for (;;) {
      const page = await index.recordsWithoutVectors('none', after, 1000);
      if (page.length === 0) break;
      for (const record of page) papers.push(record.paper);
      after = page.at(-1)?.id ?? after;
    }
    const search = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
    const candidates: string[][] = [];
    for await (const [, top] of rankedQueries(search, claims, (claim) => claim.text))
      candidates.push(top.map(recordVectorText));
    await index.close();
    return { papers, candidates };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The candidates' texts claim by claim, greedily: next the claim with the fewest texts not yet
 * cached or listed, so that a run cut short leaves as many claims as possible with all 100
 * candidates embedded (`EVAL_NOMIC_CACHED_ONLY=1` then scores those claims alone).
 */
async function greedyCandidateOrder(candidates: string[][], isCached: (text: string) => Promise<boolean>) {
  const covered = new Set<string>();
  for (const text of new Set(candidates.flat())) if (await isCached(text)) covered.add(text);
  const distinct = candidates.map((texts) => [...new Set(texts)]);
  const claimsOf = new Map<string, number[]>();
  distinct.forEach((texts, claim) => {
    for (const text of texts) claimsOf.set(text, [...(claimsOf.get(text) ?? []), claim]);
  });
  const missing = distinct.map((texts) => texts.filter((text) => !covered.has(text)).length);
  const done = new Array<boolean>(candidates.length).fill(false);
  const order: string[] = [];
  for (let step = 0; step < candidates.length; step += 1) {
    let next = -1;
    missing.forEach((count, claim) => {
      if (!done[claim] && (next < 0 || count < (missing[next] as number))) next = claim;
    });
    done[next] = true;
    for (const text of distinct[next] as string[]) {
      if (covered.has(text)) continue;
      covered.add(text);
      order.push(text);
      for (const claim of claimsOf.get(text) ?? []) missing[claim] = (missing[claim] as number) - 1;
    }
  }
  return order;
}

const claims = loadClaims();
const { papers, candidates } = await scifactRecords(claims);
const recordTexts = papers.map(recordVectorText);
const model =
  which === 'nomic' ? (await memoizedNomic()).memo : memoizedEmbeddingModel(loadConfig(), 'search-');
const probe = which === 'nomic' ? (await memoizedNomic({ cachedOnly: true })).memo : undefined;
const candidateOrder = probe
  ? await greedyCandidateOrder(
      depth < 100 ? candidates.map((list) => list.slice(0, depth)) : candidates,
      (text) =>
        probe.embed([text]).then(
          () => true,
          () => false,
        ),
    )
  : [...new Set(candidates.flat())];
const listed = new Set(candidateOrder);
// The deeper candidates of every claim (after a shallower greedy pass), then the rest.
for (const text of candidates.flat()) {
  if (!listed.has(text)) {
    listed.add(text);
    candidateOrder.push(text);
  }
}
const work: Array<{ text: string; inputType: 'query' | 'document' }> = [
  ...claims.map((claim) => ({ text: claim.text, inputType: 'query' as const })),
  ...candidateOrder.map((text) => ({ text, inputType: 'document' as const })),
  ...recordTexts
    .filter((text) => !listed.has(text))
    .map((text) => ({ text, inputType: 'document' as const })),
];
const started = performance.now();
let done = 0;
let embeddedDocs = 0;
let embeddedQueries = 0;
let docMs = 0;
let queryMs = 0;
try {
  for (const item of work) {
    if (performance.now() - started > budgetMs) break;
    const before = model.embedded;
    const at = performance.now();
    await model.embed([item.text], { inputType: item.inputType });
    if (model.embedded > before) {
      if (item.inputType === 'query') {
        embeddedQueries += 1;
        queryMs += performance.now() - at;
      } else {
        embeddedDocs += 1;
        docMs += performance.now() - at;
      }
      if ((embeddedDocs + embeddedQueries) % 200 === 0) model.save();
    }
    done += 1;
  }
} finally {
  model.save();
  await model.close();
}
console.log(
  JSON.stringify({
    model: which,
    records: papers.length,
    candidateTexts: listed.size,
    claims: claims.length,
    covered: done,
    left: work.length - done,
    embeddedQueries,
    queryMsMean: embeddedQueries ? queryMs / embeddedQueries : null,
    embeddedDocs,
    docsPerSecond: embeddedDocs ? embeddedDocs / (docMs / 1000) : null,
    seconds: (performance.now() - started) / 1000,
  }),
);
