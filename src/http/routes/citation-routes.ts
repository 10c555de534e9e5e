import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { paperSchema } from '../../domain/paper.js';
import { contentTypeOfFormat } from '../../services/export/citation-formats.js';
import { type CitationFormat, citationFormats } from '../../services/export/citation-service.js';
import { principalOf } from '../auth.js';
import { bodyErrorResponses, errorEnvelopeSchema, errorResponses } from '../schemas.js';
import { type RouteModule, typed } from './route-context.js';

/** Largest reference file an import reads (text body or multipart file). */
const maxImportBytes = 10 * 1024 * 1024;

/** Body types an import accepts besides JSON and multipart; all are read as text. */
const referenceContentTypes = [
  'application/x-bibtex',
  'text/x-bibtex',
  'application/x-research-info-systems',
  'application/x-ris',
  'application/vnd.citationstyles.csl+json',
];

export const exportQuerySchema = z.object({
  format: z
    .enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' })
    .default('bibtex')
    .describe('bibtex (default), ris, or csl (CSL-JSON).'),
});

export const importQuerySchema = z.object({
  format: z
    .enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' })
    .optional()
    .describe('The file format; detected from the content when omitted.'),
});

const importReportSchema = z
  .object({
    project: z.string().describe('Id of the project the papers were filed in.'),
    format: z.string(),
    imported: z.number().int().describe('Entries that became papers.'),
    created: z.number().int().describe('Papers new to the project (the rest updated an existing entry).'),
    papers: z.array(paperSchema),
    skipped: z.array(z.object({ index: z.number().int(), reason: z.string() })),
  })
  .meta({ id: 'ImportReport' });

const projectParams = z.object({ id: z.string().min(1).max(200).describe('Project id or name.') });

/** The exported file, in the media type of its format (the one `contentTypeOfFormat` sends). */
const exportBodies: Record<CitationFormat, z.ZodType> = {
  bibtex: z.string().describe('BibTeX entries.'),
  ris: z.string().describe('RIS records.'),
  csl: z.array(z.record(z.string(), z.unknown())).describe('CSL-JSON items.'),
};
const exportResponse = {
  description: 'The file, as an attachment named after the project.',
  content: Object.fromEntries(
    citationFormats.map((format) => [
      contentTypeOfFormat[format].split(';')[0]?.trim() ?? format,
      { schema: exportBodies[format] },
    ]),
  ),
};

/** The text of an import request: a multipart file, or a text body (CSL-JSON bodies are kept as text). */
async function importText(request: FastifyRequest): Promise<string> {
  if (request.isMultipart()) {
    const file = await request.file();
    if (!file) throw invalid('file', 'The multipart form has no file part: send the file as "file"');
    return (await file.toBuffer()).toString('utf8');
  }
  const body = request.body;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  throw invalid('file', 'Send the BibTeX, RIS or CSL-JSON file as the request body or as a multipart "file"');
}

/** Export a project as BibTeX, RIS or CSL-JSON; import such files into a project. */
export const citationRoutes: RouteModule = async (root, { services }) => {
  // A scope of its own: the text parsers and multipart apply to these routes only.
  await root.register(async (scope) => {
    scope.addContentTypeParser(referenceContentTypes, { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    // A CSL-JSON body stays text too: the import checks its nesting before parsing it, where a
    // parsed value nested thousands deep would overflow the stack when walked (a 500).
    if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    if (!scope.hasContentTypeParser('multipart/form-data')) {
      await scope.register(multipart, { limits: { fileSize: maxImportBytes, files: 1, fields: 10 } });
    }
    const app = typed(scope);

    app.get(
      '/api/projects/:id/export',
      {
        config: { access: 'key' },
        schema: {
          summary: 'Export a project as BibTeX, RIS or CSL-JSON',
          description:
            'The papers of the project as a reference-manager file (Zotero, JabRef, EndNote, Mendeley), built from the stored metadata. Sent as an attachment named after the project.',
          tags: ['projects'],
          params: projectParams,
          querystring: exportQuerySchema,
          response: { 200: exportResponse, ...errorResponses },
        },
      },
      async (request, reply) => {
        const exported = await services.citations.exportProject(
          principalOf(request).tenantId,
          request.params.id,
          request.query.format,
        );
        reply
          .header('content-type', exported.contentType)
          .header('content-disposition', `attachment; filename="${exported.filename}"`)
          .header('x-total-count', String(exported.count));
        return reply.send(exported.content);
      },
    );

    app.post(
      '/api/projects/:id/import',
      {
        config: { access: 'key' },
        bodyLimit: maxImportBytes,
        schema: {
          summary: 'Import BibTeX, RIS or CSL-JSON into a project',
          description:
            'Files every entry of the file in the project (idempotent: a paper already there is updated, not duplicated). Send the file as the body (text/plain, application/x-bibtex, application/x-research-info-systems, application/json) or as a multipart "file".',
          tags: ['projects'],
          params: projectParams,
          querystring: importQuerySchema,
          response: {
            200: importReportSchema,
            ...errorResponses,
            ...bodyErrorResponses,
            422: errorEnvelopeSchema.describe(
              'The file could not be parsed, or holds no entries of its format.',
            ),
          },
        },
      },
      async (request) => {
        const text = await importText(request);
        return services.citations.importIntoProject(
          principalOf(request).tenantId,
          request.params.id,
          text,
          request.query.format as CitationFormat | undefined,
        );
      },
    );
  });
};
