import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePaperIdentifier } from '../../src/domain/identifiers.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { type FakeZotero, startFakeZotero } from '../fakes/fake-zotero.js';
import { tinyPdf } from '../fakes/tiny-pdf.js';
import { figurePaperPdf, editorialPdf as generatedEditorial } from '../helpers/generated-pdfs.js';
import { multipartBody } from '../helpers/multipart.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * A property-based fuzz of every operation of the service's own /openapi.json (issue 13): requests
 * are generated from each operation's parameter and body schemas — valid values, values that hit
 * seeded data, and values that break the schema (wrong types, huge and odd unicode strings, missing
 * required parameters, random and malformed bodies, wrong content types, broken multipart) — and
 * every answer must be below 500, carry a status the operation documents, in a documented content
 * type, with a body that validates against the documented schema.
 *
 * Reproducible: FUZZ_SEED (default below, printed) fixes the run; FUZZ_RUNS (runs per operation)
 * runs longer locally, e.g. `FUZZ_RUNS=2000 npx vitest run test/integration/openapi-fuzz.test.ts`.
 * FUZZ_SHRINK=1 shrinks a failing request to a smaller one; FUZZ_DEBUG=1 prints a few requests and
 * answers per status. Decision record: docs/decisions/0019-openapi-fuzz.md.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20_260_113);
const runs = Number(process.env.FUZZ_RUNS ?? 150);

// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
const editorialPdf = await generatedEditorial();
const figurePdf = await figurePaperPdf();
const smallPdf = Buffer.from(tinyPdf([['Fuzzing is a testing technique.', 'Property based tests.']]));

// ---------------------------------------------------------------------------------------------
// The OpenAPI document, as the fuzz reads it

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
};

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  components: { schemas: Record<string, Schema> };
}

// ---------------------------------------------------------------------------------------------
// Requests

/** A generated request, kept as data so a failing case prints readably and shrinks. */
interface Draft {
  path: Record<string, string>;
  /** Ordered query pairs; a repeated name sends an array. */
  query: Array<[string, string]>;
  /** Appended to the query string as is (invalid percent-encoding and the like). */
  rawQuery?: string;
  /** Path parameters written as is, not percent-encoded. */
  rawPath?: Record<string, string>;
  auth: 'key' | 'bearer' | 'none' | 'bad' | 'other-tenant';
  headers: Record<string, string>;
  body?: { contentType?: string; payload: string | Buffer };
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'drop'; name: string }
  | { kind: 'replace'; name: string; value: string }
  | { kind: 'repeat'; name: string }
  | { kind: 'extra'; name: string; value: string }
  | { kind: 'rawQuery'; text: string }
  | { kind: 'rawPath'; name: string; text: string }
  | { kind: 'body'; contentType?: string; payload: string | Buffer };

/** Values of the seeded data (and near misses), by parameter name, so requests sometimes hit it. */
const hints: Record<string, string[]> = {};
/**
 * Whole parameter sets that reach real data (a valid figure link, a stored PDF and a question),
 * by `<method> <path>`: parameters that only work together are rarely drawn together by chance.
 */
const examples: Record<string, Array<Record<string, unknown>>> = {};
/** JSON bodies that pass the services' own checks, by `<method> <path>`. */
const bodyExamples: Record<string, unknown[]> = {
  'put /api/zotero/credentials': [{ user_id: '7654321', api_key: 'FuzzZoteroKey0123456789a' }],
  'post /api/create_project': [{ project_name: 'from a body' }, null],
  'post /api/chat/completions': [
    { messages: [{ role: 'user', content: 'What is known about fuzzing?' }] },
    {
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'attention' }],
    },
  ],
};
const safeUrls = new Set<string>();

const hostileStrings = [
  '',
  ' ',
  '\t\n',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '-1',
  '0',
  '1e309',
  'NaN',
  '0x10',
  '9'.repeat(40),
  '../../../etc/passwd',
  '..%2f..%2f',
  "' OR 1=1 --",
  '"; DROP TABLE papers; --',
  '\u0000',
  '\u202e\u200b\ufeff',
  '😀👩‍👩‍👧‍👦',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'e\u0301\u0301\u0301',
  'ＤＯＩ：１０．１',
  '<script>alert(1)</script>',
  '%s%n%x',
  '$\u007Bjndi:ldap://x}',
  '"unterminated',
  'NEAR(a b) AND title:* OR ^x -"',
  'a'.repeat(301),
  `DOI:10.1000/${'x'.repeat(600)}`,
];

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/pdf',
  'image/png',
  'application/x-bibtex',
  'text/x-bibtex',
  'application/x-research-info-systems',
  'application/x-ris',
  'application/vnd.citationstyles.csl+json',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=nothere',
  'multipart/mixed; boundary=x',
  'application/json; boundary=x',
  '*/*',
  'garbage',
];

const unicodeString = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ maxLength, unit: 'grapheme' }),
    fc.string({ maxLength, unit: 'grapheme-composite' }),
  );

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 2, arbitrary: unicodeString(60) },
  {
    weight: 1,
    arbitrary: fc
      .record({
        char: fc.constantFrom('a', 'é', '😀', '%', ' ', ','),
        length: fc.integer({ min: 2_000, max: 70_000 }),
      })
      .map(({ char, length }) => char.repeat(length)),
  },
);

/** Prints to the test log: the seed, what the fuzz reached, slow requests. */
function log(text: string): void {
  // biome-ignore lint/suspicious/noConsole: the seed and the reach of the fuzz belong in the CI log.
  console.log(text);
}

/** Follows `$ref: #/components/schemas/X`. */
function resolve(schema: Schema, document: OpenApiDocument): Schema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops += 1) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = document.components.schemas[name] ?? {};
  }
  return current;
}

/** An arbitrary of values meant to fit `schema` (bounded, so runs stay fast). */
function arbitraryOf(schema: Schema, document: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, document);
  if (resolved.const !== undefined) return fc.constant(resolved.const);
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  const choices = resolved.anyOf ?? resolved.oneOf;
  if (choices) return fc.oneof(...choices.map((choice) => arbitraryOf(choice, document, depth + 1)));
  if (resolved.allOf?.[0]) return arbitraryOf(resolved.allOf[0], document, depth + 1);
  if (Array.isArray(resolved.type)) {
    return fc.oneof(...resolved.type.map((type) => arbitraryOf({ ...resolved, type }, document, depth + 1)));
  }
  switch (resolved.type) {
    case 'string': {
      const minLength = resolved.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(resolved.maxLength ?? 40, 40));
      if (resolved.pattern) {
        return fc
          .stringMatching(new RegExp(resolved.pattern))
          .filter((value) => value.length <= (resolved.maxLength ?? Infinity));
      }
      return fc.string({ minLength, maxLength });
    }
    case 'integer':
      return fc.integer({
        min: Math.max(resolved.minimum ?? -1000, -1e9),
        max: Math.min(resolved.maximum ?? 1000, 1e9),
      });
    case 'number':
      return fc.oneof(
        fc.integer({ min: -1000, max: 3000 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = resolved.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(resolved.maxItems ?? 3, 3));
      if (depth > 4) return fc.constant([]);
      return fc.array(arbitraryOf(resolved.items ?? {}, document, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const properties = resolved.properties ?? {};
      if (depth > 4) return fc.constant({});
      return fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([name, property]) => [
            name,
            arbitraryOf(property, document, depth + 1),
          ]),
        ),
        { requiredKeys: resolved.required?.filter((name) => name in properties) ?? [] },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Query values are text: arrays repeat the name, everything else is its string form. */
function pairsOf(name: string, value: unknown): Array<[string, string]> {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item) => pairsOf(name, item));
  if (value !== null && typeof value === 'object') return [[name, JSON.stringify(value)]];
  return [[name, String(value)]];
}

/** A parameter's value: a seeded hint (often) or one built from its schema. */
function parameterValue(parameter: Parameter, document: OpenApiDocument): fc.Arbitrary<unknown> {
  const fromSchema = arbitraryOf(parameter.schema, document);
  const known = hints[parameter.name];
  if (!known || known.length === 0) return fromSchema;
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fromSchema });
}

/** Reference-manager text (BibTeX, RIS, CSL-JSON) built from random fields, bounded in size. */
const referenceText = fc.oneof(
  fc
    .record({
      type: fc.constantFrom('article', 'inproceedings', 'misc', 'book', 'string', 'comment', 'preamble', ''),
      key: fc.string({ maxLength: 12 }),
      title: unicodeString(40),
      doi: fc.constantFrom('10.1234/fuzz', '10.1111/imm.13445', 'not-a-doi', ''),
      extra: fc.constantFrom('', '}', '{{{{', '"', ' # ', '@', '\\', 'author = {A and B and and }'),
    })
    .map(
      ({ type, key, title, doi, extra }) =>
        `@${type}{${key},\n title = {${title}},\n doi = {${doi}},${extra}\n}\n`,
    ),
  fc
    .record({
      type: fc.constantFrom('JOUR', 'BOOK', 'CONF', 'XYZ'),
      title: unicodeString(40),
      doi: fc.string({ maxLength: 20 }),
    })
    .map(({ type, title, doi }) => `TY  - ${type}\nTI  - ${title}\nDO  - ${doi}\nER  - \n`),
  fc
    .array(
      fc.record(
        {
          type: fc.constantFrom('article-journal', 'book', 'x'),
          title: fc.oneof(unicodeString(40), fc.integer(), fc.constant(null)),
          DOI: fc.oneof(fc.constant('10.5555/csl'), fc.string({ maxLength: 20 })),
          author: fc.array(
            fc.record({ family: fc.string({ maxLength: 10 }), given: fc.string({ maxLength: 10 }) }),
            { maxLength: 3 },
          ),
          issued: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    )
    .map((items) => JSON.stringify(items)),
);

/** A multipart body, sometimes broken: no boundary, a wrong one, cut short, odd part names. */
const multipartVariant = fc
  .record({
    parts: fc.array(
      fc.record({
        name: fc.oneof(
          fc.constantFrom(
            'file',
            'files',
            'pdf',
            'upload',
            'project_id',
            'project_name',
            'paper_id',
            'pdf_url',
            'format',
          ),
          fc.string({ maxLength: 10 }),
        ),
        file: fc.boolean(),
        data: fc.oneof(
          fc.constantFrom<'editorial' | 'tiny' | 'truncated' | 'fake'>(
            'editorial',
            'tiny',
            'truncated',
            'fake',
          ),
          hostileString,
          referenceText,
        ),
      }),
      { maxLength: 3 },
    ),
    breakage: fc.constantFrom('none', 'none', 'no-boundary', 'wrong-boundary', 'truncated', 'no-closing'),
    cut: fc.nat(),
  })
  .map(({ parts, breakage, cut }) => {
    const bytes = (data: string) =>
      data === 'editorial'
        ? editorialPdf
        : data === 'tiny'
          ? smallPdf
          : data === 'truncated'
            ? smallPdf.subarray(0, smallPdf.length >> 1)
            : data === 'fake'
              ? Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF')
              : Buffer.from(data);
    const form = multipartBody(
      parts.map((part) =>
        part.file
          ? {
              name: part.name,
              filename: 'upload.pdf',
              contentType: 'application/pdf',
              data: bytes(part.data),
            }
          : { name: part.name, data: typeof part.data === 'string' ? part.data.slice(0, 200) : '' },
      ),
    );
    let payload = form.body;
    let contentType = form.contentType;
    if (breakage === 'no-boundary') contentType = 'multipart/form-data';
    if (breakage === 'wrong-boundary') contentType = 'multipart/form-data; boundary=not-the-boundary';
    if (breakage === 'truncated') payload = payload.subarray(0, cut % Math.max(1, payload.length));
    if (breakage === 'no-closing') payload = payload.subarray(0, Math.max(0, payload.length - 8));
    return { kind: 'body' as const, contentType, payload };
  });

/** Bodies of every kind, for operations that read one. */
const bodyMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({
    kind: 'body' as const,
    contentType: 'application/json',
    payload: JSON.stringify(value) ?? 'null',
  })),
  fc
    .record({
      contentType: fc.option(fc.constantFrom(...contentTypes), { nil: undefined }),
      payload: fc.oneof(hostileString, referenceText),
    })
    .map(({ contentType, payload }) => ({ kind: 'body' as const, contentType, payload })),
  fc
    .constantFrom(
      '{',
      '{"a":',
      '[1,2',
      'nul',
      '{"project_name": "x"}}',
      '\u0000',
      '{"__proto__": {"x": 1}}',
      '{"constructor": {"prototype": {}}}',
    )
    .map((payload) => ({ kind: 'body' as const, contentType: 'application/json', payload })),
  fc
    .record({
      depth: fc.integer({ min: 50, max: 20_000 }),
      open: fc.constantFrom('[', '{"a":'),
      contentType: fc.constantFrom('application/json', 'application/vnd.citationstyles.csl+json'),
    })
    .map(({ depth, open, contentType }) => ({
      kind: 'body' as const,
      contentType,
      payload: `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`,
    })),
  referenceText.chain((payload) =>
    fc
      .constantFrom(...contentTypes.slice(10, 15), 'text/plain')
      .map((contentType) => ({ kind: 'body' as const, contentType, payload })),
  ),
  fc
    .constantFrom<'editorial' | 'tiny' | 'truncated' | 'garbage'>('editorial', 'tiny', 'truncated', 'garbage')
    .map((which) => ({
      kind: 'body' as const,
      contentType: 'application/pdf',
      payload:
        which === 'editorial'
          ? editorialPdf
          : which === 'tiny'
            ? smallPdf
            : which === 'truncated'
              ? smallPdf.subarray(0, 200)
              : Buffer.from('%PDF-1.4\nnot really a pdf'),
    })),
  fc.constant({ kind: 'body' as const, contentType: 'application/json', payload: '' }),
  fc.constant({
    kind: 'body' as const,
    contentType: 'application/json',
    payload: 'x'.repeat(2 * 1024 * 1024 + 10),
  }),
  multipartVariant,
  multipartVariant,
  multipartVariant,
);

const rawQueries = [
  '%',
  '%E0%A4%A',
  '%FF',
  '%C0%AF',
  'a[b]=c',
  'a[]=1&a[]=2',
  '&&&',
  '=x',
  '%00=%00',
  '__proto__=1',
  'constructor=1',
];
const rawPathTexts = ['%', '%E0%A4%A', '%FF', '%00', '..%2F..%2F', '%2e%2e', '%252F'];

/** Every request an operation can get: valid, seeded, or broken in one way. */
function requestsFor(operation: Operation, document: OpenApiDocument): fc.Arbitrary<Draft> {
  const parameters = operation.parameters.filter(
    (parameter) => parameter.in === 'query' || parameter.in === 'path',
  );
  const known = examples[`${operation.method} ${operation.path}`] ?? [];
  const generated = fc.record(
    Object.fromEntries(
      parameters.map((parameter) => [
        parameter.name,
        parameter.required || parameter.in === 'path'
          ? parameterValue(parameter, document)
          : fc.oneof(
              { weight: 3, arbitrary: fc.constant(undefined) },
              { weight: 2, arbitrary: parameterValue(parameter, document) },
            ),
      ]),
    ),
  );
  const values: fc.Arbitrary<Record<string, unknown>> =
    known.length > 0
      ? fc.oneof({ weight: 3, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...known) })
      : generated;
  const jsonSchema = operation.requestBody?.content['application/json']?.schema;
  const knownBodies = (bodyExamples[`${operation.method} ${operation.path}`] ?? []).map((value) => ({
    contentType: 'application/json',
    payload: JSON.stringify(value),
  }));
  const schemaBody = jsonSchema
    ? arbitraryOf(jsonSchema, document).map((value) => ({
        contentType: 'application/json',
        payload: JSON.stringify(value) ?? 'null',
      }))
    : undefined;
  const body: fc.Arbitrary<Draft['body']> = schemaBody
    ? fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 4, arbitrary: schemaBody },
        ...(knownBodies.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...knownBodies) }] : []),
      )
    : fc.constant(undefined);
  const names = parameters.map((parameter) => parameter.name);
  const pathNames = parameters
    .filter((parameter) => parameter.in === 'path')
    .map((parameter) => parameter.name);
  const mutations: Array<{ weight: number; arbitrary: fc.Arbitrary<Mutation> }> = [
    { weight: 6, arbitrary: fc.constant({ kind: 'none' }) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          name: fc.oneof(fc.constantFrom(...hostileStrings.slice(0, 5)), fc.string({ maxLength: 12 })),
          value: hostileString,
        })
        .map(({ name, value }) => ({ kind: 'extra' as const, name: name || 'x', value })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...rawQueries).map((text) => ({ kind: 'rawQuery' as const, text })),
    },
  ];
  if (names.length > 0) {
    mutations.push(
      {
        weight: 4,
        arbitrary: fc
          .record({ name: fc.constantFrom(...names), value: hostileString })
          .map((m) => ({ kind: 'replace' as const, ...m })),
      },
      { weight: 1, arbitrary: fc.constantFrom(...names).map((name) => ({ kind: 'drop' as const, name })) },
      { weight: 1, arbitrary: fc.constantFrom(...names).map((name) => ({ kind: 'repeat' as const, name })) },
    );
  }
  if (pathNames.length > 0) {
    mutations.push({
      weight: 1,
      arbitrary: fc
        .record({ name: fc.constantFrom(...pathNames), text: fc.constantFrom(...rawPathTexts) })
        .map((m) => ({ kind: 'rawPath' as const, ...m })),
    });
  }
  if (['post', 'put', 'patch', 'delete'].includes(operation.method)) {
    mutations.push({
      weight: operation.requestBody || operation.method === 'post' ? 6 : 1,
      arbitrary: bodyMutation,
    });
  }
  const auth = fc.constantFrom<Draft['auth']>(
    'key',
    'key',
    'key',
    'key',
    'key',
    'key',
    'bearer',
    'none',
    'bad',
    'other-tenant',
  );
  const zoteroHeaders = fc.option(fc.constantFrom(...(hints.zoteroHeaders ?? ['{}'])), {
    nil: undefined,
    freq: 3,
  });
  return fc
    .record({ values, body, mutation: fc.oneof(...mutations), auth, zoteroHeaders })
    .map(({ values, body, mutation, auth, zoteroHeaders }) => {
      const draft: Draft = {
        path: {},
        query: [],
        auth,
        headers: zoteroHeaders ? (JSON.parse(zoteroHeaders) as Record<string, string>) : {},
        ...(body ? { body } : {}),
      };
      const current = { ...values } as Record<string, unknown>;
      if (mutation.kind === 'drop') delete current[mutation.name];
      if (mutation.kind === 'replace') current[mutation.name] = mutation.value;
      if (mutation.kind === 'repeat')
        current[mutation.name] = [current[mutation.name] ?? 'a', current[mutation.name] ?? 'b'];
      for (const parameter of parameters) {
        const value = current[parameter.name];
        // An empty path segment is another route (/api/models/ is /api/models), not this operation.
        if (parameter.in === 'path')
          draft.path[parameter.name] = value === undefined || value === '' ? '_' : String(value);
        else draft.query.push(...pairsOf(parameter.name, value));
      }
      if (mutation.kind === 'extra') draft.query.push([mutation.name, mutation.value]);
      if (mutation.kind === 'rawQuery') draft.rawQuery = mutation.text;
      if (mutation.kind === 'rawPath') draft.rawPath = { [mutation.name]: mutation.text };
      if (mutation.kind === 'body') {
        draft.body = {
          payload: mutation.payload,
          ...(mutation.contentType ? { contentType: mutation.contentType } : {}),
        };
      }
      return draft;
    });
}

/** Keeps the fuzz on this machine: a generated http(s) url that is not one of ours becomes text. */
function offline(value: string): string {
  if (safeUrls.has(value)) return value;
  // Trimmed first: `^\s*(…)?\s*` on a long run of spaces backtracks quadratically.
  return /^(pdf_url:)?https?:/i.test(value.trimStart().replace(/^(pdf_url:)\s+/i, '$1'))
    ? value.replace(/:/g, '_')
    : value;
}

function urlOf(operation: Operation, draft: Draft): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_all, name: string) => {
    const raw = draft.rawPath?.[name];
    return raw ?? encodeURIComponent(offline(draft.path[name] ?? ''));
  });
  const query = draft.query.map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(offline(value))}`,
  );
  if (draft.rawQuery) query.push(draft.rawQuery);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

// ---------------------------------------------------------------------------------------------
// Checking answers

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const validators = new Map<string, ValidateFunction>();

function validatorFor(document: OpenApiDocument, key: string, schema: Schema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: document.components });
    validators.set(key, validate);
  }
  return validate;
}

/** What is wrong with an answer, per the document; empty when it is right. */
function violationsOf(
  document: OpenApiDocument,
  operation: Operation,
  response: LightMyRequestResponse,
): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) problems.push(`server error ${status}`);
  const documented = operation.responses[String(status)] ?? operation.responses.default;
  if (!documented) {
    problems.push(
      `status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`,
    );
    return problems;
  }
  const contentType = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  const content = documented.content;
  if (!content || Object.keys(content).length === 0) {
    if (response.rawPayload.length > 0) problems.push(`status ${status} documents no body but one was sent`);
    return problems;
  }
  const media = contentType ? content[contentType] : undefined;
  if (!media) {
    problems.push(
      `content type "${contentType}" of status ${status} is not documented (documented: ${Object.keys(content).join(', ')})`,
    );
    return problems;
  }
  if (!contentType || !/(^application\/json$|\+json$)/.test(contentType) || !media.schema) return problems;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    problems.push(`body of ${contentType} is not JSON`);
    return problems;
  }
  const validate = validatorFor(
    document,
    `${operation.method} ${operation.path} ${status} ${contentType}`,
    media.schema,
  );
  if (!validate(body)) {
    problems.push(
      `body does not match the ${status} schema: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`,
    );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The run

let t: TestApp;
let zotero: FakeZotero;
let document: OpenApiDocument;
let otherKey = '';

/** Statuses seen per operation, printed at the end (what the fuzz reached). */
const seen = new Map<string, Map<number, number>>();
const timings = new Map<string, number>();
/** Requests that took over a second, printed at the end (not a failure: the machine may be busy). */
const slow: string[] = [];

beforeAll(async () => {
  zotero = await startFakeZotero({ userId: '7654321', apiKey: 'FuzzZoteroKey0123456789a' });
  t = await createTestApp({
    ALEXANDRIA_PUBLIC_URL: 'http://alexandria.test',
    ALEXANDRIA_SOURCES: '',
    ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
    ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
    ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1000000',
    ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_BURST: '1000000',
    ALEXANDRIA_ZOTERO_API_URL: zotero.baseUrl,
    ALEXANDRIA_AGENT_READ_REMOTE_PDFS: 'false',
    ALEXANDRIA_UPLOAD_MAX_MB: '2',
    // No background work competing with the run; a question embeds on demand within its deadline.
    ALEXANDRIA_EMBED_ON_ADD: 'false',
    ALEXANDRIA_QUESTION_DEADLINE_MS: '500',
    ALEXANDRIA_FETCH_MAX_MB: '2',
  });
  otherKey = await t.newKey('tenant-fuzz-other');
  const inject = (method: 'GET' | 'POST', url: string, extra: Record<string, unknown> = {}) =>
    t.app.inject({ method, url, headers: withKey(t.key), ...extra });

  // Seed: a project with a stored PDF, one with figures, imported references and index records.
  const known: Paper[] = [
    {
      ...emptyPaper('Fuzzing the literature service'),
      doi: '10.5555/fuzz.1',
      identifiers: { doi: '10.5555/fuzz.1', pmid: '31452104' },
      year: 2021,
      abstract: 'Property based testing of web services with generated requests.',
    },
    {
      ...emptyPaper('Attention is all you need'),
      identifiers: { arxiv: '1706.03762' },
      year: 2017,
      venue: 'NeurIPS',
      type: 'conference-paper',
    },
    {
      ...emptyPaper('A patent on fuzzing'),
      year: 2019,
      type: 'patent',
      patent_number: 'US1234567B2',
      kind: 'B2',
    },
  ];
  await t.container.stores.index.upsert(known);
  const project = (await inject('POST', '/api/create_project?project_name=fuzz')).json();
  await inject('POST', '/api/create_project?project_name=empty-for-analysis');
  const form = (bytes: Buffer) =>
    multipartBody([{ name: 'file', filename: 'paper.pdf', contentType: 'application/pdf', data: bytes }]);
  const upload = async (bytes: Buffer) => {
    const body = form(bytes);
    const response = await inject('POST', '/api/add_to_project?project_name=fuzz', {
      headers: { ...withKey(t.key), 'content-type': body.contentType },
      payload: body.body,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json()[0] as Paper & { pdf_id: string; entry_id?: string };
  };
  const editorial = await upload(editorialPdf);
  const figures = await upload(figurePdf);
  await inject('POST', '/api/projects/fuzz/import?format=bibtex', {
    headers: { ...withKey(t.key), 'content-type': 'application/x-bibtex' },
    payload: '@article{fuzz, title = {Seeded by the fuzz}, doi = {10.5555/fuzz.2}, year = {2020}}',
  });
  const listed = (await inject('GET', '/api/projects/fuzz')).json() as {
    papers: Array<Paper & { entry_id?: string }>;
  };
  const entryIds = listed.papers.map((paper) => paper.entry_id).filter((id): id is string => Boolean(id));

  let figureLink = '';
  const first = (await inject('GET', `/api/fulltext?pdf_id=${figures.pdf_id}`)).json() as {
    total_chunk_num: number;
    chunks: Array<{ img_mds: string[] }>;
  };
  for (let chunk = 1; chunk <= first.total_chunk_num && !figureLink; chunk += 1) {
    const read = (
      await inject('GET', `/api/fulltext?pdf_id=${figures.pdf_id}&chunk=${chunk}`)
    ).json() as typeof first;
    figureLink = read.chunks[0]?.img_mds[0] ?? '';
  }
  const figure = /\/files\/figures\/([0-9a-f]{64})\/([\w.-]+)\?exp=(\d+)&sig=([\w-]+)/.exec(figureLink);
  expect(figure, 'a figure link to fuzz').not.toBeNull();
  const [, sha256 = '', file = '', exp = '', sig = ''] = figure ?? [];

  const loopbackUrls = [
    'http://127.0.0.1:9/a.pdf',
    'PDF_URL:http://127.0.0.1:9/a.pdf',
    'http://localhost:9/a.pdf',
    'http://[::1]:9/a.pdf',
    'http://[::ffff:127.0.0.1]:9/a.pdf',
    'http://2130706433:9/a.pdf',
    'http://0x7f.1:9/a.pdf',
    'https://127.0.0.1:9/',
    'http://127.0.0.1:99999/',
    'http://',
    'https://[',
  ];
  for (const url of loopbackUrls) safeUrls.add(url);
  const documents = [
    editorial.pdf_id,
    figures.pdf_id,
    editorial.pdf_id.toLowerCase(),
    `PROJ:fuzz/doc_${'0'.repeat(24)}`,
    'PROJ:gpt/../x',
    'PROJ:',
    'PROJ:fuzz/',
    ...loopbackUrls,
    'file:///etc/passwd',
    'ftp://127.0.0.1/a.pdf',
    'javascript:alert(1)',
    'data:application/pdf;base64,JVBERi0=',
  ];
  const typedIds = [
    'DOI:10.5555/fuzz.1',
    'doi:10.5555/FUZZ.1',
    'DOI:10.1111/imm.13445',
    'DOI:10.5555/fuzz.2',
    'ARXIV:1706.03762',
    'arxiv:1706.03762v2',
    'PMID:31452104',
    'SS_ID:CorpusId:1',
    'ss-id:CorpusId:1',
    'MAG:123',
    'ACL:P19-1001',
    'PMCID:PMC123',
    'DOI:10.9999/unknown',
    'DOI:not-a-doi',
    'XYZ:1',
    'DOI:',
    ':',
    'DOI',
  ];
  const projects = [
    'gpt',
    'fuzz',
    String(project.id),
    'FUZZ',
    ' fuzz ',
    'no-such-project',
    'Ünïcødé project',
  ];
  Object.assign(hints, {
    id: projects,
    project_id: projects,
    project_name: projects,
    paper: [...entryIds, ...typedIds],
    paper_id: [...typedIds, ...entryIds],
    pdf_id: documents,
    pdf_url: documents,
    url: documents,
    doi: [
      '10.5555/fuzz.1',
      'doi:10.5555/fuzz.1',
      'https://doi.org/10.5555/fuzz.1',
      '10.9999/unknown',
      'not a doi',
    ],
    question: ['What vaccines were studied?', 'fuzzing, testing', 'a', '?', '"quoted"'],
    keywords: ['fuzzing', 'vaccination', 'attention', '"quoted phrase"', 'NEAR(a b)', '*', 'AND OR NOT', '"'],
    query: ['property based testing', 'patent on fuzzing', '"unterminated', 'title:x'],
    full_user_prompt: ['find patents about fuzzing'],
    chunk: ['1', '2', '0', '-1', '999999', '1.5', 'abc'],
    top_k: ['1', '3', '10', '11', '0'],
    limit: ['1', '10', '100', '101', '0'],
    offset: ['0', '10', '10000', '10001', '-1'],
    start_year: ['2017', '999', '3000', 'MMXX'],
    end_year: ['2021', '1000', '2999'],
    sort: ['relevance', 'CITED_BY_COUNT', 'publication_date', 'random'],
    peer_reviewed_only: ['true', 'false', '1', 'no', 'maybe'],
    generative_mode: ['true', 'false'],
    model: ['alexandria-research', 'gpt-4o'],
    sha256: [sha256, sha256.toUpperCase(), '0'.repeat(64), '../..'],
    file: [file, file.replace('.png', '.jpg'), 'fig_999.png', '../../secret', 'x.gif'],
    exp: [exp, '0', '99999999999', '-1', 'soon'],
    sig: [sig, `${sig.slice(0, -1)}A`, ''],
    zotero_user_id: ['7654321', '1'],
    zoteroHeaders: [
      JSON.stringify({ 'x-zotero-user-id': '7654321', 'x-zotero-api-key': 'FuzzZoteroKey0123456789a' }),
      JSON.stringify({ 'x-zotero-user-id': '7654321', 'x-zotero-api-key': 'wrong' }),
      JSON.stringify({ 'x-zotero-user-id': '1', 'x-zotero-api-key': 'FuzzZoteroKey0123456789a' }),
    ],
  });

  Object.assign(examples, {
    'get /files/figures/{sha256}/{file}': [{ sha256, file, exp, sig }],
    'get /api/fulltext': [{ pdf_id: editorial.pdf_id }, { pdf_url: figures.pdf_id, chunk: '2' }],
    'get /api/question': [
      { pdf_id: editorial.pdf_id, question: 'Which vaccines were studied?' },
      { pdf_url: figures.pdf_id, question: 'How does the agent search papers?', top_k: '3' },
    ],
    'get /api/add_to_project': [
      { paper_id: 'DOI:10.5555/fuzz.1', project_name: 'fuzz' },
      { paper_id: 'ARXIV:1706.03762' },
    ],
    'get /api/save-citation': [{ doi: '10.5555/fuzz.1' }],
    'get /api/abstracts': [{ keywords: 'fuzzing' }, { query: 'attention', format: 'wrapped' }],
    'get /api/fast_paper_search': [{ keywords: 'fuzzing' }, { query: 'attention', sort: 'publication_date' }],
    'get /api/patents': [{ keywords: 'fuzzing' }],
  });
  document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument;
}, 180_000);

afterAll(async () => {
  await t?.close();
  await zotero?.close();
});

/** Every operation, reads first and deletes last, so seeded data lives through most of the run. */
function operationsOf(openapi: OpenApiDocument): Operation[] {
  const order = ['get', 'put', 'post', 'patch', 'delete'];
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!order.includes(method)) continue;
      operations.push({ ...operation, method, path, parameters: operation.parameters ?? [] });
    }
  }
  return operations.sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
}

function describeDraft(operation: Operation, draft: Draft): string {
  const payload = draft.body?.payload;
  const preview =
    payload === undefined
      ? ''
      : ` body(${draft.body?.contentType ?? 'no content-type'}, ${payload.length} bytes): ${JSON.stringify(
          (Buffer.isBuffer(payload) ? payload.toString('latin1') : payload).slice(0, 160),
        )}`;
  const url = urlOf(operation, draft);
  return `${operation.method.toUpperCase()} ${url.length > 300 ? `${url.slice(0, 300)}…(${url.length} chars)` : url} auth=${draft.auth}${preview}`;
}

async function send(operation: Operation, draft: Draft): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...draft.headers };
  if (draft.auth === 'key') Object.assign(headers, withKey(t.key));
  if (draft.auth === 'bearer') headers.authorization = `Bearer ${t.key}`;
  if (draft.auth === 'bad') headers['x-alexandria-api-key'] = 'alx_not-a-real-key';
  if (draft.auth === 'other-tenant') Object.assign(headers, withKey(otherKey));
  if (draft.body?.contentType !== undefined) headers['content-type'] = draft.body.contentType;
  return t.app.inject({
    method: operation.method.toUpperCase() as 'GET',
    url: urlOf(operation, draft),
    headers,
    ...(draft.body ? { payload: draft.body.payload } : {}),
  });
}

describe('OpenAPI fuzz: every operation of /openapi.json', () => {
  it('the document is valid OpenAPI 3.1 (swagger-parser) and lists the API', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(operationsOf(document).length).toBeGreaterThanOrEqual(20);
  });

  /** Sends one request to an operation and returns the answer with what is wrong with it. */
  async function probe(method: string, path: string, request: Partial<Draft>) {
    const operation = operationsOf(document).find(
      (candidate) => candidate.method === method && candidate.path === path,
    );
    if (!operation) throw new Error(`no operation ${method} ${path}`);
    const draft: Draft = { path: {}, query: [], auth: 'key', headers: {}, ...request };
    const response = await send(operation, draft);
    return { response, problems: violationsOf(document, operation, response) };
  }

  it('documents the statuses and content types the fuzz found undocumented (regressions)', async () => {
    const cases: Array<[string, string, Partial<Draft>, number, string?]> = [
      // 409: a project of that name exists already.
      ['post', '/api/create_project', { query: [['project_name', 'fuzz']] }, 409],
      // 415 and 413 from any route that reads a body.
      [
        'post',
        '/api/create_project',
        { query: [['project_name', 'x']], body: { contentType: 'application/pdf', payload: '%PDF' } },
        415,
      ],
      [
        'put',
        '/api/zotero/credentials',
        { body: { contentType: 'application/json', payload: 'x'.repeat(2 * 1024 * 1024 + 1) } },
        413,
      ],
      [
        'delete',
        '/api/zotero/credentials',
        { body: { contentType: 'application/xml', payload: '<x/>' } },
        415,
      ],
      [
        'post',
        '/api/chat/completions',
        { body: { contentType: 'application/xml', payload: '<hello/>' } },
        415,
      ],
      [
        'delete',
        '/api/projects/{id}/papers',
        {
          path: { id: 'fuzz' },
          query: [['paper_id', 'x']],
          body: { contentType: 'application/xml', payload: '<a/>' },
        },
        415,
      ],
      // 422: analyze_project of a project without papers; an import without entries of its format.
      [
        'get',
        '/api/analyze_project',
        {
          query: [
            ['project_name', 'empty-for-analysis'],
            ['question', 'why?'],
          ],
        },
        422,
      ],
      [
        'post',
        '/api/projects/{id}/import',
        {
          path: { id: 'fuzz' },
          query: [['format', 'ris']],
          body: { contentType: 'text/plain', payload: 'no records here' },
        },
        422,
      ],
      // 400 from the figure route: a malformed url and an over-long parameter.
      ['get', '/files/figures/{sha256}/{file}', { path: { sha256: 'a'.repeat(65), file: 'x.png' } }, 400],
      [
        'get',
        '/files/figures/{sha256}/{file}',
        { path: { sha256: 'a' }, rawPath: { file: '%E0%A4%A' } },
        400,
      ],
      // The export's media types, one per format.
      [
        'get',
        '/api/projects/{id}/export',
        { path: { id: 'fuzz' }, query: [['format', 'bibtex']] },
        200,
        'application/x-bibtex',
      ],
      [
        'get',
        '/api/projects/{id}/export',
        { path: { id: 'fuzz' }, query: [['format', 'ris']] },
        200,
        'application/x-research-info-systems',
      ],
      [
        'get',
        '/api/projects/{id}/export',
        { path: { id: 'fuzz' }, query: [['format', 'csl']] },
        200,
        'application/vnd.citationstyles.csl+json',
      ],
      // The figure itself is an image, not JSON.
      [
        'get',
        '/files/figures/{sha256}/{file}',
        {
          path: { sha256: hints.sha256?.[0] ?? '', file: hints.file?.[0] ?? '' },
          query: [
            ['exp', hints.exp?.[0] ?? ''],
            ['sig', hints.sig?.[0] ?? ''],
          ],
        },
        200,
        'image/png',
      ],
      // A streamed chat answer is server-sent events.
      [
        'post',
        '/api/chat/completions',
        {
          body: {
            contentType: 'application/json',
            payload: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'fuzzing' }] }),
          },
        },
        200,
        'text/event-stream',
      ],
      // Zotero refusing the key is a 403 of save-citation.
      [
        'get',
        '/api/save-citation',
        {
          query: [['doi', '10.5555/fuzz.1']],
          headers: { 'x-zotero-user-id': '7654321', 'x-zotero-api-key': 'WrongKey0123456789' },
        },
        403,
      ],
    ];
    for (const [method, path, request, status, contentType] of cases) {
      const { response, problems } = await probe(method, path, request);
      const label = `${method.toUpperCase()} ${path} → ${response.statusCode} ${response.body.slice(0, 200)}`;
      expect(response.statusCode, label).toBe(status);
      if (contentType) expect(String(response.headers['content-type']), label).toContain(contentType);
      expect(problems, label).toEqual([]);
    }
  });

  it('declares the paper_id pattern, and a value outside it is a 400 naming paper_id', async () => {
    const parameter = document.paths['/api/paper']?.get?.parameters.find(
      (candidate) => candidate.name === 'paper_id',
    );
    const pattern = new RegExp(parameter?.schema.pattern ?? '(?!)');
    for (const good of [
      'DOI:10.5555/fuzz.1',
      'doi:10.5555/fuzz.1',
      'ARXIV:1706.03762',
      'ss-id:CorpusId:1',
      'PMCID:PMC1',
    ]) {
      expect(pattern.test(good), good).toBe(true);
    }
    for (const bad of ['10.5555/fuzz.1', 'XYZ:1', 'DOI:', ':', 'ent_abc']) {
      expect(pattern.test(bad), bad).toBe(false);
      const { response, problems } = await probe('get', '/api/paper', { query: [['paper_id', bad]] });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.param).toBe('paper_id');
      expect(problems).toEqual([]);
    }
    const { response } = await probe('get', '/api/paper', { query: [['paper_id', 'DOI:10.5555/fuzz.1']] });
    expect(response.statusCode, response.body).toBe(200);

    // Whatever the service accepts as a paper_id fits the declared pattern (the route trims first).
    // A type name as a client might spell it: any case, `ı` for I, `ſ` for S, `ß` for SS, `-` for `_`.
    const typeName = fc
      .constantFrom('DOI', 'PMID', 'SS_ID', 'ARXIV', 'MAG', 'ACL', 'PMCID', 'ISBN', 'SS', 'ID')
      .chain((name) =>
        fc
          .array(fc.constantFrom('lower', 'upper', 'exotic'), {
            minLength: name.length,
            maxLength: name.length,
          })
          .map((styles) => {
            const spelled = [...name].map((char, at) => {
              const exotic: Record<string, string> = { I: 'ı', S: 'ſ', _: '-' };
              if (styles[at] === 'exotic') return exotic[char] ?? char;
              return styles[at] === 'lower' ? char.toLowerCase() : char;
            });
            return styles[0] === 'exotic' && name.startsWith('SS')
              ? `ß${spelled.slice(2).join('')}`
              : spelled.join('');
          }),
      );
    const value = fc.oneof(
      fc.constantFrom('10.5555/fuzz.1', '1706.03762', '31452104', 'PMC12', 'CorpusId:1', 'P19-1001', ''),
      fc.string({ maxLength: 12 }),
    );
    const space = fc.constantFrom('', ' ', '\t', '\n', '\u00a0', '\u3000');
    const candidate = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc
        .tuple(space, typeName, space, fc.constantFrom(':', '：', ''), space, value, space)
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(candidate, (text) => {
        const trimmed = text.trim();
        let accepted = true;
        try {
          parsePaperIdentifier(trimmed);
        } catch {
          accepted = false;
        }
        if (accepted) expect(pattern.test(trimmed), JSON.stringify(trimmed)).toBe(true);
      }),
      { seed, numRuns: 20_000 },
    );
  });

  it('answers every generated request below 500, with a documented status, type and body', async () => {
    log(`openapi fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
    const failures: string[] = [];
    const operations = operationsOf(document);
    for (const [index, operation] of operations.entries()) {
      const name = `${operation.method.toUpperCase()} ${operation.path}`;
      const statuses = new Map<number, number>();
      seen.set(name, statuses);
      const started = Date.now();
      const samples = new Map<number, number>();
      // The agent runs a whole research loop per request: fewer runs keep the test within budget.
      const budget = operation.path === '/api/chat/completions' ? Math.max(5, Math.ceil(runs / 4)) : runs;
      const result = await fc.check(
        fc.asyncProperty(requestsFor(operation, document), async (draft) => {
          const sentAt = Date.now();
          const response = await send(operation, draft);
          const took = Date.now() - sentAt;
          if (took > 1_000)
            slow.push(
              `${took} ms: ${describeDraft(operation, draft).slice(0, 240)} → ${response.statusCode}`,
            );
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          if (process.env.FUZZ_DEBUG && (samples.get(response.statusCode) ?? 0) < 4) {
            samples.set(response.statusCode, (samples.get(response.statusCode) ?? 0) + 1);
            log(
              `${describeDraft(operation, draft).slice(0, 200)}\n  → ${response.statusCode} ${response.body.slice(0, 200)}`,
            );
          }
          const problems = violationsOf(document, operation, response);
          if (problems.length > 0) {
            throw new Error(
              `${problems.join('; ')}\n    answer: ${response.statusCode} ${response.headers['content-type'] ?? ''} ${response.body.slice(0, 300)}`,
            );
          }
        }),
        { seed: seed + index, numRuns: budget, endOnFailure: process.env.FUZZ_SHRINK !== '1' },
      );
      timings.set(name, Date.now() - started);
      if (result.failed) {
        const draft = result.counterexample?.[0] as Draft | undefined;
        const error =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        failures.push(
          `${name}\n    request: ${draft ? describeDraft(operation, draft) : '?'}\n    ${error}\n    replay: FUZZ_SEED=${seed} (operation seed ${result.seed}, path ${result.counterexamplePath})`,
        );
      }
    }
    log(
      [...seen]
        .map(
          ([name, statuses]) =>
            `${name} (${timings.get(name)} ms): ${[...statuses]
              .sort(([a], [b]) => a - b)
              .map(([s, n]) => `${s}×${n}`)
              .join(' ')}`,
        )
        .join('\n'),
    );
    if (slow.length > 0) log(`slow requests:\n${slow.join('\n')}`);
    expect(failures, `\n${failures.join('\n\n')}`).toEqual([]);
  }, 600_000);
});
