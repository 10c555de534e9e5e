import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper } from '../../src/domain/paper.js';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';
import { figurePaperPdf } from '../helpers/generated-pdfs.js';
import { fixtures } from '../helpers/requirements.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

let t: TestApp;
let baseUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  // Loopback is opened for the PDF server of the document tools' test (never in production).
  t = await createTestApp({ ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t.close();
});

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'alexandria-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers: withKey(key) },
    }),
  );
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error('expected a text result');
  return content.text;
}

describe('MCP over streamable HTTP (stateless, at /mcp)', () => {
  it('lists the tools with descriptions and JSON schemas', async () => {
    const client = await httpClient(t.key);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.sort()).toEqual([
      'add_to_project',
      'analyze_project',
      'ask_pdf',
      'create_project',
      'export_project',
      'fast_paper_search',
      'get_citation_contexts',
      'get_paper_metadata',
      'get_project',
      'get_project_graph',
      'get_references',
      'list_projects',
      'literature_map',
      'parse_references',
      'read_full_text',
      'search_papers',
      'search_patents',
      'verify_references',
    ]);
    for (const tool of tools) expect(tool.description?.length, tool.name).toBeGreaterThan(80);
    const create = tools.find((tool) => tool.name === 'create_project');
    expect(create?.description).toContain('collection of papers');
    expect(create?.inputSchema).toMatchObject({
      type: 'object',
      properties: { project_name: { type: 'string', minLength: 1 } },
      required: ['project_name'],
    });
    expect(client.getInstructions()).toContain('read_full_text');
  });

  it('creates and lists projects for the key’s tenant only', async () => {
    const client = await httpClient(t.key);
    const created = await client.callTool({
      name: 'create_project',
      arguments: { project_name: 'MCP reading' },
    });
    expect(created.isError).toBeFalsy();
    const body = JSON.parse(textOf(created));
    expect(body.hint).toContain('add_to_project');
    expect(body.result).toMatchObject({ name: 'MCP reading', paper_count: 0 });

    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_projects', arguments: {} })));
    expect(listed.result.map((project: { name: string }) => project.name)).toEqual(
      expect.arrayContaining(['gpt', 'MCP reading']),
    );

    const stranger = await httpClient(await t.newKey('tenant-mcp-other'));
    const theirs = JSON.parse(textOf(await stranger.callTool({ name: 'list_projects', arguments: {} })));
    expect(theirs.result.map((project: { name: string }) => project.name)).toEqual(['gpt']);
  });

  it('reports failures as tool errors with the REST error messages', async () => {
    const client = await httpClient(t.key);
    const conflict = await client.callTool({ name: 'create_project', arguments: { project_name: 'gpt' } });
    const rest = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=gpt',
      headers: withKey(t.key),
    });
    expect(conflict.isError).toBe(true);
    expect(textOf(conflict)).toBe(rest.json().error.message);
    expect(conflict._meta).toMatchObject({ code: 'conflict', status: 409, param: 'project_name' });

    const missing = await client.callTool({ name: 'get_project', arguments: { project: 'no such project' } });
    const restMissing = await t.app.inject({
      method: 'GET',
      url: `/api/projects/${encodeURIComponent('no such project')}`,
      headers: withKey(t.key),
    });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe(restMissing.json().error.message);

    const badFormat = await client.callTool({
      name: 'export_project',
      arguments: { project: 'gpt', format: 'docx' },
    });
    expect(badFormat.isError).toBe(true);
    expect(textOf(badFormat)).toContain('format must be one of bibtex, ris, csl');
  });

  it('answers metadata and analysis tools with the REST messages when nothing is known', async () => {
    const client = await httpClient(t.key);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['get_paper_metadata', 'literature_map', 'analyze_project']),
    );

    const metadata = await client.callTool({
      name: 'get_paper_metadata',
      arguments: { paper_id: 'DOI:10.1093/nar/gkae223' },
    });
    const restMetadata = await t.app.inject({
      method: 'GET',
      url: '/api/paper?paper_id=DOI:10.1093/nar/gkae223',
      headers: withKey(t.key),
    });
    expect(restMetadata.statusCode).toBe(404);
    expect(metadata.isError).toBe(true);
    expect(textOf(metadata)).toBe(restMetadata.json().error.message);

    const badId = await client.callTool({ name: 'get_paper_metadata', arguments: { paper_id: 'ISBN:123' } });
    const restBadId = await t.app.inject({
      method: 'GET',
      url: '/api/paper?paper_id=ISBN:123',
      headers: withKey(t.key),
    });
    expect(textOf(badId)).toBe(restBadId.json().error.message);
    expect(badId._meta).toMatchObject({ code: 'invalid_request', param: 'paper_id' });

    const analysis = await client.callTool({
      name: 'analyze_project',
      arguments: { project_name: 'MCP reading', questions: ['Which dataset is used?'] },
    });
    const restAnalysis = await t.app.inject({
      method: 'GET',
      url: '/api/analyze_project?project_name=MCP%20reading&question=Which%20dataset%20is%20used%3F',
      headers: withKey(t.key),
    });
    expect(restAnalysis.statusCode).toBe(422);
    expect(textOf(analysis)).toBe(restAnalysis.json().error.message);
  });

  it('exports a project as BibTeX through a tool', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/projects/gpt/import',
      headers: { ...withKey(t.key), 'content-type': 'application/x-bibtex' },
      payload:
        '@article{s, title={A Mathematical Theory of Communication}, author={Shannon, Claude E.}, year={1948}}',
    });
    const client = await httpClient(t.key);
    const exported = await client.callTool({ name: 'export_project', arguments: { project: 'gpt' } });
    expect(textOf(exported)).toContain('@article{Shannon1948Mathematical,');
  });

  it('needs an API key, and refuses GET and DELETE (no sessions) with 405', async () => {
    const anonymous = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', baseUrl), { method, headers: withKey(t.key) });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect((await response.json()).error.code).toBe(-32000);
    }
  });

  it('reads a tools/call with null arguments as one without arguments', async () => {
    const call = async (name: string) => {
      const response = await fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: {
          ...withKey(t.key),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: null },
        }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        result?: { isError?: boolean; content: Array<{ text: string }> };
        error?: unknown;
      };
    };
    const listed = await call('list_projects');
    expect(listed.error).toBeUndefined();
    expect(listed.result?.isError).toBeFalsy();
    expect(listed.result?.content[0]?.text).toContain('"result"');
    // A tool with required arguments names the missing one instead of failing as an internal error.
    const asked = await call('ask_pdf');
    expect(asked.error).toBeUndefined();
    expect(asked.result?.isError).toBe(true);
    expect(asked.result?.content[0]?.text).toContain('pdf_id');
  });
});

describe('Origin of browser pages (DNS-rebinding protection, issue "Closed doors")', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'origin-test', version: '1' },
    },
  });
  const post = (headers: Record<string, string>, target: TestApp = t) =>
    target.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      payload: initialize,
    });

  it('refuses a foreign Origin with 403 and a JSON-RPC error, before the server runs', async () => {
    // What a page at evil.example.com sends once its name resolves to this machine.
    const rebound = await post({
      ...withKey(t.key),
      host: 'evil.example.com',
      origin: 'http://evil.example.com',
    });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(rebound.json().error.message).toContain('http://evil.example.com');
    expect(rebound.body).not.toContain('serverInfo');
    for (const origin of ['null', 'http://10.0.0.7:8080', 'https://localhost.evil.example.com']) {
      expect((await post({ ...withKey(t.key), origin })).statusCode, origin).toBe(403);
    }
    // GET and DELETE are refused for the origin too, not answered 405.
    const get = await t.app.inject({
      method: 'GET',
      url: '/mcp',
      headers: { ...withKey(t.key), origin: 'http://evil.example.com' },
    });
    expect(get.statusCode).toBe(403);
  });

  it('serves loopback origins and clients that send no Origin', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', undefined]) {
      const response = await post({ ...withKey(t.key), ...(origin === undefined ? {} : { origin }) });
      expect(response.statusCode, String(origin)).toBe(200);
      expect(response.json().result.serverInfo.name).toBe('alexandria');
    }
  });

  it('checks the key first: a keyless request is a 401 whatever its Origin', async () => {
    expect((await post({ origin: 'http://evil.example.com' })).statusCode).toBe(401);
  });

  it('serves the origin of ALEXANDRIA_PUBLIC_URL and of ALEXANDRIA_MCP_ALLOWED_ORIGINS, nothing else', async () => {
    const configured = await createTestApp({
      ALEXANDRIA_PUBLIC_URL: 'https://papers.example.org',
      ALEXANDRIA_MCP_ALLOWED_ORIGINS: 'https://agent.example.net',
    });
    try {
      const key = withKey(configured.key);
      expect((await post({ ...key, origin: 'https://papers.example.org' }, configured)).statusCode).toBe(200);
      expect((await post({ ...key, origin: 'https://agent.example.net' }, configured)).statusCode).toBe(200);
      expect((await post({ ...key, origin: 'https://evil.example.com' }, configured)).statusCode).toBe(403);
      // The Host a request names is never what allows its Origin.
      const sameHost = await post(
        { ...key, host: 'evil.example.com', origin: 'http://evil.example.com' },
        configured,
      );
      expect(sameHost.statusCode).toBe(403);
    } finally {
      await configured.close();
    }
  });
});

describe('search tools', () => {
  it('search_papers and fast_paper_search find indexed papers, as the REST search does', async () => {
    const lines = readFileSync(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8').split(
      '\n',
    );
    const papers = lines
      .slice(0, 60)
      .map(
        (line) =>
          JSON.parse(line) as {
            title: string;
            authors: string[];
            abstract: string;
            year: number;
            url: string;
          },
      )
      .map((record) => ({
        ...emptyPaper(record.title),
        authors: record.authors,
        abstract: record.abstract,
        year: record.year,
        publication_date: String(record.year),
        url: record.url,
        type: 'conference-paper',
      }));
    await t.container.stores.index.upsert(papers);

    const client = await httpClient(t.key);
    const found = await client.callTool({
      name: 'fast_paper_search',
      arguments: { keywords: 'annotation tool', limit: 5 },
    });
    expect(found.isError).toBeFalsy();
    const body = JSON.parse(textOf(found));
    expect(body.result.papers[0]).toMatchObject({ year: 2022 });
    const rest = await t.app.inject({
      method: 'GET',
      url: '/api/fast_paper_search?keywords=annotation%20tool&limit=5',
      headers: withKey(t.key),
    });
    expect(body.result.papers.map((paper: { title: string }) => paper.title)).toEqual(
      rest.json().map((paper: { title: string }) => paper.title),
    );
    expect(body.result.papers.map((paper: { title: string }) => paper.title)).toContain(
      'DoTAT: A Domain-oriented Text Annotation Tool',
    );

    const answered = await client.callTool({
      name: 'search_papers',
      arguments: { query: 'How much annotation time does DoTAT save?', limit: 3, generative_mode: true },
    });
    const withAnswers = JSON.parse(textOf(answered));
    expect(withAnswers.result.papers[0].answer).toContain('19.7%');

    const empty = await client.callTool({ name: 'search_papers', arguments: {} });
    const restEmpty = await t.app.inject({ method: 'GET', url: '/api/abstracts', headers: withKey(t.key) });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toBe(restEmpty.json().error.message);
  });
});

describe('document tools', () => {
  it('add_to_project fetches a PDF url, read_full_text reads it and ask_pdf finds the answering chunk', async () => {
    const pdf = await figurePaperPdf();
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end(pdf);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/deltas.pdf`;
      const client = await httpClient(t.key);
      const added = await client.callTool({
        name: 'add_to_project',
        arguments: { pdf_url: url, project_name: 'MCP reading' },
      });
      expect(added.isError).toBeFalsy();
      const body = JSON.parse(textOf(added));
      const pdfId = body.result[0].pdf_id as string;
      expect(pdfId).toMatch(/^PROJ:/);
      expect(body.hint).toContain(`read_full_text(pdf_id="${pdfId}")`);

      const first = textOf(await client.callTool({ name: 'read_full_text', arguments: { pdf_id: pdfId } }));
      expect(first).toMatch(/^Chunk 1 of \d+ · PROJ:\S+ · pages? 1\b/);
      expect(first).toContain('Sediment budgets of three small river deltas');
      expect(first).toContain('Hint:');

      const answer = textOf(
        await client.callTool({
          name: 'ask_pdf',
          arguments: { pdf_id: pdfId, question: 'How was the sediment delivery of the rivers measured?' },
        }),
      );
      expect(answer).toMatch(/^Best answer: chunk \d+ of \d+ · PROJ:\S+ · pages? \d+/);
      // The passage the ranking chose, with the page it is printed on.
      expect(answer).toMatch(/\n\nBest passage, pages? \d+(–\d+)?: “[^”]+”\n\n/);

      const bad = await client.callTool({
        name: 'read_full_text',
        arguments: { pdf_id: 'PROJ:../etc/passwd' },
      });
      const rest = await t.app.inject({
        method: 'GET',
        url: `/api/fulltext?pdf_id=${encodeURIComponent('PROJ:../etc/passwd')}`,
        headers: withKey(t.key),
      });
      expect(rest.statusCode).toBe(400);
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toBe(rest.json().error.message);
      expect(bad._meta).toMatchObject({ code: 'invalid_request', param: 'pdf_id' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 240_000);
});

describe('MCP over stdio (`alexandria mcp`)', () => {
  it('serves the same tools to the tenant of ALEXANDRIA_MCP_API_KEY', async () => {
    const client = new Client({ name: 'alexandria-stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', tsxLoaderUrl(), join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts'), 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ALEXANDRIA_DATA_DIR: t.dataDir,
        ALEXANDRIA_LOG_LEVEL: 'warn',
        ALEXANDRIA_MCP_API_KEY: t.key,
        ALEXANDRIA_SOURCES: 'none',
      },
      stderr: 'pipe',
    });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('list_projects');
    // The project created over HTTP is in the same store, seen by the same tenant.
    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_projects', arguments: {} })));
    expect(listed.result.map((project: { name: string }) => project.name)).toContain('MCP reading');
    const failed = await client.callTool({ name: 'get_project', arguments: { project: 'absent' } });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('No project "absent"');
  }, 240_000);

  it('refuses a key that is not one of this data folder, saying where it looked and what to do', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', tsxLoaderUrl(), join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts'), 'mcp'],
        {
          env: {
            PATH: process.env.PATH ?? '',
            ALEXANDRIA_DATA_DIR: t.dataDir,
            ALEXANDRIA_MCP_API_KEY: `alx_${'x'.repeat(40)}`,
            ALEXANDRIA_SOURCES: 'none',
          },
        },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `ALEXANDRIA_MCP_API_KEY is not an active key of data folder ${t.dataDir}`,
    );
    expect(result.stderr).toContain('alexandria keys create');
    expect(result.stderr).toContain('leave ALEXANDRIA_MCP_API_KEY unset');
    expect(result.stderr).not.toContain('Invalid or revoked API key');
  }, 240_000);
});
