import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { figurePaperPdf } from '../helpers/generated-pdfs.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Issue 16 (MCP): the tools take the REST API's parameter names (old names still accepted), their
 * hints name the MCP tool to call next with its arguments (REST answers keep REST hints), an add
 * whose PDF could not be fetched does not advise reading it, and an LLM-style client goes from a
 * search to reading and asking a paper by following the hints alone.
 */

let t: TestApp;
let baseUrl: string;
let pdfServer: Server;
let pdfUrl: string;
const clients: Client[] = [];

/** The generated paper on river deltas (test/helpers/generated-pdfs.ts), served as an open PDF. */
const deltasTitle = 'Sediment budgets of three small river deltas';
/** An index record whose open PDF is on a host that cannot be resolved (an offline machine). */
const unreachableDoi = '10.5555/offline.add';

beforeAll(async () => {
  const pdf = await figurePaperPdf();
  pdfServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' });
    response.end(pdf);
  });
  await new Promise<void>((resolve) => pdfServer.listen(0, '127.0.0.1', resolve));
  pdfUrl = `http://127.0.0.1:${(pdfServer.address() as AddressInfo).port}/2304.02623v1.pdf`;
  // Loopback is opened for that PDF server only (never in production).
  t = await createTestApp({ ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const records: Paper[] = [
    {
      ...emptyPaper(deltasTitle),
      authors: ['Alexandria Test Documents'],
      abstract:
        'Three small deltas below rivers with no dam, a weir and a reservoir: sediment delivery measured for four years, and how their shorelines advanced or retreated.',
      year: 2023,
      publication_date: '2023-04-05',
      type: 'conference-paper',
      pdf_url: pdfUrl,
      identifiers: { arxiv: '2304.02623' },
    },
    {
      ...emptyPaper('Offline Filing of Expository Writing Records'),
      authors: ['Ada Offline'],
      abstract: 'A record whose open PDF lives on a host this machine cannot reach.',
      year: 2021,
      publication_date: '2021',
      type: 'journal-article',
      doi: unreachableDoi,
      pdf_url: 'https://pdfs.example.invalid/offline.pdf',
    },
  ];
  await t.container.stores.index.upsert(records);
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t.close();
  pdfServer.closeAllConnections();
  await new Promise<void>((resolve) => pdfServer.close(() => resolve()));
});

async function mcpClient(key = t.key): Promise<Client> {
  const client = new Client({ name: 'alexandria-vocabulary-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: withKey(key) } }),
  );
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error('expected a text result');
  return content.text;
}

/** The hint of a tool result: the `hint` of a JSON result, or the `Hint:` line of a text result. */
function hintOf(result: unknown): string {
  const text = textOf(result);
  if (text.startsWith('{')) return (JSON.parse(text) as { hint?: string }).hint ?? '';
  return /(?:^|\n)Hint: (.*)$/.exec(text)?.[1] ?? text.split('\n\n').at(-1) ?? '';
}

function rest(url: string) {
  return t.app.inject({ method: 'GET', url, headers: withKey(t.key) });
}

describe('one vocabulary with REST', () => {
  it('lists project_id / project_name / question as REST names them, old names marked deprecated', async () => {
    const { tools } = await (await mcpClient()).listTools();
    const schema = (name: string) =>
      tools.find((tool) => tool.name === name)?.inputSchema as {
        properties: Record<string, { deprecated?: boolean }>;
        required?: string[];
      };
    for (const name of ['get_project', 'export_project', 'analyze_project', 'add_to_project']) {
      expect(Object.keys(schema(name).properties), name).toEqual(
        expect.arrayContaining(['project_id', 'project_name']),
      );
    }
    expect(schema('analyze_project').properties.question).toBeDefined();
    expect(schema('analyze_project').properties.questions?.deprecated).toBe(true);
    expect(schema('get_project').properties.project?.deprecated).toBe(true);
    expect(schema('export_project').properties.project?.deprecated).toBe(true);
    // The old names are mentioned briefly in the descriptions.
    for (const name of ['get_project', 'export_project', 'analyze_project']) {
      expect(tools.find((tool) => tool.name === name)?.description).toContain('still accepted');
    }
  });

  it('get_project and export_project take project_id or project_name, and the old `project` still', async () => {
    const client = await mcpClient();
    await client.callTool({ name: 'create_project', arguments: { project_name: 'Vocabulary' } });
    await t.app.inject({
      method: 'POST',
      url: '/api/projects/Vocabulary/import',
      headers: { ...withKey(t.key), 'content-type': 'application/x-bibtex' },
      payload:
        '@article{s, title={A Mathematical Theory of Communication}, author={Shannon, Claude E.}, year={1948}}',
    });
    const restProject = (await rest('/api/projects/Vocabulary')).json() as { id: string };

    const byName = JSON.parse(
      textOf(await client.callTool({ name: 'get_project', arguments: { project_name: 'Vocabulary' } })),
    );
    const byId = JSON.parse(
      textOf(await client.callTool({ name: 'get_project', arguments: { project_id: restProject.id } })),
    );
    const byOldName = JSON.parse(
      textOf(await client.callTool({ name: 'get_project', arguments: { project: 'Vocabulary' } })),
    );
    for (const body of [byName, byId, byOldName]) {
      expect(body.result).toMatchObject({ id: restProject.id, name: 'Vocabulary', paper_count: 1 });
    }
    // No project given: the default project, as add_to_project and analyze_project have it.
    const fallback = JSON.parse(textOf(await client.callTool({ name: 'get_project', arguments: {} })));
    expect(fallback.result.id).toBe('gpt');

    const restExport = (await rest(`/api/projects/${restProject.id}/export?format=ris`)).body;
    for (const args of [
      { project_id: restProject.id },
      { project_name: 'Vocabulary' },
      { project: 'Vocabulary' },
    ]) {
      const exported = textOf(
        await client.callTool({ name: 'export_project', arguments: { ...args, format: 'ris' } }),
      );
      expect(exported).toBe(restExport);
    }

    const clash = await client.callTool({
      name: 'get_project',
      arguments: { project_id: 'gpt', project: 'Vocabulary' },
    });
    expect(clash.isError).toBe(true);
    expect(clash._meta).toMatchObject({ code: 'invalid_request', param: 'project' });
    const missing = await client.callTool({ name: 'get_project', arguments: { project_name: 'absent' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe((await rest('/api/projects/absent')).json().error.message);
    expect(missing._meta).toMatchObject({ code: 'not_found', param: 'project_name' });
  });

  it('analyze_project takes question (string or list) and project_id as REST does, and `questions` still', async () => {
    const client = await mcpClient();
    const restAnalysis = (
      await rest('/api/analyze_project?project_name=Vocabulary&question=Which%20theory%3F,Which%20year%3F')
    ).json() as { markdown: string; hint: string };
    expect(restAnalysis.hint).toContain('GET /api/fulltext');
    expect(restAnalysis.hint).not.toContain('read_full_text');

    const calls = [
      { project_name: 'Vocabulary', question: 'Which theory?, Which year?' },
      { project_name: 'Vocabulary', question: ['Which theory?', 'Which year?'] },
      { project_id: 'Vocabulary', questions: ['Which theory?', 'Which year?'] },
    ];
    for (const args of calls) {
      const result = await client.callTool({ name: 'analyze_project', arguments: args });
      expect(result.isError, JSON.stringify(args)).toBeFalsy();
      const text = textOf(result);
      expect(text.startsWith(restAnalysis.markdown)).toBe(true);
      expect(text).toContain('read_full_text(pdf_id="<pdf_id>", chunk=<n>)');
      expect(text).not.toContain('/api/');
    }
    const none = await client.callTool({
      name: 'analyze_project',
      arguments: { project_name: 'Vocabulary' },
    });
    expect(none.isError).toBe(true);
    expect(none._meta).toMatchObject({ code: 'invalid_request', param: 'question' });
  });
});

describe('hints name the MCP tool to call; REST answers keep REST hints', () => {
  it('read_full_text and ask_pdf say the next read_full_text call, /api/fulltext says chunk=', async () => {
    const client = await mcpClient();
    const added = await client.callTool({ name: 'add_to_project', arguments: { pdf_url: pdfUrl } });
    const pdfId = JSON.parse(textOf(added)).result[0].pdf_id as string;
    expect(pdfId).toMatch(/^PROJ:gpt\//);

    const first = await client.callTool({ name: 'read_full_text', arguments: { pdf_id: pdfId } });
    const total = Number(/^Chunk 1 of (\d+)/.exec(textOf(first))?.[1]);
    expect(total).toBeGreaterThan(1);
    expect(hintOf(first)).toBe(
      `Read chunk 2 of ${total} next with read_full_text(pdf_id="${pdfId}", chunk=2).`,
    );
    const restFirst = (await rest(`/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}`)).json();
    expect(restFirst.hint).toBe(`Read chunk 2 of ${total} next with chunk=2.`);

    const asked = await client.callTool({
      name: 'ask_pdf',
      arguments: { pdf_id: pdfId, question: 'How fast did the delta below the reservoir retreat?' },
    });
    const best = Number(/^Best answer: chunk (\d+)/.exec(textOf(asked))?.[1]);
    const neighbour = best > 1 ? best - 1 : best + 1;
    expect(hintOf(asked)).toContain(`read_full_text(pdf_id="${pdfId}", chunk=${neighbour})`);
    expect(hintOf(asked)).not.toContain('read chunk=');
    const restAsked = (
      await rest(
        `/api/question?pdf_id=${encodeURIComponent(pdfId)}&question=${encodeURIComponent('How fast did the delta below the reservoir retreat?')}`,
      )
    ).json();
    expect(restAsked.hint).toContain(`read chunk=${neighbour}`);
    expect(restAsked.hint).not.toContain('read_full_text');
  }, 240_000);

  it('search, literature_map and add hints name tools, never REST paths; REST search keeps its path', async () => {
    const client = await mcpClient();
    const found = await client.callTool({
      name: 'fast_paper_search',
      arguments: { keywords: 'expository writing', peer_reviewed_only: false },
    });
    const hint = hintOf(found);
    const [firstPaper] = JSON.parse(textOf(found)).result.papers as Array<{ paper_id: string }>;
    expect(firstPaper?.paper_id).toMatch(/^(DOI:10\.5555\/offline\.add|ARXIV:2304\.02623)$/);
    expect(hint).toContain('read_full_text(pdf_id="<pdf_id>")');
    expect(hint).toContain(`add_to_project(paper_id="${firstPaper?.paper_id}")`);
    expect(hint).not.toContain('/api/');
    const wrapped = (
      await rest(
        '/api/fast_paper_search?keywords=expository%20writing&peer_reviewed_only=false&format=wrapped',
      )
    ).json();
    expect(wrapped.hint).toContain('/api/fulltext?pdf_id=<pdf_id>');

    const map = await client.callTool({
      name: 'literature_map',
      arguments: { paper_id: 'ARXIV:2304.02623' },
    });
    expect(map.isError).toBeFalsy();
    expect(hintOf(map)).toContain('get_paper_metadata(paper_id="DOI:<doi>")');
    expect(hintOf(map)).toContain('literature_map(paper_id=');
    expect(hintOf(map)).not.toContain('/api/');
    // Asked again (now from the cache), REST still gets its own phrasing.
    const restMap = (await rest('/api/literature_map?paper_id=ARXIV:2304.02623')).json();
    expect(restMap.hint).toContain('/api/paper?paper_id=DOI:<doi>');
    const mapAgain = await client.callTool({
      name: 'literature_map',
      arguments: { paper_id: 'ARXIV:2304.02623' },
    });
    expect(hintOf(mapAgain)).not.toContain('/api/');
  }, 120_000);
});

describe('an add whose PDF cannot be fetched (offline)', () => {
  it('says the record was filed and the full text is not available, and does not advise reading it', async () => {
    const client = await mcpClient();
    const added = await client.callTool({
      name: 'add_to_project',
      arguments: { paper_id: `DOI:${unreachableDoi}`, project_name: 'Offline' },
    });
    expect(added.isError).toBeFalsy();
    const body = JSON.parse(textOf(added));
    expect(body.result[0]).toMatchObject({
      title: 'Offline Filing of Expository Writing Records',
      doi: unreachableDoi,
    });
    expect(body.hint).toMatch(/^Filed in project "Offline" with metadata only\. /);
    expect(body.hint).toContain('https://pdfs.example.invalid/offline.pdf) could not be fetched');
    expect(body.hint).toContain('its full text is not available here');
    expect(body.hint).not.toContain('read_full_text');
    expect(body.hint).not.toMatch(/^Stored/);
    expect(body.hint).toContain('add_to_project(pdf_url="<url of the PDF>")');

    // Added again: still no advice to read what was never stored.
    const again = JSON.parse(
      textOf(
        await client.callTool({
          name: 'add_to_project',
          arguments: { paper_id: `DOI:${unreachableDoi}`, project_name: 'Offline' },
        }),
      ),
    );
    expect(again.hint).toMatch(/^Already in project "Offline" with metadata only\. /);
    expect(again.hint).not.toContain('read_full_text');

    const restAdded = await t.app.inject({
      method: 'POST',
      url: `/api/add_to_project?paper_id=DOI:${unreachableDoi}&project_name=Offline`,
      headers: withKey(t.key),
    });
    const restHint = restAdded.json()[0].hint as string;
    expect(restHint).toContain(
      'its full text is not available here; to read it, upload the PDF (multipart field "file")',
    );
    expect(restHint).not.toContain('read it with');
  }, 120_000);
});

/** Tool calls written in a hint: `name(key="value", n=2)`. */
function callsIn(hint: string): Array<{ name: string; arguments: Record<string, string | number> }> {
  return [...hint.matchAll(/\b([a-z_]+)\(((?:[a-z_]+=(?:"(?:[^"\\]|\\.)*"|\d+)(?:, )?)+)\)/g)].map(
    (match) => ({
      name: match[1] as string,
      arguments: Object.fromEntries(
        [...(match[2] as string).matchAll(/([a-z_]+)=("(?:[^"\\]|\\.)*"|\d+)/g)].map((arg) => [
          arg[1] as string,
          JSON.parse(arg[2] as string) as string | number,
        ]),
      ),
    }),
  );
}

/**
 * What an LLM does with a hint: take the first call of the tool it wants whose arguments are all
 * given (placeholders like <pdf_id> left aside), filling a `…` question with its own.
 */
function follow(hint: string, tool: string, question?: string) {
  const call = callsIn(hint).find(
    (candidate) =>
      candidate.name === tool &&
      Object.values(candidate.arguments).every((value) => typeof value === 'number' || !/^<.*>$/.test(value)),
  );
  if (!call) throw new Error(`the hint names no ${tool} call: ${hint}`);
  for (const [key, value] of Object.entries(call.arguments)) {
    if (value === '…' && question) call.arguments[key] = question;
  }
  return call;
}

describe('an LLM-style client: search → add → read → ask, using only what the results say', () => {
  it('follows the hints from a search to the answering chunk and its neighbour', async () => {
    const client = await mcpClient(await t.newKey('tenant-journey'));
    const hints: string[] = [];
    const call = async (request: { name: string; arguments: Record<string, unknown> }) => {
      const result = await client.callTool(request);
      expect(result.isError, `${request.name}: ${textOf(result)}`).toBeFalsy();
      hints.push(hintOf(result));
      return result;
    };

    const search = await call({
      name: 'search_papers',
      arguments: {
        query: 'sediment budgets of small river deltas',
        peer_reviewed_only: false,
      },
    });
    expect(JSON.parse(textOf(search)).result.papers[0].title).toBe(deltasTitle);

    const add = await call(follow(hints.at(-1) as string, 'add_to_project'));
    const pdfId = JSON.parse(textOf(add)).result[0].pdf_id as string;
    expect(pdfId).toMatch(/^PROJ:gpt\//);

    const first = await call(follow(hints.at(-1) as string, 'read_full_text'));
    expect(textOf(first)).toMatch(/^Chunk 1 of \d+ · PROJ:gpt\//);
    const second = await call(follow(hints.at(-1) as string, 'read_full_text'));
    expect(textOf(second)).toMatch(/^Chunk 2 of \d+/);

    const question = 'How was the sediment delivery of the rivers measured?';
    const asked = await call(follow(hints[1] as string, 'ask_pdf', question));
    expect(textOf(asked)).toMatch(/^Best answer: chunk \d+ of \d+ · PROJ:gpt\//);
    const around = await call(follow(hints.at(-1) as string, 'read_full_text'));
    expect(textOf(around)).toMatch(/^Chunk \d+ of \d+ · PROJ:gpt\//);

    for (const hint of hints) {
      expect(hint).not.toContain('/api/');
      expect(hint).not.toMatch(/(?:with|read) (?:chunk|pdf_id)=/);
    }
  }, 240_000);
});
