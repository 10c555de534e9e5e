import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { paperSchema } from '../../domain/paper.js';
import {
  citationContextsResultSchema,
  referencesResultSchema,
  verifyReferencesResultSchema,
} from '../../domain/references.js';
import { type CitationFormat, citationFormats } from '../../services/citation-service.js';
import { principalOf } from '../auth.js';
import { queryInt, queryText } from '../query.js';
import { bodyErrorResponses, errorEnvelopeSchema, errorResponses, paperIdPattern } from '../schemas.js';
import { abortOnClientClose } from './client-abort.js';
import { type RouteModule, typed } from './route-context.js';

/** Largest bibliography a check reads (as an import). */
const maxBibliographyBytes = 10 * 1024 * 1024;

const documentRef = z.string().trim().max(4000, 'must be at most 4000 characters');

const documentErrors = {
  ...errorResponses,
  413: errorEnvelopeSchema.describe('The remote PDF is larger than the configured limit.'),
  415: errorEnvelopeSchema.describe('The url does not point to a PDF.'),
  422: errorEnvelopeSchema.describe('The PDF is broken, encrypted or could not be parsed within its limits.'),
  502: errorEnvelopeSchema.describe('The remote PDF could not be fetched.'),
  504: errorEnvelopeSchema.describe('Fetching or parsing the PDF took too long.'),
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

/** The JSON body of a check: the file's text, and its format when known. */
const verifyBodySchema = z.object({
  text: z.string().min(1, 'must not be empty'),
  format: z.enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' }).optional(),
});

/** Body types read as the bibliography's text. */
const textContentTypes = [
  'application/x-bibtex',
  'text/x-bibtex',
  'application/x-research-info-systems',
  'application/x-ris',
];

/** The bibliography of a check: `{text}` JSON, a multipart `file`, or the file as the body. */
async function bibliographyOf(request: FastifyRequest): Promise<{ text: string; format?: CitationFormat }> {
  if (request.isMultipart()) {
    const file = await request.file();
    if (!file) throw invalid('file', 'The multipart form has no file part: send the bibliography as "file"');
    return { text: (await file.toBuffer()).toString('utf8') };
  }
  const body = request.body;
  const type = request.headers['content-type'] ?? '';
  if (typeof body === 'string' && /^application\/json/i.test(type)) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw invalid('text', 'The body is not valid JSON: send {"text": "<BibTeX or RIS>"}');
    }
    const parsed = verifyBodySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = typeof issue?.path[0] === 'string' ? issue.path[0] : 'text';
      throw invalid(param, `${param}: ${issue?.message ?? 'invalid'} (send {"text": "<BibTeX or RIS>"})`);
    }
    return parsed.data.format
      ? { text: parsed.data.text, format: parsed.data.format }
      : { text: parsed.data.text };
  }
  if (typeof body === 'string' && body.trim()) return { text: body };
  throw invalid(
    'text',
    'Send the bibliography as {"text": …} JSON, as a multipart "file", or as the body (BibTeX or RIS)',
  );
}

/** `/api/references`, `/api/citation_contexts` and `/api/verify_references` (issue 17). */
export const referenceRoutes: RouteModule = async (root, { services }) => {
  await root.register(async (scope) => {
    scope.addContentTypeParser(textContentTypes, { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    // JSON stays text here and is parsed by the route, so a bad body names its parameter.
    if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    if (!scope.hasContentTypeParser('multipart/form-data')) {
      await scope.register(multipart, { limits: { fileSize: maxBibliographyBytes, files: 1, fields: 10 } });
    }
    const app = typed(scope);

    app.get(
      '/api/references',
      {
        schema: {
          summary: "A stored PDF's reference list, linked to papers",
          description:
            'Parses the reference list of a PDF (pdf_id as for /api/fulltext) into entries (number, authors, title, year, venue, DOI, arXiv), links each to a record of the local index when title, year and first author agree, and lists the sentences citing it.',
          tags: ['references'],
          querystring: z.object({
            pdf_id: documentRef
              .optional()
              .describe('The document: PROJ:<project>/<document>, PDF_URL:<url> or a URL.'),
            pdf_url: documentRef.optional().describe('Same as pdf_id.'),
          }),
          response: { 200: referencesResultSchema, ...documentErrors },
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
          response: { 200: citationContextsResultSchema, ...errorResponses },
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
          response: { 200: projectGraphSchema, ...errorResponses },
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
      '/api/verify_references',
      {
        bodyLimit: maxBibliographyBytes,
        schema: {
          summary: 'Check a BibTeX or RIS bibliography against the index',
          description:
            'Answers per entry: exists (with the matched record), mismatch (which of year, authors, venue, DOI differ) or not_found, against the local index. Send {"text": …} JSON, a multipart "file", or the file as the body.',
          tags: ['references'],
          querystring: z.object({
            format: z
              .enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' })
              .optional()
              .describe('bibtex, ris or csl; detected from the content when omitted.'),
          }),
          response: {
            200: verifyReferencesResultSchema,
            ...errorResponses,
            ...bodyErrorResponses,
            422: errorEnvelopeSchema.describe('The file could not be parsed, or holds no entries.'),
          },
        },
      },
      async (request) => {
        const { text, format } = await bibliographyOf(request);
        return services.references.verify(text, request.query.format ?? format);
      },
    );
  });
};
