import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { pageImageWidths } from '../../services/documents/page-images.js';
import { principalOf } from '../auth.js';
import { queryInt } from '../query.js';
import { errorEnvelopeSchema, errorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const documentRef = z.string().trim().max(4000, 'must be at most 4000 characters');

/** `GET /api/page_image`: a page of a stored PDF as a PNG, to show a chunk or quote on its page. */
export const pageImageRoutes: RouteModule = (app, { services }) => {
  app.get(
    '/api/page_image',
    {
      config: { access: 'key' },
      schema: {
        summary: 'A page of a stored PDF as an image',
        description: `Page \`page\` of a stored PDF as a PNG, as displayed. Drawn at ${pageImageWidths.stored.join(', ')} px (\`width\` rounded up; \`x-image-width\`/\`x-image-height\` give the size), once, then served from storage. Chunk and passage \`boxes\` are fractions of it from the top left.`,
        tags: ['full text'],
        querystring: z.object({
          pdf_id: documentRef
            .optional()
            .describe('The stored document: PROJ:<project>/<document>, or the url of a PDF you added.'),
          pdf_url: documentRef.optional().describe('Same as pdf_id.'),
          page: queryInt({ min: 1 }).optional().describe('Page number, from 1 (default 1).'),
          width: queryInt({ min: pageImageWidths.min, max: pageImageWidths.max })
            .optional()
            .describe(
              `Smallest image width wanted, in pixels, ${pageImageWidths.min} to ${pageImageWidths.max} (default ${pageImageWidths.default}); rounded up to a drawn width (${pageImageWidths.stored.join(', ')}). The height follows the page.`,
            ),
        }),
        response: {
          200: {
            description:
              'The page as a PNG image; `x-image-width` and `x-image-height` give its size in pixels.',
            content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...errorResponses,
          404: errorEnvelopeSchema.describe(
            'No such stored PDF among yours (error.param names the reference).',
          ),
          422: errorEnvelopeSchema.describe('The PDF could not be drawn within its limits.'),
          504: errorEnvelopeSchema.describe('Drawing the page took too long.'),
        },
      },
    },
    async (request, reply) => {
      const { pdf_id, pdf_url } = request.query;
      const ref = pdf_id || pdf_url;
      const param = pdf_id ? 'pdf_id' : 'pdf_url';
      if (!ref) throw invalid('pdf_id', 'pdf_id is required: PROJ:<project>/<document> of a stored PDF');
      const image = await services.pageImages.pageImage(principalOf(request).tenantId, ref, {
        page: request.query.page ?? 1,
        ...(request.query.width === undefined ? {} : { width: request.query.width }),
        param,
      });
      // The schema above can only describe a binary body as a `format: binary` string.
      const { png } = image;
      const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength) as unknown as string;
      return reply
        .header('content-type', 'image/png')
        .header('x-image-width', String(image.width))
        .header('x-image-height', String(image.height))
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  );
};
