import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UndiciUrlFetcher } from '../../src/adapters/http-fetch/undici-url-fetcher.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { editorialPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Offline is quiet (issue 15 item 6): with no upstream source configured, the research agent reads
 * only what is here — stored PDFs and cached parses — and tries no host. The app is the real one
 * (composition root, SQLite index, PDF worker); remote PDFs are served by a loopback server that
 * counts requests, and the URL fetcher is spied on.
 */

const editorial = await editorialPdf();
const question = 'How does COVID-19 vaccination work in immunosuppressed cancer patients?';

let pdfServer: Server;
let base: string;
const hits = new Map<string, number>();
beforeAll(async () => {
  pdfServer = createServer((request, response) => {
    hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
    if (request.url === '/cached.pdf') {
      response.writeHead(200, { 'content-type': 'application/pdf' }).end(editorial);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => pdfServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(pdfServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => pdfServer.close(resolve));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Index records on COVID-19 vaccination whose PDFs are remote: one parsed before, two never. */
function records(): Paper[] {
  const record = (title: string, abstract: string, pdfUrl: string, doi: string): Paper => ({
    ...emptyPaper(title),
    abstract,
    year: 2022,
    doi,
    url: `https://doi.org/${doi}`,
    pdf_url: pdfUrl,
  });
  return [
    record(
      'COVID-19 vaccination and treatment in vulnerable populations',
      'Vaccination of immunosuppressed cancer patients against COVID-19 elicits weaker T-cell responses than in healthy individuals.',
      `${base}/cached.pdf`,
      '10.1111/imm.13445',
    ),
    record(
      'Antibody responses to COVID-19 vaccination in cancer patients on chemotherapy',
      'Cancer patients on chemotherapy showed reduced antibody responses after COVID-19 vaccination.',
      `${base}/uncached.pdf`,
      '10.1000/covid-chemo',
    ),
    record(
      'COVID-19 vaccine booster doses for immunosuppressed patients',
      'Booster vaccination improved protection of immunosuppressed patients against COVID-19.',
      'https://papers.unreachable.invalid/booster.pdf',
      '10.1000/covid-booster',
    ),
  ];
}

async function appWith(env: Record<string, string> = {}): Promise<TestApp & { client: OpenAI }> {
  const t = await createTestApp({ ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32', ...env });
  await t.container.stores.index.upsert(records());
  // The user read the first paper's PDF through the API once: its parse is cached here.
  const read = await t.app.inject({
    method: 'GET',
    url: `/api/fulltext?pdf_url=${encodeURIComponent(`PDF_URL:${base}/cached.pdf`)}`,
    headers: withKey(t.key),
  });
  expect(read.statusCode).toBe(200);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/api`, apiKey: t.key, maxRetries: 0 });
  return Object.assign(t, { client });
}

async function ask(client: OpenAI) {
  const stream = await client.chat.completions.create({
    model: 'x',
    messages: [{ role: 'user', content: question }],
    stream: true,
  });
  let content = '';
  let reasoning = '';
  for await (const chunk of stream) {
    content += chunk.choices[0]?.delta?.content ?? '';
    reasoning +=
      (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
  }
  return { content, reasoning };
}

describe('an offline app (no upstream sources), extractive agent', () => {
  let t: TestApp & { client: OpenAI };
  beforeAll(async () => {
    t = await appWith();
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads the cached parse, tries no remote PDF, and reports no failure', async () => {
    const fetches = vi.spyOn(UndiciUrlFetcher.prototype, 'fetch');
    const cachedBefore = hits.get('/cached.pdf');
    const uncachedBefore = hits.get('/uncached.pdf');
    const { content, reasoning } = await ask(t.client);
    expect(fetches).not.toHaveBeenCalled();
    expect(hits.get('/uncached.pdf')).toBe(uncachedBefore);
    expect(hits.get('/cached.pdf')).toBe(cachedBefore);
    expect(reasoning).toContain('Reading the full text of: COVID-19 vaccination and treatment in vulnerable');
    expect(reasoning).not.toContain(
      'Antibody responses to COVID-19 vaccination in cancer patients on chemotherapy;',
    );
    expect(`${reasoning}${content}`).not.toMatch(/Cannot resolve|Cannot fetch|Could not read|failed/);
    // The abstracts of all three records answer; the cached full text is quoted with its chunk.
    expect(content).toContain('**From the abstracts**');
    expect(content).toContain('**From the full texts**');
    // … and the page it is printed on.
    expect(content).toMatch(/\(chunk \d+, pp?\. \d+(–\d+)?\)/);
  });
});

describe('the same app told to read remote PDFs (ALEXANDRIA_AGENT_READ_REMOTE_PDFS=true)', () => {
  let t: TestApp & { client: OpenAI };
  beforeAll(async () => {
    t = await appWith({ ALEXANDRIA_AGENT_READ_REMOTE_PDFS: 'true' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('does fetch them (what the offline default avoids)', async () => {
    const original = UndiciUrlFetcher.prototype.fetch;
    const fetches = vi.spyOn(UndiciUrlFetcher.prototype, 'fetch').mockImplementation(async function (
      this: UndiciUrlFetcher,
      url,
      options,
    ) {
      // Loopback urls go through for real; the unreachable host fails as it does without a network.
      if (url.startsWith(base)) return original.call(this, url, options);
      throw new Error('Cannot resolve the host papers.unreachable.invalid of pdf_url');
    });
    const uncachedBefore = hits.get('/uncached.pdf') ?? 0;
    const { reasoning } = await ask(t.client);
    expect(fetches).toHaveBeenCalled();
    expect(hits.get('/uncached.pdf') ?? 0).toBeGreaterThan(uncachedBefore);
    expect(reasoning).toMatch(/Could not read/);
  });
});

describe('an offline app with a chat model (tool-calling agent)', () => {
  let t: TestApp & { client: OpenAI };
  let model: FakeOpenAiServer;
  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    t = await appWith({ ALEXANDRIA_CHAT_URL: model.baseUrl, ALEXANDRIA_CHAT_MODEL: 'fake-model' });
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  it('answers ask_pdf on a remote PDF that is not here without fetching it', async () => {
    const fetches = vi.spyOn(UndiciUrlFetcher.prototype, 'fetch');
    const uncachedBefore = hits.get('/uncached.pdf') ?? 0;
    // The search finds both records (their PDFs are what the run may read, decision 0040); the
    // model then asks both PDFs.
    model.setScript([
      { toolCalls: [{ name: 'search_papers', arguments: { query: question } }] },
      {
        toolCalls: [
          { name: 'ask_pdf', arguments: { pdf_id: `PDF_URL:${base}/uncached.pdf`, question } },
          { name: 'ask_pdf', arguments: { pdf_id: `PDF_URL:${base}/cached.pdf`, question } },
        ],
      },
      { text: 'Vaccine responses are weaker in immunosuppressed cancer patients.' },
    ]);
    const { content } = await ask(t.client);
    expect(content).toContain('Vaccine responses are weaker');
    expect(fetches).not.toHaveBeenCalled();
    expect(hits.get('/uncached.pdf') ?? 0).toBe(uncachedBefore);
    const toolResults = model.requests[2]?.messages.filter((message) => message.role === 'tool') ?? [];
    expect(toolResults[0]?.content).toContain(`pdf_id: PDF_URL:${base}/uncached.pdf`);
    expect(toolResults[1]?.content).toContain(
      'is not stored here, and remote PDFs are not fetched (offline)',
    );
    expect(toolResults[2]?.content).toContain('Chunk');
    expect(toolResults[2]?.content).toContain('immunosuppressed');
  });
});
