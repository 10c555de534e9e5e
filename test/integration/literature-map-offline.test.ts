import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paper } from '../../src/domain/paper.js';
import { resolveInputs } from '../../src/ingest/ingest-inputs.js';
import { ingest } from '../../src/ingest/ingest-pipeline.js';
import { fixtures } from '../helpers/requirements.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Issue 16, "offline literature_map always returns related: 0": the local related search asked for
 * every word of the full title as keywords, which only the paper itself has. Over 500 real ACL
 * Anthology records, offline (no source enabled), the title's words now rank the index and the
 * paper itself is left out.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  const corpus = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');
  await ingest(t.container.stores.index, await resolveInputs(corpus, process.stdin));
}, 120_000);
afterAll(async () => {
  await t.close();
});

async function literatureMap(paperId: string, limit = 10) {
  const response = await t.app.inject({
    url: `/api/literature_map?paper_id=${encodeURIComponent(paperId)}&limit=${limit}`,
    headers: withKey(t.key),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { paper: Paper; related: Paper[]; references: Paper[]; hint: string };
}

describe('offline literature_map over an ingested ACL corpus', () => {
  it('lists related papers of the index, ranked by the title words, without the paper itself', async () => {
    const map = await literatureMap('ACL:2022.acl-long.158');
    expect(map.paper.title).toBe(
      'Knowledgeable Prompt-tuning: Incorporating Knowledge into Prompt Verbalizer for Text Classification',
    );
    expect(map.related).toHaveLength(10);
    expect(map.related.map((paper) => paper.title)).not.toContain(map.paper.title);
    // Relevant: every one shares a content word of the title.
    const titles = map.related.map((paper) => paper.title.toLowerCase());
    // The other verbalizer paper of the corpus comes first; most are about prompts.
    expect(titles[0]).toBe('prototypical verbalizer for prompt-based few-shot tuning');
    expect(titles.filter((title) => title.includes('prompt')).length).toBeGreaterThanOrEqual(6);
    const words = ['knowledgeable', 'prompt', 'tuning', 'knowledge', 'verbalizer', 'text', 'classification'];
    for (const title of titles)
      expect(
        words.some((word) => title.includes(word)),
        title,
      ).toBe(true);
    expect(map.references).toEqual([]);
    expect(map.hint).toMatch(/^0 references, 0 citing papers, 10 related papers\./);
  });

  it('gives related papers for a short title too, within the limit', async () => {
    const map = await literatureMap('ACL:2022.acl-demo.10', 3);
    expect(map.paper.title).toBe('OpenPrompt: An Open-source Framework for Prompt-learning');
    expect(map.related.length).toBe(3);
    expect(map.related.every((paper) => paper.title !== map.paper.title)).toBe(true);
    expect(map.related.some((paper) => /prompt/i.test(paper.title))).toBe(true);
  });
});
