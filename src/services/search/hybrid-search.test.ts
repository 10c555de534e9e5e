import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { createSqlitePaperIndex, type SqlitePaperIndex } from '../../adapters/sqlite/sqlite-paper-index.js';
import { emptyPaper, type Paper } from '../../domain/paper.js';
import type { SearchRequest } from '../../domain/search.js';
import type { EmbeddingModel, EmbedOptions } from '../../ports/embedding-model.js';
import { type HybridOptions, SearchService } from '../search-service.js';
import { fuseByRank, fuseByScore, keepExactTitlesFirst, recordVectorText } from './hybrid-rerank.js';
import { RecordVectorsJob } from './record-vectors-job.js';

/**
 * A sentence encoder that knows a few topics: each dimension counts one topic's words, so texts
 * about the same topic are close whatever words BM25 sees. Records what it embedded.
 */
class TopicModel implements EmbeddingModel {
  readonly id = 'test:topics';
  readonly dimensions = 4;
  readonly maxTokens = 254;
  readonly calls: Array<{ texts: string[]; inputType: string }> = [];
  readonly options: EmbedOptions[] = [];
  delayMs = 0;
  failWith: Error | undefined;
  private readonly topics = [
    ['protein', 'folding', 'enzyme', 'amino'],
    ['translation', 'language', 'parsing', 'grammar'],
    ['image', 'vision', 'pixel', 'segmentation'],
    ['market', 'price', 'trade', 'economy'],
  ];

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    this.calls.push({ texts, inputType: options.inputType ?? 'document' });
    this.options.push(options);
    if (this.failWith) throw this.failWith;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return texts.map((text) => {
      const words = text.toLowerCase().split(/\W+/);
      const vector = new Float32Array(
        this.topics.map((topic) => words.filter((w) => topic.includes(w)).length + 0.01),
      );
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    });
  }
  countTokens(text: string): number {
    return text.split(/\s+/).length;
  }
  async close(): Promise<void> {}
}

const paper = (title: string, abstract: string, fields: Partial<Paper> = {}): Paper => ({
  ...emptyPaper(title),
  abstract,
  type: 'journal-article',
  year: 2020,
  ...fields,
});

const request = (fields: Partial<SearchRequest>): SearchRequest => ({
  sort: 'relevance',
  peerReviewedOnly: false,
  offset: 0,
  limit: 10,
  ...fields,
});

/** BM25 ranks these by how often "models" appears; only the last is about proteins. */
const corpus: Paper[] = [
  paper('Models models models of markets', 'Price models and trade models in the economy.', {
    doi: '10.9/1',
  }),
  paper('Models of language models', 'Parsing models and grammar models.', { doi: '10.9/2' }),
  paper('Image models for vision', 'Segmentation models over pixel grids.', { doi: '10.9/3' }),
  paper('Protein folding models', 'Enzyme and amino acid folding.', { doi: '10.9/4' }),
];

const indexes: SqlitePaperIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.close();
});

async function embeddedIndex(model: EmbeddingModel, papers: Paper[] = corpus): Promise<SqlitePaperIndex> {
  const index = await createSqlitePaperIndex(join(mkdtempSync(join(tmpdir(), 'hybrid-')), 'index.db'));
  indexes.push(index);
  await index.upsert(papers);
  await new RecordVectorsJob(index, model, { batchSize: 3, pauseMs: 0, idleMs: 0 }).runToEnd();
  return index;
}

function hybridService(index: SqlitePaperIndex, model: EmbeddingModel, fields: Partial<HybridOptions> = {}) {
  const fallbacks: unknown[] = [];
  const service = new SearchService(index, new MemoryCache(), {
    cacheTtlSeconds: 0,
    hybrid: {
      model,
      candidates: 50,
      deadlineMs: 1000,
      onFallback: (error) => fallbacks.push(error),
      ...fields,
    },
  });
  return { service, fallbacks };
}

const titles = (result: { papers: Paper[] }) => result.papers.map((record) => record.title);

describe('hybrid search (BM25 candidates re-ranked by RRF with record vectors)', () => {
  it('lifts the candidate whose vector matches the query, keeping the total', async () => {
    const model = new TopicModel();
    const index = await embeddedIndex(model);
    const bm25 = await new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 }).searchPapers(
      request({ query: 'models of protein folding' }),
    );
    const { service, fallbacks } = hybridService(index, model);
    const hybrid = await service.searchPapers(request({ query: 'models of protein folding' }));
    expect(titles(hybrid)[0]).toBe('Protein folding models');
    expect(hybrid.total).toBe(bm25.total);
    expect(new Set(titles(hybrid))).toEqual(new Set(titles(bm25)));
    expect(fallbacks).toEqual([]);
    expect(model.calls.at(-1)).toEqual({ texts: ['models of protein folding'], inputType: 'query' });
  });

  it('says how many candidates wait for their vectors while an ingest is being embedded', async () => {
    const model = new TopicModel();
    const index = await embeddedIndex(model);
    const { service } = hybridService(index, model);
    const complete = await service.searchPapers(request({ query: 'models' }));
    expect(complete.hint).not.toContain('vector');
    // Two more records arrive; their vectors are not computed yet.
    await index.upsert([
      paper('Grammar models revisited', 'Language models and parsing.', { doi: '10.9/5' }),
      paper('Trade models', 'Market price models.', { doi: '10.9/6' }),
    ]);
    const lagging = await service.searchPapers(request({ query: 'models' }));
    expect(lagging.total).toBe(6);
    expect(lagging.hint).toContain('2 of the 6 best keyword matches have no vector yet');
  });

  it('cuts the re-ranked candidates to the page, and keeps BM25 order past them', async () => {
    const model = new TopicModel();
    const index = await embeddedIndex(model);
    const plain = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
    const { service } = hybridService(index, model, { candidates: 2 });
    const bm25 = titles(await plain.searchPapers(request({ query: 'language models' })));
    const full = titles(await service.searchPapers(request({ query: 'language models' })));
    // The first two are BM25's first two, fused; the rest BM25's.
    expect(new Set(full.slice(0, 2))).toEqual(new Set(bm25.slice(0, 2)));
    expect(full.slice(2)).toEqual(bm25.slice(2));
    expect(full[0]).toBe('Models of language models');
    // Pages of the same order.
    const second = await service.searchPapers(request({ query: 'language models', offset: 1, limit: 2 }));
    expect(titles(second)).toEqual(full.slice(1, 3));
    const past = await service.searchPapers(request({ query: 'language models', offset: 2, limit: 2 }));
    expect(titles(past)).toEqual(bm25.slice(2, 4));
  });

  it('ranks records without a vector by their BM25 rank alone', () => {
    const query = new Float32Array([1, 0]);
    // BM25 order 0, 1, 2, 3; position 1 has no vector; dense order 2, 3, 0.
    const order = fuseByRank(query, [
      new Float32Array([0, 1]),
      undefined,
      new Float32Array([1, 0]),
      new Float32Array([0.8, 0.6]),
    ]);
    // 0: 1/61 + 1/63 ties 2: 1/63 + 1/61 (BM25 order breaks it); 3: 1/64 + 1/62; 1: 1/62 alone.
    expect(order).toEqual([0, 2, 3, 1]);
  });

  it('fuses min-max normalised BM25 and cosine scores by weight, a record without a vector at the median', () => {
    const query = new Float32Array([1, 0]);
    const vectors = [
      new Float32Array([0, 1]), // cosine 0 → 0
      undefined, // → median of the others (0.8)
      new Float32Array([1, 0]), // 1 → 1
      new Float32Array([0.8, 0.6]), // 0.8 → 0.8
    ];
    const bm25 = [10, 8, 6, 2]; // → 1, 0.75, 0.5, 0
    // weight 0.6: 0.4, 0.78, 0.8, 0.48
    expect(fuseByScore(query, vectors, bm25, 0.6)).toEqual([2, 1, 3, 0]);
    // weight 0: BM25's order; weight 1: the cosine's, ties (1 and 3 at 0.8) in BM25 order.
    expect(fuseByScore(query, vectors, bm25, 0)).toEqual([0, 1, 2, 3]);
    expect(fuseByScore(query, vectors, bm25, 1)).toEqual([2, 1, 3, 0]);
  });

  it('keeps a record whose title is the query first (known-item search)', () => {
    const titles = ['Fully quantized transformer', 'Efficient Transformer Quantization', 'Other'];
    expect(keepExactTitlesFirst([0, 2, 1], titles, 'efficient transformer quantization')).toEqual([1, 0, 2]);
    expect(keepExactTitlesFirst([0, 2, 1], titles, 'Efficient  Transformer-Quantization!')).toEqual([
      1, 0, 2,
    ]);
    expect(keepExactTitlesFirst([0, 2, 1], titles, 'transformer quantization')).toEqual([0, 2, 1]);
  });

  it('keeps the paper whose title is the query first even when its vector disagrees', async () => {
    /** Vectors chosen per text: the query and the pixel paper agree, the titled paper does not. */
    const model: EmbeddingModel = {
      id: 'test:chosen',
      dimensions: 2,
      maxTokens: 254,
      countTokens: (text) => text.length,
      close: async () => {},
      embed: async (texts, options) =>
        texts.map((text) =>
          options?.inputType === 'query' || text.startsWith('Pixel')
            ? new Float32Array([1, 0])
            : text.startsWith('Image models for vision')
              ? new Float32Array([0, 1])
              : new Float32Array([Math.SQRT1_2, Math.SQRT1_2]),
        ),
    };
    const index = await embeddedIndex(model, [
      ...corpus,
      paper('Pixel grids', 'Grids of pixel values for vision.', { doi: '10.9/6' }),
    ]);
    const { service } = hybridService(index, model);
    const plain = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
    expect(titles(await plain.searchPapers(request({ query: 'image models for vision' })))[0]).toBe(
      'Image models for vision',
    );
    // Not the title: the fusion moves BM25's first down.
    expect(titles(await service.searchPapers(request({ query: 'vision image models' })))[0]).not.toBe(
      'Image models for vision',
    );
    // The title, however written: its paper stays first.
    expect(titles(await service.searchPapers(request({ query: 'Image Models for Vision' })))[0]).toBe(
      'Image models for vision',
    );
  });

  it('answers with BM25 order when the model fails or misses the deadline', async () => {
    const model = new TopicModel();
    const index = await embeddedIndex(model);
    const plain = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
    const bm25 = titles(await plain.searchPapers(request({ query: 'models of protein folding' })));
    model.failWith = new Error('model unavailable');
    const failing = hybridService(index, model);
    expect(
      titles(await failing.service.searchPapers(request({ query: 'models of protein folding' }))),
    ).toEqual(bm25);
    expect(failing.fallbacks).toHaveLength(1);
    model.failWith = undefined;
    // The model answers after 1 s; the search stops waiting at 50 ms (measured: 0.07 s in all).
    model.delayMs = 1000;
    const slow = hybridService(index, model, { deadlineMs: 50 });
    const started = performance.now();
    const result = await slow.service.searchPapers(request({ query: 'models of protein folding' }));
    expect(performance.now() - started).toBeLessThan(700);
    expect(titles(result)).toEqual(bm25);
    expect(slow.fallbacks).toHaveLength(1);
  });

  it('leaves other sorts to BM25, and an index without vectors after its first search', async () => {
    const model = new TopicModel();
    const index = await createSqlitePaperIndex(join(mkdtempSync(join(tmpdir(), 'hybrid-')), 'index.db'));
    indexes.push(index);
    await index.upsert(corpus);
    const plain = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
    const bm25 = await plain.searchPapers(request({ query: 'models of protein folding', limit: 2 }));
    const { service, fallbacks } = hybridService(index, model);
    // The first search embeds its query while BM25 runs, then finds no vectors: BM25's page.
    const first = await service.searchPapers(request({ query: 'models of protein folding', limit: 2 }));
    expect(titles(first)).toEqual(titles(bm25));
    expect(first.total).toBe(bm25.total);
    expect(first.hint).toContain('Ranked by keywords alone: their vectors are still being computed');
    expect(bm25.hint).not.toContain('vector');
    expect(model.calls).toHaveLength(1);
    // For a minute, searches are BM25's without embedding anything, and say so.
    const next = await service.searchPapers(request({ query: 'language models' }));
    expect(next.hint).toContain('Ranked by keywords alone');
    const withVectors = await embeddedIndex(new TopicModel());
    const other = hybridService(withVectors, model);
    await other.service.searchPapers(request({ query: 'protein models', sort: 'cited_by_count' }));
    expect(model.calls).toHaveLength(1);
    expect(fallbacks).toEqual([]);
  });
});

describe('RecordVectorsJob', () => {
  it('embeds every record once, title and abstract, and again after its text changed', async () => {
    const model = new TopicModel();
    const index = await embeddedIndex(model);
    expect(model.calls.flatMap((call) => call.texts)).toEqual(corpus.map(recordVectorText));
    expect(await index.vectorCoverage(model.id)).toEqual({ withVectors: 4, records: 4 });
    const job = new RecordVectorsJob(index, model, { batchSize: 3, pauseMs: 0, idleMs: 0 });
    expect((await job.runToEnd()).embedded).toBe(0);
    await index.upsert([
      paper('Protein folding models', 'Enzyme and amino acid folding, revised and longer.', {
        doi: '10.9/4',
      }),
    ]);
    const again = await job.runToEnd();
    expect(again).toMatchObject({ embedded: 1, stored: 1 });
    expect(model.calls.at(-1)?.texts).toEqual([
      'Protein folding models. Enzyme and amino acid folding, revised and longer.',
    ]);
  });

  it('asks the model for background work, cut at the configured tokens', async () => {
    const model = new TopicModel();
    const index = await createSqlitePaperIndex(join(mkdtempSync(join(tmpdir(), 'hybrid-')), 'index.db'));
    await index.upsert(corpus);
    await new RecordVectorsJob(index, model, {
      batchSize: 64,
      maxTokens: 190,
      pauseMs: 0,
      idleMs: 0,
    }).runToEnd();
    expect(model.calls).toHaveLength(1);
    expect(model.options[0]).toMatchObject({
      background: true,
      maxTokens: 190,
      inputType: 'document',
    });
    await index.close();
  });

  it('runs in the background until stopped, and keeps going after a failed batch', async () => {
    const model = new TopicModel();
    const index = await createSqlitePaperIndex(join(mkdtempSync(join(tmpdir(), 'hybrid-')), 'index.db'));
    indexes.push(index);
    await index.upsert(corpus);
    model.failWith = new Error('model not loaded yet');
    const errors: unknown[] = [];
    const job = new RecordVectorsJob(index, model, {
      batchSize: 2,
      pauseMs: 0,
      idleMs: 20,
      onError: (error) => errors.push(error),
    });
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors.length).toBeGreaterThan(0);
    model.failWith = undefined;
    for (let wait = 0; wait < 50; wait += 1) {
      if ((await index.vectorCoverage(model.id)).withVectors === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await index.vectorCoverage(model.id)).toEqual({ withVectors: 4, records: 4 });
    await job.stop();
    const calls = model.calls.length;
    await index.upsert([paper('Vision transformers', 'Image patches.', { doi: '10.9/5' })]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(model.calls.length).toBe(calls);
  });
});
