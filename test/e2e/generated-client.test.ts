import { execFile } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { detectFormat } from '../../src/ingest/formats/index.js';
import { readUsptoXml } from '../../src/ingest/formats/uspto-xml.js';
import { type FakeZotero, startFakeZotero } from '../fakes/fake-zotero.js';
import { editorialPdf, figurePaperPdf } from '../helpers/generated-pdfs.js';
import { fixtures } from '../helpers/requirements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { type GeneratedClient, operationSteps } from './generated-client/operations.js';

/**
 * Issue 16: a client generated from the served /openapi.json by real generators (openapi-typescript
 * writes the types, openapi-fetch is the client) calls EVERY operation of the document against a
 * listening server: uploads (multipart PDF and reference file), exports (BibTeX and RIS as text) and
 * the chat stream (SSE) included. The client's base URL is the document's own `servers` entry. A
 * middleware records the operation of each successful response; the last test fails when an
 * operation of the document was never called successfully, so a new route must be added here.
 */

type OpenApiDocument = OpenAPI3 & {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, { operationId?: string }>>;
};

// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
const figurePaper = await figurePaperPdf();
const openPaper = await editorialPdf();
const repository = join(import.meta.dirname, '..', '..');
const zoteroUser = '4815162';
const zoteroKey = 'Zk7pQ2mX9vR4sT6uW8yA1bC3';
const bibtex = `@inproceedings{lin2022dotat,
  title = {DoTAT: A Domain-oriented Text Annotation Tool},
  author = {Lin, Yupian and Ruan, Tong and Liang, Ming},
  booktitle = {Proceedings of ACL 2022: System Demonstrations},
  year = {2022},
  doi = {10.18653/v1/2022.acl-demo.1},
}
@article{hartman2024,
  title = {Differential development of antibiotic resistance and virulence between Acinetobacter species},
  author = {Hartman, Kelly and Smith, Jane},
  journal = {mSphere},
  year = {2024},
  doi = {10.1128/msphere.00109-24},
}`;

let t: TestApp;
let zotero: FakeZotero;
let pdfServer: Server;
let document: OpenApiDocument;
let generatedTypes = '';
let client: GeneratedClient;
/** `METHOD /path/{template}` → operationId, from the document. */
const operationOf = new Map<string, string>();
/** Operations that answered 2xx to the generated client. */
const exercised = new Set<string>();

/** Papers of the shared ACL sample and the USPTO grants into the local index (what search finds). */
async function seedIndex(): Promise<void> {
  const corpus = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');
  const format = detectFormat(corpus, readFileSync(corpus, 'utf8').slice(0, 64 * 1024));
  if (!format) throw new Error('the ACL sample is not a known ingest format');
  const papers: Paper[] = [];
  for await (const item of format.read(createReadStream(corpus))) if (item.ok) papers.push(item.paper);
  const grants = join(fixtures, 'patents', 'uspto_xml', 'xml2014');
  for (const file of await readdir(grants)) {
    for await (const item of readUsptoXml(createReadStream(join(grants, file)))) {
      if (item.ok) papers.push(item.paper);
    }
  }
  // A paper whose open PDF the loopback server below serves (add_to_project by identifier fetches it).
  papers.push({
    ...emptyPaper('Vaccination and treatment of COVID-19 in immunosuppressed patients'),
    identifiers: { arxiv: '2304.02623' },
    year: 2024,
    venue: 'arXiv',
    pdf_url: `http://127.0.0.1:${(pdfServer.address() as AddressInfo).port}/open.pdf`,
  });
  await t.container.stores.index.upsert(papers);
}

/**
 * Typechecks generated-client/operations.ts against `types` (the generated `paths`) in a folder
 * below node_modules/.cache, where openapi-fetch, vitest and @types/node resolve as in the repository.
 */
async function typecheckAgainst(types: string): Promise<{ code: number; output: string }> {
  const cache = join(repository, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'alexandria-generated-client-'));
  try {
    await writeFile(join(dir, 'openapi-paths.ts'), types);
    await copyFile(
      join(import.meta.dirname, 'generated-client', 'operations.ts'),
      join(dir, 'operations.ts'),
    );
    const compilerOptions = {
      target: 'ES2023',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    };
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['operations.ts'] }),
    );
    const tsc = join(repository, 'node_modules', '.bin', 'tsc');
    return await new Promise((resolve) => {
      execFile(tsc, ['-p', join(dir, 'tsconfig.json')], { timeout: 60_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim() });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  zotero = await startFakeZotero({ userId: zoteroUser, apiKey: zoteroKey });
  pdfServer = createServer((request, response) => {
    if (request.url !== '/open.pdf') return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/pdf' }).end(openPaper);
  });
  await new Promise<void>((resolve) => pdfServer.listen(0, '127.0.0.1', resolve));
  t = await createTestApp({
    ALEXANDRIA_ZOTERO_API_URL: zotero.baseUrl,
    ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
    // Questions answer by words when passage vectors are not ready by then: the runtime stays modest.
    ALEXANDRIA_QUESTION_DEADLINE_MS: '1000',
  });
  await seedIndex();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;

  // What a user does: download the document, generate the client from it, point it at its server.
  const served = await fetch(`http://127.0.0.1:${port}/openapi.json`);
  expect(served.status).toBe(200);
  document = (await served.json()) as OpenApiDocument;
  generatedTypes = await openapiTS(structuredClone(document));

  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation.operationId) operationOf.set(`${method.toUpperCase()} ${path}`, operation.operationId);
    }
  }
  client = createClient({
    baseUrl: document.servers?.[0]?.url ?? '',
    headers: { 'x-alexandria-api-key': t.key },
  });
  client.use({
    onResponse({ request, response, schemaPath }) {
      const operationId = operationOf.get(`${request.method} ${schemaPath}`);
      if (operationId && response.ok) exercised.add(operationId);
      return undefined;
    },
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await zotero?.close();
  pdfServer?.closeAllConnections();
  await new Promise((resolve) => pdfServer?.close(resolve));
});

describe('the generated client', () => {
  let steps: ReturnType<typeof operationSteps>;
  beforeAll(() => {
    steps = operationSteps(client, {
      figurePdf: new Uint8Array(figurePaper),
      openArxivId: '2304.02623',
      bibtex,
      zotero: {
        userId: zoteroUser,
        apiKey: zoteroKey,
        itemsSaved: () => zotero.items.get(zoteroUser)?.length ?? 0,
      },
      serverUrl: document.servers?.[0]?.url ?? '',
    });
  });

  it('is generated from a document whose server is the one it was fetched from', () => {
    const { port } = t.app.server.address() as AddressInfo;
    expect(document.servers).toEqual([{ url: `http://127.0.0.1:${port}` }]);
    expect(operationOf.size).toBeGreaterThanOrEqual(29);
    for (const operationId of operationOf.values()) expect(generatedTypes).toContain(`${operationId}: {`);
    // The generator saw the upload bodies and the export media types the routes really use.
    expect(generatedTypes).toMatch(/"multipart\/form-data": \{[^}]*file\?: string/s);
    expect(generatedTypes).toContain('"application/x-bibtex": string;');
    expect(generatedTypes).toContain('"text/event-stream"');
  });

  it('typechecks the calls below against the generated types', async () => {
    const result = await typecheckAgainst(generatedTypes);
    expect(result.output, result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('checks health, readiness and metrics', () => steps.system());
  it('lists and reads the chat model', () => steps.models());
  it('creates, lists and reads a project', () => steps.projects());
  it('uploads a real PDF as multipart form data', () => steps.upload());
  it('adds a paper by identifier (its open PDF fetched from a loopback server)', () =>
    steps.addByIdentifier());
  it('reads the PDF chunk by chunk, asks it a question and opens a figure', () => steps.readAskAndFigure());
  it("lists the PDF's references, citation contexts of a paper, and checks a bibliography", () =>
    steps.references());
  it("draws the project's citation graph", () => steps.projectGraph());
  it('searches papers, abstracts and patents; reads a paper and its literature map', () => steps.search());
  it('imports a BibTeX file (multipart) and exports BibTeX and RIS as text', () => steps.importAndExport());
  it('analyzes the project', () => steps.analyze());
  it('saves a citation to Zotero; stores, reads and forgets the credentials', () => steps.zotero());
  it('streams a chat completion (SSE) to [DONE]', () => steps.chatStream());
  it('removes papers by entry and by identifier, then deletes the project', () => steps.removeAndDelete());

  it('has called every operation of the document', () => {
    const missing = [...operationOf.values()].filter((operationId) => !exercised.has(operationId));
    expect(missing).toEqual([]);
  });
});
