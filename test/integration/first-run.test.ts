import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSourceNames } from '../../src/config/sections/sources.js';
import { connectMcp, toolText } from '../helpers/mcp-client.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';
import { freePort } from '../helpers/web-fixtures.js';

/**
 * A first run (issue "anyone can clone, test, run and operate it", part 2; decision 0045): with no
 * configuration the service federates the open, keyless sources, says so at startup with the way to
 * keep everything local, and an empty first search is never silent: the array endpoints carry
 * `x-alexandria-hint`, MCP's fast_paper_search its `hint`, the agent the same words.
 */

const question = 'how to detect hallucinations in abstractive summarization';

const hintOf = (headers: Record<string, unknown>) =>
  decodeURIComponent(String(headers['x-alexandria-hint'] ?? ''));

/** The default sources pointed at a loopback port nobody listens on: a machine without internet. */
async function unreachableSources(): Promise<string> {
  const closed = await freePort();
  return defaultSourceNames.map((name) => `${name}=http://127.0.0.1:${closed}`).join(',');
}

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

describe('a first run with no configuration (decision 0045)', () => {
  it('federates the keyless sources; none reachable, an empty first search says so and how to stay local', async () => {
    const t = await createTestApp({
      ALEXANDRIA_SOURCES: undefined,
      ALEXANDRIA_SOURCE_URLS: await unreachableSources(),
    });
    apps.push(t);
    expect(t.container.upstreamSources).toEqual(['openalex', 'crossref', 'europepmc', 'pubmed', 'arxiv']);

    const response = await t.app.inject({
      url: `/api/fast_paper_search?query=${encodeURIComponent(question)}`,
      headers: withKey(t.key),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
    // PubMed answers look-ups by PMID only; Europe PMC searches its records.
    expect(response.headers['x-alexandria-sources']).toBe(
      'index=ok;openalex=failed;crossref=failed;europepmc=failed;arxiv=failed',
    );
    const hint = hintOf(response.headers);
    expect(hint).toBe(
      "Nothing found: the local index holds no papers, and no upstream source could be reached (openalex, crossref, europepmc and arxiv failed). Check this machine's internet access (proxy, firewall, DNS) and search again, or fill the local index with `alexandria ingest <file or folder>` (a metadata dump such as an OpenAlex or arXiv snapshot, BibTeX, or a folder of PDFs); ALEXANDRIA_SOURCES=none keeps every request on this machine.",
    );
  });

  it('offline and empty: every surface says there is nothing to search, and how to fill the index or turn sources on', async () => {
    const t = await createTestApp({ ALEXANDRIA_SOURCES: 'none' });
    apps.push(t);
    expect(t.container.upstreamSources).toEqual([]);
    const expected =
      /^Nothing to search: the local index holds no papers and upstream sources are off \(ALEXANDRIA_SOURCES=none\)\. To find literature, turn the open scholarly sources on by leaving ALEXANDRIA_SOURCES unset .*, or fill the local index with `alexandria ingest <file or folder>`/;

    // The array endpoints: `[]` with the hint in a header (a replayed cached answer too).
    for (const path of ['/api/fast_paper_search', '/api/abstracts', '/api/abstracts']) {
      const response = await t.app.inject({
        url: `${path}?query=${encodeURIComponent(question)}`,
        headers: withKey(t.key),
      });
      expect(response.json()).toEqual([]);
      expect(hintOf(response.headers)).toMatch(expected);
    }
    const patents = await t.app.inject({
      url: '/api/patents?keywords=wireless%20charging',
      headers: withKey(t.key),
    });
    expect(hintOf(patents.headers)).toMatch(/^Nothing to search: the local index holds no patents/);
    // The wrapped form's hint is the header's text.
    const wrapped = await t.app.inject({
      url: `/api/fast_paper_search?format=wrapped&query=${encodeURIComponent(question)}`,
      headers: withKey(t.key),
    });
    expect(wrapped.json().hint).toBe(hintOf(wrapped.headers));

    // MCP's fast_paper_search: the same words in its `hint`.
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = await connectMcp(base, t.key, 'first-run-test');
    try {
      const result = await client.callTool({ name: 'fast_paper_search', arguments: { query: question } });
      const body = JSON.parse(toolText(result)) as { hint: string; result: { papers: unknown[] } };
      expect(body.result.papers).toEqual([]);
      expect(body.hint).toMatch(expected);
    } finally {
      await client.close();
    }

    // The research agent (extractive, no chat model): what it searched for, then the same words.
    const chat = await t.app.inject({
      method: 'POST',
      url: '/api/chat/completions',
      headers: withKey(t.key),
      payload: { model: 'alexandria', messages: [{ role: 'user', content: question }] },
    });
    expect(chat.statusCode).toBe(200);
    const answer = chat.json().choices[0].message.content as string;
    expect(answer).toMatch(
      /Searched for: [^.]*hallucinations[^.]*\. Nothing to search: the local index holds no papers and upstream sources are off/,
    );
    expect(answer).toContain('`alexandria ingest <file or folder>`');
  });
});

describe('alexandria serve says at startup where searches go (decision 0045)', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  async function startupText(env: Record<string, string | undefined>): Promise<string> {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-first-run-'));
    folders.push(dataDir);
    const child = spawnCli(dataDir, ['serve'], env);
    let stderr = '';
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    try {
      await serverListening(child);
      return stderr;
    } finally {
      child.kill('SIGKILL');
    }
  }

  it('names the sources it federates by default and how to keep everything on the machine', async () => {
    const text = await startupText({
      ALEXANDRIA_SOURCES: undefined,
      // Nothing searches here; were anything to, it would meet a closed loopback port.
      ALEXANDRIA_SOURCE_URLS: await unreachableSources(),
    });
    expect(text).toContain(
      'Upstream sources: openalex, crossref, europepmc, pubmed, arxiv. Searches and paper look-ups send their words and identifiers to these services',
    );
    expect(text).toContain('ALEXANDRIA_SOURCES=none keeps every request on this machine.');
    expect(text).toContain(
      'Local index: empty. To search your own corpus offline, fill the local index with `alexandria ingest <file or folder>`',
    );
  }, 120_000);

  it('says nothing leaves the machine with ALEXANDRIA_SOURCES=none, and an empty value means none too', async () => {
    for (const value of ['none', '']) {
      const text = await startupText({ ALEXANDRIA_SOURCES: value });
      expect(text).toContain(
        'Upstream sources: off (ALEXANDRIA_SOURCES=none). Every request stays on this machine',
      );
    }
  }, 120_000);
});
