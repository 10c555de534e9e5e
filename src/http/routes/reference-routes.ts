import multipart from '@fastify/multipart';
import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { paperSchema } from '../../domain/paper.js';
import {
  citationContextsResultSchema,
  referencesResultSchema,
  verifyReferencesResultSchema,
} from '../../domain/references.js';
import type { VerifyInput } from '../../services/references/reference-service.js';
import { parseReferenceText } from '../../services/references/reference-text.js';
import { principalOf } from '../auth.js';
import { queryInt, queryText } from '../query.js';
import {
  bodyErrorResponses,
  errorEnvelopeSchema,
  errorResponses,
  heavyErrorResponses,
  paperIdPattern,
} from '../schemas.js';
import { abortOnClientClose } from './client-abort.js';
import {
  checkInputOf,
  documentRef,
  parseReferencesBodyLimit,
  parseReferencesText,
  textContentTypes,
  verifyFormatError,
  verifyFormats,
} from './reference-request-bodies.js';
import { type RouteModule, typed } from './route-context.js';

/** Largest bibliography a check reads (as an import). */
const maxBibliographyBytes = 10 * 1024 * 1024;

const documentErrors = {
  ...errorResponses,
  413: errorEnvelopeSchema.describe('The remote PDF is larger than the configured limit.'),
  415: errorEnvelopeSchema.describe('The url does not point to a PDF.'),
  422: errorEnvelopeSchema.describe('The PDF is broken, encrypted or could not be parsed within its limits.'),
  502: errorEnvelopeSchema.describe('The remote PDF could not be fetched.'),
  504: errorEnvelopeSchema.describe('Fetching or parsing the PDF took too long.'),
};

/**
 * The heavy-work answers (decision 0042) of a request that may also fetch or parse a PDF: its 429
 * and 504 have two causes each.
 */
const heavyDocumentErrors = {
  ...heavyErrorResponses,
  429: errorEnvelopeSchema.describe(
    'Rate limit exceeded, or you already have ALEXANDRIA_HEAVY_PER_TENANT heavy requests (or, for a PDF to parse, ALEXANDRIA_PARSE_PER_TENANT parses) running or waiting; retry after Retry-After seconds.',
  ),
  504: errorEnvelopeSchema.describe(
    'Fetching or parsing the PDF took too long, or the request ran past its time budget (ALEXANDRIA_HEAVY_TIMEOUT_MS) and was stopped: the references linked and entries checked are kept, and asking again goes on.',
  ),
};

/** A project's citation graph (issue 17 part 3). */
export const projectGraphSchema = z
  .object({
    project: z.object({ id: z.string(), name: z.string() }),
    nodes: z
      .array(
        z.object({
          id: z.string().describe('The entry id (entry_id) of the paper in the project; edges name it.'),
          paper: paperSchema,
          references: z.number().int().describe('Entries of its parsed reference list (0 without a PDF).'),
          linked: z.number().int().describe('How many of them are linked to records of the local index.'),
        }),
      )
      .describe('The papers of the project.'),
    edges: z
      .array(
        z.object({
          source: z.string().describe('The citing paper (node id).'),
          target: z.string().describe('The cited paper (node id).'),
          reference: z.string().describe('The citing paper’s reference entry, as printed.'),
          contexts: z.number().int().describe('Sentences of the citing PDF that cite it.'),
        }),
      )
      .describe('Citations between papers of the project.'),
    missing: z
      .array(
        z.object({
          title: z.string(),
          paper: paperSchema.nullable().describe('The record of the local index it is linked to, or null.'),
          paper_id: z.string().nullable().describe('Typed identifier of that record, for add_to_project.'),
          count: z.number().int().describe('How many papers of the project cite it.'),
          cited_by: z.array(z.string()).describe('The citing papers (node ids).'),
          reference: z.string().describe('One citing reference entry, as printed.'),
        }),
      )
      .describe('Works cited by at least min_citing papers of the project that it lacks, most cited first.'),
    hint: z.string(),
  })
  .meta({ id: 'ProjectGraph' });

/** One CSL-JSON item (https://citationstyles.org/), as the parser fills it. */
const cslItemSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    title: z.string().optional(),
    author: z.array(z.record(z.string(), z.string())).optional(),
    editor: z.array(z.record(z.string(), z.string())).optional(),
    translator: z.array(z.record(z.string(), z.string())).optional(),
    'container-title': z.string().optional(),
    issued: z.object({ 'date-parts': z.array(z.array(z.number().int())) }).optional(),
    volume: z.string().optional(),
    issue: z.string().optional(),
    page: z.string().optional(),
    publisher: z.string().optional(),
    'publisher-place': z.string().optional(),
    edition: z.string().optional(),
    genre: z.string().optional(),
    DOI: z.string().optional(),
    URL: z.string().optional(),
    ISBN: z.string().optional(),
    number: z.string().optional(),
    note: z.string().optional(),
    'citation-number': z.string().optional(),
    'citation-label': z.string().optional(),
  })
  .meta({ id: 'CslItem' });

const parseReferencesResultSchema = z
  .object({ entries: z.array(cslItemSchema).describe('One CSL-JSON item per reference, in input order.') })
  .meta({ id: 'ParsedReferences' });

/** `/api/references`, `/api/citation_contexts` and `/api/verify_references` (issue 17). */
export const referenceRoutes: RouteModule = async (root, { services, config }) => {
  const pdfLimit = config.documents.uploadMaxMb * 1024 * 1024;
  await root.register(async (scope) => {
    scope.addContentTypeParser(textContentTypes, { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    // JSON stays text here and is parsed by the route, so a bad body names its parameter.
    if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    scope.addContentTypeParser(
      'application/pdf',
      { parseAs: 'buffer', bodyLimit: pdfLimit },
      (_request, body, done) => done(null, body),
    );
    if (!scope.hasContentTypeParser('multipart/form-data')) {
      await scope.register(multipart, {
        throwFileSizeLimit: true,
        limits: { fileSize: Math.max(maxBibliographyBytes, pdfLimit), files: 1, fields: 10 },
      });
    }
    const app = typed(scope);

    app.get(
      '/api/references',
      {
        config: { access: 'key' },
        schema: {
          summary: "A stored PDF's reference list, linked to papers",
          description:
            'Parses the reference list of a PDF (pdf_id as for /api/fulltext) into entries (number, authors, title, year, venue, DOI, arXiv), links each to a record of the local index (or, online, of the sources) when title, year and first author agree, and lists the sentences citing it.',
          tags: ['references'],
          querystring: z.object({
            pdf_id: documentRef
              .optional()
              .describe('The document: PROJ:<project>/<document>, PDF_URL:<url> or a URL.'),
            pdf_url: documentRef.optional().describe('Same as pdf_id.'),
          }),
          response: { 200: referencesResultSchema, ...documentErrors, ...heavyDocumentErrors },
        },
      },
      async (request, reply) => {
        const { pdf_id, pdf_url } = request.query;
        const ref = pdf_id || pdf_url;
        const param = pdf_id ? 'pdf_id' : 'pdf_url';
        if (!ref)
          throw invalid('pdf_id', 'pdf_id is required: PROJ:<project>/<document>, PDF_URL:<url> or a URL');
        return services.references.references(principalOf(request).tenantId, ref, {
          param,
          signal: abortOnClientClose(reply),
        });
      },
    );

    app.get(
      '/api/citation_contexts',
      {
        config: { access: 'key' },
        schema: {
          summary: 'Sentences of your PDFs that cite a paper',
          description:
            'The sentences, in the PDFs stored in your projects, whose citations resolve to the paper `paper_id` (DOI:…, ACL:…, ARXIV:…), with the PDF, chunk and page of each.',
          tags: ['references'],
          querystring: z.object({
            paper_id: queryText(300).meta({
              pattern: paperIdPattern.source,
              description:
                'Typed identifier <TYPE>:<value> (e.g. ACL:2020.acl-main.447, DOI:10.18653/v1/N19-1423).',
            }),
          }),
          response: { 200: citationContextsResultSchema, ...errorResponses, ...heavyErrorResponses },
        },
      },
      async (request, reply) =>
        services.references.citationContexts(principalOf(request).tenantId, request.query.paper_id, {
          signal: abortOnClientClose(reply),
        }),
    );

    app.get(
      '/api/project_graph',
      {
        config: { access: 'key' },
        schema: {
          summary: "A project's citation graph",
          description:
            'Which papers of a project cite each other (edges), and the works its papers cite most that it lacks (missing, with the linked record), from the parsed reference lists of its stored PDFs; no upstream source.',
          tags: ['references'],
          querystring: z.object({
            project_id: z
              .string()
              .trim()
              .min(1)
              .max(200)
              .optional()
              .describe('Project id (or name); the default project "gpt" when absent.'),
            project_name: z
              .string()
              .trim()
              .min(1)
              .max(200)
              .optional()
              .describe('Project name; an alternative to project_id.'),
            min_citing: queryInt({ min: 1, max: 100 })
              .optional()
              .describe('A missing work is cited by at least this many papers of the project (default 2).'),
            limit: queryInt({ min: 1, max: 200 })
              .optional()
              .describe('Missing works listed (default 20, at most 200).'),
          }),
          response: { 200: projectGraphSchema, ...errorResponses, ...heavyErrorResponses },
        },
      },
      async (request, reply) => {
        const { project_id, project_name, min_citing, limit } = request.query;
        return services.citationGraph.projectGraph(
          principalOf(request).tenantId,
          { project: project_id ?? project_name, param: project_id ? 'project_id' : 'project_name' },
          {
            ...(min_citing ? { minCiting: min_citing } : {}),
            ...(limit ? { limit } : {}),
            signal: abortOnClientClose(reply),
          },
        );
      },
    );

    app.post(
      '/api/parse_references',
      {
        config: { access: 'key' },
        bodyLimit: parseReferencesBodyLimit,
        schema: {
          summary: 'Parse a pasted reference list into CSL-JSON',
          description:
            'Parses a reference list given as text (one reference per line, a numbered list, or a References section) with the parser that reads PDFs\' reference lists, into one CSL-JSON item per reference in input order. Send {"text", "format": "text"} or a text/plain body. Nothing is stored.',
          tags: ['references'],
          response: {
            200: parseReferencesResultSchema,
            ...errorResponses,
            ...bodyErrorResponses,
            422: errorEnvelopeSchema.describe('The text holds no references.'),
          },
        },
      },
      // The items are built field by field from the schema's own fields (reference-text.ts).
      async (request) =>
        parseReferenceText(parseReferencesText(request.body, request.headers['content-type'])) as z.infer<
          typeof parseReferencesResultSchema
        >,
    );

    app.post(
      '/api/verify_references',
      {
        config: { access: 'key' },
        bodyLimit: Math.max(maxBibliographyBytes, pdfLimit + 1024 * 1024),
        schema: {
          summary: 'Check a bibliography or a PDF’s references',
          description:
            'Per entry: exists (the matched record), mismatch (which of year, authors, venue, DOI differ), not_found, or preprint_now_published. Send BibTeX/RIS as {"text"}, a file or the body; a plain reference list with format=text; or a PDF (multipart file, PDF body, or pdf_id).',
          tags: ['references'],
          querystring: z.object({
            format: z
              .enum(verifyFormats, { error: verifyFormatError })
              .optional()
              .describe(
                'bibtex, ris or csl; detected from the content when omitted. text: a plain reference list (one reference per line, a numbered list, or a References section), read by the PDF reference parser.',
              ),
            pdf_id: documentRef
              .optional()
              .describe(
                'Check the reference list of this PDF: PROJ:<project>/<document>, PDF_URL:<url> or a URL.',
              ),
            pdf_url: documentRef.optional().describe('Same as pdf_id.'),
          }),
          response: {
            200: verifyReferencesResultSchema,
            ...errorResponses,
            ...bodyErrorResponses,
            413: errorEnvelopeSchema.describe('The file is larger than the configured limit.'),
            415: errorEnvelopeSchema.describe('The uploaded file or url is not a PDF.'),
            422: errorEnvelopeSchema.describe('The file could not be parsed, or holds no entries.'),
            502: errorEnvelopeSchema.describe('The remote PDF could not be fetched.'),
            ...heavyDocumentErrors,
          },
        },
      },
      async (request, reply) => {
        const signal = abortOnClientClose(reply);
        const input = await checkInputOf(request, request.query, {
          bibliography: maxBibliographyBytes,
          pdf: pdfLimit,
        });
        const queryFormat = request.query.format;
        let checked: VerifyInput = input;
        if (input.kind === 'bibliography' && !input.format && queryFormat) {
          checked =
            queryFormat === 'text'
              ? { kind: 'text', text: input.text, param: 'text' }
              : { ...input, format: queryFormat };
        }
        return services.references.verify(checked, { tenantId: principalOf(request).tenantId, signal });
      },
    );
  });
};
