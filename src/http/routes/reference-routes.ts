import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import {
  citationContextsResultSchema,
  referencesResultSchema,
  verifyReferencesResultSchema,
} from '../../domain/references.js';
import { type CitationFormat, citationFormats } from '../../services/citation-service.js';
import { principalOf } from '../auth.js';
import { queryText } from '../query.js';
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
