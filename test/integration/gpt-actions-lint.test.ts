import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyPdf } from '../fakes/tiny-pdf.js';
import { multipartBody } from '../helpers/multipart.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * The rules an OpenAPI document must meet to be imported as GPT Actions and to generate working
 * clients (issue 16): operationIds, short descriptions, an absolute server url, and request bodies
 * declared for every operation that reads one, the upload routes included.
 */
interface Operation {
  operationId?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Record<string, unknown> }> };
}
interface Document {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];
let t: TestApp;
let document: Document;

function operations(): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

const find = (method: string, path: string) => {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`no operation ${method} ${path}`);
  return operation;
};

beforeAll(async () => {
  t = await createTestApp();
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  document = response.json() as Document;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('GPT Actions lint of /openapi.json', () => {
  it('validates with swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('gives every operation a unique operationId of letters, digits, _ and -', () => {
    const ids = operations().map(({ method, path, operation }) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z0-9_-]+$/);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(28);
  });

  it('keeps the ScholarAI operation names', () => {
    const expected: Array<[string, string, string]> = [
      ['get', '/api/fast_paper_search', 'fast_paper_search'],
      ['get', '/api/abstracts', 'abstracts'],
      ['get', '/api/patents', 'patents'],
      ['get', '/api/fulltext', 'fulltext'],
      ['get', '/api/question', 'question'],
      ['get', '/api/add_to_project', 'add_to_project'],
      ['post', '/api/create_project', 'create_project'],
      ['get', '/api/save-citation', 'save_citation'],
      ['get', '/api/analyze_project', 'analyze_project'],
      ['get', '/api/literature_map', 'literature_map'],
    ];
    for (const [method, path, id] of expected) expect(find(method, path).operationId).toBe(id);
  });

  it('keeps every description within 300 characters', () => {
    const long = operations()
      .filter(({ operation }) => (operation.description ?? '').length > 300)
      .map(({ method, path, operation }) => `${method} ${path}: ${operation.description?.length}`);
    expect(long).toEqual([]);
  });

  it('names an absolute server url', () => {
    expect(document.servers?.length).toBeGreaterThan(0);
    for (const server of document.servers ?? []) expect(() => new URL(server.url)).not.toThrow();
  });

  it('declares a request body on every POST and PUT', () => {
    const missing = operations()
      .filter(({ method, operation }) => (method === 'post' || method === 'put') && !operation.requestBody)
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });

  it('declares the PDF upload of add_to_project: multipart `file` or a raw PDF', () => {
    const body = find('post', '/api/add_to_project').requestBody;
    const form = body?.content['multipart/form-data']?.schema as
      | { properties: Record<string, { format?: string }> }
      | undefined;
    expect(form?.properties.file?.format).toBe('binary');
    expect(Object.keys(form?.properties ?? {})).toEqual(
      expect.arrayContaining(['project_id', 'project_name', 'paper_id', 'pdf_url']),
    );
    expect(body?.content['application/pdf']?.schema).toMatchObject({ format: 'binary' });
    // The GET of the same route reads no body.
    expect(find('get', '/api/add_to_project').requestBody).toBeUndefined();
  });

  it('declares the reference-file body of import: multipart, text and JSON', () => {
    const content = find('post', '/api/projects/{id}/import').requestBody?.content ?? {};
    expect(Object.keys(content)).toEqual(
      expect.arrayContaining(['multipart/form-data', 'text/plain', 'application/json']),
    );
    expect(content['multipart/form-data']?.schema).toMatchObject({
      properties: { file: { format: 'binary' } },
    });
  });

  it('does not demand a body of create_project (the name may come in the query)', async () => {
    expect(find('post', '/api/create_project').requestBody?.required).toBe(false);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Lint',
      headers: withKey(t.key),
    });
    expect(created.statusCode).toBe(200);
  });

  it('marks POSTs that only read as not consequential, and GETs that write as consequential', () => {
    const consequential = (method: string, path: string) =>
      (find(method, path) as Record<string, unknown>)['x-openai-isConsequential'];
    expect(consequential('post', '/api/verify_references')).toBe(false);
    expect(consequential('post', '/api/chat/completions')).toBe(false);
    expect(consequential('get', '/api/add_to_project')).toBe(true);
    expect(consequential('get', '/api/save-citation')).toBe(true);
    // Writes keep the GPT Actions default: the user confirms them.
    expect(consequential('post', '/api/create_project')).toBeUndefined();
    expect(consequential('post', '/api/add_to_project')).toBeUndefined();
  });

  it('documents on every operation what the HTTP parser refuses before a route runs', () => {
    for (const { method, path, operation } of operations()) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses ?? {};
      for (const status of ['408', '414', '431'])
        expect(responses[status], `${method} ${path} ${status}`).toBeDefined();
    }
  });

  it('declares the bounds of integer parameters', () => {
    const parameter = (method: string, path: string, name: string) =>
      (find(method, path) as { parameters: Array<{ name: string; schema: unknown }> }).parameters.find(
        (candidate) => candidate.name === name,
      )?.schema;
    expect(parameter('get', '/api/literature_map', 'limit')).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 50,
    });
    // The searches read a blank value as "not given" (ScholarAI clients send every parameter).
    expect(parameter('get', '/api/fast_paper_search', 'limit')).toEqual({
      anyOf: [
        { type: 'integer', minimum: 1, maximum: 100 },
        { type: 'string', pattern: '^\\s*$' },
      ],
    });
    expect(JSON.stringify(document)).not.toMatch(/x-alexandria-(integer|blank)/);
  });

  it('documents /healthz, /readyz and /metrics under `system`, without an API key', () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(find('get', path).tags).toEqual(['system']);
      expect(find('get', path).security).toEqual([]);
    }
    expect(document.paths['/mcp']).toBeUndefined();
  });

  it('still parses the uploads the document now declares (the body is not validated by Fastify)', async () => {
    const form = multipartBody([
      {
        name: 'file',
        filename: 'refs.bib',
        contentType: 'text/plain',
        data: Buffer.from('@article{a, title={Lint}}'),
      },
    ]);
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/projects/gpt/import?format=bibtex',
      headers: { ...withKey(t.key), 'content-type': form.contentType },
      payload: form.body,
    });
    expect(imported.statusCode).toBe(200);
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/projects/gpt/import',
      headers: { ...withKey(t.key), 'content-type': 'text/plain' },
      payload: '@article{b, title={Plain}}',
    });
    expect(text.statusCode).toBe(200);
    const pdf = Buffer.from(tinyPdf([['Lint uploads are parsed.']]));
    const upload = multipartBody([
      { name: 'file', filename: 'lint.pdf', contentType: 'application/pdf', data: pdf },
      { name: 'project_name', data: 'Lint uploads' },
    ]);
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project',
      headers: { ...withKey(t.key), 'content-type': upload.contentType },
      payload: upload.body,
    });
    expect(added.statusCode).toBe(200);
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project?project_name=Lint%20raw',
      headers: { ...withKey(t.key), 'content-type': 'application/pdf' },
      payload: pdf,
    });
    expect(raw.statusCode).toBe(200);
  });
});
