import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { principalOf } from '../auth.js';
import { bodyErrorResponses, errorEnvelopeSchema, errorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const deletedSchema = z
  .object({
    deleted: z.literal(true),
    document_id: z.string().describe('The deleted document (`doc_…`, the last part of its pdf_id).'),
    detached_entries: z
      .number()
      .int()
      .describe('Project entries that held this PDF: they stay in their projects, without a PDF.'),
  })
  .meta({ id: 'DeletedDocument' });

/**
 * A segment of a project path as parseDocumentRef accepts it (src/domain/document-ref.ts): a letter,
 * digit or `_`, then those, `-` and single dots. Without a lookahead (generators lack it), so its
 * length is not bounded here: the server refuses a segment over 128 characters.
 */
const segment = '[A-Za-z0-9_](?:\\.?[A-Za-z0-9_-])*\\.?';

/**
 * What the storage service accepts (src/services/storage/storage-service.ts): a document id, or
 * `PROJ:<project>/<document>` of two safe segments. Declared for clients; the service enforces it
 * with its own messages (decision 0052).
 */
const documentReferencePattern = `^\\s*(?:doc_[0-9a-f]{24}|[Pp][Rr][Oo][Jj]:/*${segment}/${segment})\\s*$`;

const documentReference = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(300, 'must be at most 300 characters')
  .meta({ pattern: documentReferencePattern });

const description =
  'Deletes your stored PDF (pdf_id `PROJ:<project>/<document>`, or `doc_…`) with its text, figures, page images and vectors; entries that held it stay without a PDF. Bytes another tenant stored are kept for them.';

const responses = {
  200: deletedSchema,
  ...errorResponses,
  ...bodyErrorResponses,
  404: errorEnvelopeSchema.describe('You have no such stored PDF (error.param names the reference).'),
};

/** `DELETE /api/documents/{pdf_id}` and `DELETE /api/documents?pdf_id=`: a stored PDF and its blobs. */
export const documentRoutes: RouteModule = (app, { services }) => {
  app.delete(
    '/api/documents/:pdf_id',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Delete a stored PDF',
        description: `${description} Encode it in the path (\`PROJ%3Agpt%2Fdoc_…\`).`,
        tags: ['projects'],
        params: z.object({ pdf_id: documentReference.describe('pdf_id or document id of the PDF.') }),
        response: responses,
      },
    },
    async (request) => {
      const deleted = await services.storage.deleteDocument(
        principalOf(request).tenantId,
        request.params.pdf_id,
        'pdf_id',
      );
      return { deleted: true as const, ...deleted };
    },
  );

  app.delete(
    '/api/documents',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Delete a stored PDF (query form)',
        description,
        tags: ['projects'],
        querystring: z.object({
          pdf_id: documentReference.optional().describe('pdf_id or document id of the PDF.'),
        }),
        response: responses,
      },
    },
    async (request) => {
      const reference = request.query.pdf_id;
      if (reference === undefined) throw invalid('pdf_id', 'pdf_id is required: PROJ:<project>/<document>');
      const deleted = await services.storage.deleteDocument(
        principalOf(request).tenantId,
        reference,
        'pdf_id',
      );
      return { deleted: true as const, ...deleted };
    },
  );
};
