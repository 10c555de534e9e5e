import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { searchOperations, searchResponseHeaders } from './openapi-search-headers.js';
import { varyByOrigin } from './public-origin.js';
import { blankMarker, integerMarker } from './query.js';

/**
 * OpenAPI 3.1 generated from the route schemas, with the API-key and bearer schemes, served at
 * /openapi.json; Swagger UI at /docs. /livez, /healthz, /readyz and /metrics are documented (tag `system`);
 * /mcp is hidden: it speaks MCP's JSON-RPC over streamable HTTP, which OpenAPI cannot describe
 * usefully and no OpenAPI client should call (MCP hosts find it by its url). The web page and the
 * docs themselves are hidden too. `completeDocument` adds what the route schemas cannot say.
 *
 * `servers` is the base URL the request for the document reached the service at (ALEXANDRIA_PUBLIC_URL,
 * else its Host or a trusted proxy's forwarded host and scheme: src/http/public-origin.ts), so a
 * client generated or a GPT Action imported from a remote machine calls that machine, not localhost.
 */
export async function installOpenApi(app: FastifyInstance, options: { version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Alexandria',
        version: options.version,
        description:
          'Self-hostable research literature service: search papers and patents, read PDFs in numbered chunks with their figures, ask a question of a PDF, keep projects of papers, and get cited answers from a research agent. Every /api route needs an API key.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-alexandria-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: withAccessSecurity,
    transformObject: (input) => completeDocument(jsonSchemaTransformObject(input) as OpenApiDocument),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecification: (document, request) => withServer(document, request),
  });
  app.get(
    '/openapi.json',
    { schema: { hide: true }, config: { access: 'public' } },
    async (request, reply) => {
      varyByOrigin(reply);
      return withServer(app.swagger(), request);
    },
  );
}

/**
 * The route schema as OpenAPI, with `security: []` on every operation whose route needs no API key
 * (`config.access` other than `key`), so the document says what the server enforces.
 */
const withAccessSecurity: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
  const access = (input.route as { config?: { access?: string } } | undefined)?.config?.access;
  if (access !== undefined && access !== 'key')
    return { ...transformed, schema: { ...transformed.schema, security: [] } };
  return transformed;
};

/** The document with the request's base URL as its one server (the generated document is shared). */
function withServer<T extends object>(
  document: T,
  request: FastifyRequest,
): T & { servers: Array<{ url: string }> } {
  return { ...document, servers: [{ url: request.publicUrl }] };
}

type OpenApiDocument = {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  [key: string]: unknown;
};
type OpenApiOperation = {
  operationId?: string;
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown }> };
  parameters?: Array<{ name: string; in: string; schema?: unknown; description?: string }>;
  [key: string]: unknown;
};

/**
 * Stable operationIds (GPT Actions and generated clients need them), keyed `METHOD path`: the
 * ScholarAI names where the route mirrors one, snake_case elsewhere. Never rename one: clients and
 * GPT Actions call operations by these names. A route missing here gets `<method>_<path words>`.
 */
export const operationIds: Record<string, string> = {
  'POST /api/create_project': 'create_project',
  'GET /api/projects': 'list_projects',
  'GET /api/projects/{id}': 'get_project',
  'DELETE /api/projects/{id}': 'delete_project',
  'DELETE /api/projects/{id}/papers/{paper}': 'remove_paper_from_project',
  'DELETE /api/projects/{id}/papers': 'remove_paper_by_identifier',
  'DELETE /api/documents/{pdf_id}': 'delete_document',
  'DELETE /api/documents': 'delete_document_by_query',
  'GET /api/projects/{id}/export': 'export_project',
  'POST /api/projects/{id}/import': 'import_into_project',
  'GET /api/add_to_project': 'add_to_project',
  'POST /api/add_to_project': 'add_to_project_upload',
  'GET /api/analyze_project': 'analyze_project',
  'GET /api/abstracts': 'abstracts',
  'GET /api/fast_paper_search': 'fast_paper_search',
  'GET /api/patents': 'patents',
  'GET /api/paper': 'paper',
  'GET /api/literature_map': 'literature_map',
  'GET /api/fulltext': 'fulltext',
  'GET /api/question': 'question',
  'GET /api/references': 'references',
  'GET /api/citation_contexts': 'citation_contexts',
  'POST /api/parse_references': 'parse_references',
  'POST /api/verify_references': 'verify_references',
  'GET /api/project_graph': 'project_graph',
  'GET /api/page_image': 'page_image',
  'GET /api/save-citation': 'save_citation',
  'PUT /api/zotero/credentials': 'set_zotero_credentials',
  'GET /api/zotero/credentials': 'get_zotero_credentials',
  'DELETE /api/zotero/credentials': 'delete_zotero_credentials',
  'GET /api/models': 'list_models',
  'GET /api/models/{model}': 'get_model',
  'POST /api/chat/completions': 'create_chat_completion',
  'GET /files/figures/{sha256}/{file}': 'get_figure',
  'GET /livez': 'livez',
  'GET /healthz': 'healthz',
  'GET /readyz': 'readyz',
  'GET /metrics': 'metrics',
};

const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const binary = { type: 'string', format: 'binary' };

/**
 * What the route schemas cannot declare: operationIds (one route serves GET and POST of
 * add_to_project), the search operations' response headers, an optional body for create_project
 * (its name may come in the query), and the
 * upload bodies of add_to_project and import. Those two routes read their bodies themselves
 * (multipart, raw PDF, text), so their bodies are declared here, in the document only: a body
 * schema on the route would make Fastify validate, and refuse, what they parse on their own.
 */
export function completeDocument(document: OpenApiDocument): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, shared] of Object.entries(operations)) {
      if (!methods.has(method)) continue;
      // A route of several methods shares one operation object among them: each gets its own.
      const operation: OpenApiOperation = { ...shared };
      operations[method] = operation;
      const key = `${method.toUpperCase()} ${path}`;
      operation.operationId ??= operationIds[key] ?? fallbackOperationId(method, path);
      if (operation.requestBody && acceptsNoBody(operation.requestBody))
        operation.requestBody.required = false;
      if (key === 'POST /api/add_to_project') operation.requestBody = addToProjectBody(operation);
      if (key === 'POST /api/projects/{id}/import') operation.requestBody = importBody;
      if (key === 'POST /api/verify_references') operation.requestBody = verifyReferencesBody;
      // The route names the missing pdf_id itself, so the schema leaves it optional; it is required.
      if (key === 'DELETE /api/documents') operation.parameters = requiring(operation.parameters, 'pdf_id');
      if (key === 'GET /api/save-citation')
        operation.parameters = [...(operation.parameters ?? []), ...zoteroHeaders];
      if (key === 'POST /api/parse_references') operation.requestBody = parseReferencesBody;
      if (searchOperations.has(key)) withHeaders(operation, '200', searchResponseHeaders);
      withParserRefusals(operation);
      for (const status of ['429', '503']) withHeaders(operation, status, retryAfterHeader);
      const consequential = consequence[key];
      if (consequential !== undefined) operation['x-openai-isConsequential'] = consequential;
    }
  }
  return exactIntegers(document) as OpenApiDocument;
}

/**
 * GPT Actions ask the user before an operation marked consequential, and by default treat every
 * GET as safe and every other method as consequential. These are the exceptions: POSTs that only
 * read (a reference check or parse, a question to the research agent) need no confirmation, and GETs that
 * write (filing a paper into a project, saving a citation to Zotero) do.
 */
export const consequence: Record<string, boolean> = {
  'POST /api/verify_references': false,
  'POST /api/parse_references': false,
  'POST /api/chat/completions': false,
  'GET /api/add_to_project': true,
  'GET /api/save-citation': true,
};

/**
 * What Node's HTTP parser refuses before any route runs, on every operation alike
 * (src/http/client-errors.ts): a url or headers longer than it reads, a request not received in time.
 */
const parserRefusals: Record<string, string> = {
  '408': 'The request was not received in time.',
  '414': 'The request url is longer than the server reads (16 KB with the headers).',
  '431': 'The request headers are larger than the server reads (16 KB in all).',
};

function withParserRefusals(operation: OpenApiOperation): void {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  const added: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(parserRefusals)) {
    if (responses[status] !== undefined) continue;
    added[status] = {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  operation.responses = { ...responses, ...added };
}

/**
 * Replaces each schema marked by `queryInt` (its validator reads a number or a numeric string) with
 * the integer and bounds the server enforces, everywhere in the document.
 */
function exactIntegers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(exactIntegers);
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  const bounds = record[integerMarker] as Record<string, number> | undefined;
  const { [blankMarker]: blank, ...unmarked } = record;
  if (bounds !== undefined) {
    const { [integerMarker]: _marker, type: _type, anyOf: _anyOf, ...rest } = unmarked;
    const integer = { type: 'integer', ...bounds };
    // A blank value means "not given" there, so it is admitted too (src/http/routes/search-routes.ts).
    if (blank === true) return { ...rest, anyOf: [integer, { type: 'string', pattern: '^\\s*$' }] };
    return { ...rest, ...integer };
  }
  if (blank !== undefined) return exactIntegers(unmarked);
  return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, exactIntegers(value)]));
}

/** `Retry-After` on every 429 and 503 an operation declares (the error boundary sends it). */
const retryAfterHeader = {
  'Retry-After': {
    description: 'Seconds to wait before sending the request again.',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** Declares the response headers of one status of an operation (copied: responses may be shared). */
function withHeaders(operation: OpenApiOperation, status: string, headers: Record<string, unknown>): void {
  const responses = operation.responses as Record<string, Record<string, unknown>> | undefined;
  const response = responses?.[status];
  if (!responses || !response) return;
  operation.responses = {
    ...responses,
    [status]: { ...response, headers: { ...(response.headers as object | undefined), ...headers } },
  };
}

function fallbackOperationId(method: string, path: string): string {
  const words = path.split(/[^a-zA-Z0-9]+/).filter((word) => word !== '' && word !== 'api');
  return [method, ...words].join('_').toLowerCase();
}

/** A JSON body whose schema admits null (a `.nullish()` zod body) is optional. */
function acceptsNoBody(body: NonNullable<OpenApiOperation['requestBody']>): boolean {
  const schema = body.content['application/json']?.schema as
    | { anyOf?: Array<{ type?: unknown }> }
    | undefined;
  return schema?.anyOf?.some((branch) => branch.type === 'null') ?? false;
}

/** The upload: a multipart form (`file` plus the query's fields) or a raw PDF body. */
function addToProjectBody(operation: OpenApiOperation): NonNullable<OpenApiOperation['requestBody']> {
  const fields: Record<string, unknown> = {
    file: { ...binary, description: 'The PDF to file.' },
  };
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const description = parameter.description === undefined ? {} : { description: parameter.description };
    fields[parameter.name] = { ...(parameter.schema as object), ...description };
  }
  return {
    required: false,
    content: {
      'multipart/form-data': { schema: { type: 'object', properties: fields } },
      'application/pdf': { schema: { ...binary, description: 'The PDF itself.' } },
    },
  };
}

/** The parameters with `name` marked required (copied: parameters may be shared). */
function requiring(parameters: OpenApiOperation['parameters'], name: string): OpenApiOperation['parameters'] {
  return parameters?.map((parameter) =>
    parameter.name === name ? { ...parameter, required: true } : parameter,
  );
}

/**
 * The Zotero credentials save-citation reads from headers (src/http/routes/zotero-routes.ts); the
 * route reads them itself, so they are declared here. `zotero-api-key` is an alias of the first.
 */
const zoteroHeaders = [
  {
    name: 'x-zotero-api-key',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'Zotero API key (zotero.org/settings/keys); else the stored one.',
  },
  {
    name: 'x-zotero-user-id',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'Zotero user id; else zotero_user_id or the stored one.',
  },
];

const referenceText = { type: 'string', description: 'The BibTeX, RIS or CSL-JSON file.' };

/**
 * What a reference check reads: `{text, format}` JSON (a bibliography) or `{pdf_id}` JSON (a stored
 * PDF), a multipart `file` (a bibliography or a PDF), a PDF as the body, or the bibliography itself.
 */
const verifyReferencesBody = {
  required: false,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          text: {
            type: 'string',
            minLength: 1,
            description:
              'The BibTeX, RIS or CSL-JSON text; or, with format "text", a plain reference list (one reference per line, a numbered list, or a References section).',
          },
          format: { type: 'string', enum: ['bibtex', 'ris', 'csl', 'text'] },
          pdf_id: {
            type: 'string',
            minLength: 1,
            maxLength: 4000,
            description:
              'A stored or fetched PDF (PROJ:<project>/<document>, PDF_URL:<url>) whose reference list is checked; instead of text.',
          },
          pdf_url: { type: 'string', minLength: 1, maxLength: 4000, description: 'Same as pdf_id.' },
        },
        // The route refuses any other field (verifyBodySchema is strict).
        additionalProperties: false,
      },
    },
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: {
          file: {
            ...binary,
            description: 'The BibTeX or RIS file, or a PDF whose reference list is checked.',
          },
        },
        required: ['file'],
      },
    },
    'application/pdf': { schema: { ...binary, description: 'A PDF whose reference list is checked.' } },
    'text/plain': { schema: referenceText },
    'application/x-bibtex': { schema: referenceText },
  },
};

/** What `parse_references` reads: `{text, format: "text"}` JSON or the list as a text/plain body. */
const parseReferencesBody = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          text: {
            type: 'string',
            maxLength: 400_000,
            description:
              'The reference list: one reference per line, a numbered or bracketed list, or a References section.',
          },
          format: { type: 'string', enum: ['text'] },
        },
        required: ['text'],
      },
    },
    'text/plain': { schema: { type: 'string', description: 'The reference list as text.' } },
  },
};

const importBody = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: { file: { ...binary, description: 'The BibTeX, RIS or CSL-JSON file.' } },
        required: ['file'],
      },
    },
    'text/plain': { schema: referenceText },
    'application/x-bibtex': { schema: referenceText },
    'application/x-research-info-systems': { schema: referenceText },
    'application/json': {
      // An item that is not an object is skipped and reported in `skipped`, as one without a title is.
      schema: {
        type: 'array',
        items: { description: 'A CSL-JSON item (an object; anything else is skipped).' },
        description: 'CSL-JSON items.',
      },
    },
  },
};
