import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../src/adapters/memory/memory-cache.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Paper } from '../../src/domain/paper.js';
import { createHttpApp } from '../../src/http/server.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { SearchService } from '../../src/services/search-service.js';
import { aclCorpus } from '../helpers/ranking-corpus.js';
import { offline } from '../helpers/test-app.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/**
 * The composition root as `alexandria serve` builds it (background on): real ACL Anthology records in
 * the SQLite index, the real ONNX model, the record-vector job in-process, `/api/abstracts` ranked
 * with the vectors it stored.
 */
describe('hybrid paper search in the running server', () => {
  it('embeds new records in the background, re-ranks relevance searches with them, closes with the job running', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-hybrid-'));
    folders.push(dataDir);
    const config = loadConfig({
      ...offline,
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_LOG_LEVEL: 'silent',
      ALEXANDRIA_RECORD_VECTORS_PAUSE_MS: '0',
      ALEXANDRIA_RECORD_VECTORS_IDLE_MS: '200',
      ALEXANDRIA_SEARCH_CACHE_TTL_SECONDS: '0',
    });
    const container: Container = await createContainer(config, createLogger({ level: 'silent' }), {
      background: true,
    });
    const app = await createHttpApp(container);
    await app.ready();
    try {
      const index = container.stores.index;
      const records = (await aclCorpus.records())
        .slice(0, 24)
        .map((paper): Paper => ({ ...paper, type: 'journal-article' }));
      // The ingest does not wait for vectors.
      await index.upsert(records);
      const model = 'onnx:all-MiniLM-L6-v2';
      const deadline = Date.now() + 120_000;
      while ((await index.vectorCoverage?.(model))?.withVectors !== 24 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await index.vectorCoverage?.(model)).toEqual({ withVectors: 24, records: 24 });

      const { key } = await container.services.auth.createKey('tenant-a');
      const bm25 = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
      const ask = async (query: string, limit = 100) => {
        const response = await app.inject({
          url: `/api/abstracts?query=${encodeURIComponent(query)}&limit=${limit}&peer_reviewed_only=false&format=wrapped`,
          headers: { 'x-alexandria-api-key': key },
        });
        expect(response.statusCode).toBe(200);
        const body = response.json() as { total_num_results: number; paper_data: Array<{ title: string }> };
        return { total: body.total_num_results, titles: body.paper_data.map((paper) => paper.title) };
      };
      const claim = 'Tools that help people annotate text and build datasets for language models';
      const plain = await bm25.searchPapers({
        query: claim,
        sort: 'relevance',
        peerReviewedOnly: false,
        offset: 0,
        limit: 100,
      });
      const hybrid = await ask(claim);
      // Same matches and total, another order (the vectors are used).
      expect(hybrid.total).toBe(plain.total);
      expect(hybrid.total).toBeGreaterThan(5);
      expect([...hybrid.titles].sort()).toEqual(plain.papers.map((paper) => paper.title).sort());
      expect(hybrid.titles).not.toEqual(plain.papers.map((paper) => paper.title));
      // Known-item search: a title finds its paper first.
      for (const record of records.slice(0, 10)) {
        expect((await ask(record.title, 3)).titles[0]).toBe(record.title);
      }
    } finally {
      await app.close();
      await container.close();
    }
  }, 180_000);
});
