import { z } from 'zod';
import { type FigureFormat, figureFormats } from '../../ports/pdf-extractor.js';
import { errorEnvelopeSchema } from '../schemas.js';
import type { RouteModule } from './route-context.js';

/**
 * `GET /files/figures/<sha256>/<figure>.png|.jpg?exp=…&sig=…`: figure images linked from `img_mds`.
 * Outside `/api`, so no API key: the signature (HMAC of path and expiry) is the credential, because
 * markdown image links are opened by browsers and chat clients that do not send our header.
 */
export const figureRoutes: RouteModule = (app, { services }) => {
  app.get(
    '/files/figures/:sha256/:file',
    {
      config: { access: 'signed-link' },
      schema: {
        summary: 'A figure image (signed link)',
        description:
          'A figure image (PNG or JPEG) for the holder of a signed link from `img_mds`; no API key. An invalid or expired signature is a 403 (read the chunk again for a fresh link); a 404 once the tenant no longer stores the PDF.',
        tags: ['full text'],
        params: z.object({
          sha256: z.string().max(64),
          file: z.string().max(80).describe('`<figure id>.png` or `<figure id>.jpg`'),
        }),
        querystring: z.object({
          exp: z.string().max(20).optional().describe('Expiry (Unix seconds).'),
          sig: z.string().max(200).optional().describe('Signature (and, on a tied link, the sealed tenant).'),
        }),
        response: {
          200: {
            description: 'The image, PNG or JPEG as the link names it.',
            content: {
              'image/png': { schema: z.string().meta({ format: 'binary' }) },
              'image/jpeg': { schema: z.string().meta({ format: 'binary' }) },
            },
          },
          400: errorEnvelopeSchema.describe('Invalid parameter (named in error.param).'),
          403: errorEnvelopeSchema.describe('Invalid or expired signature.'),
          404: errorEnvelopeSchema.describe('No such figure.'),
          429: errorEnvelopeSchema.describe(
            'Too many requests without an API key from this address; see Retry-After.',
          ),
        },
      },
    },
    async (request, reply) => {
      const { sha256, file } = request.params;
      const expires = Number(request.query.exp ?? '');
      const format: FigureFormat = /\.jpe?g$/i.test(file) ? 'jpeg' : 'png';
      const image = await services.figures.read({
        sha256,
        figureId: file.replace(/\.(png|jpe?g)$/i, ''),
        format,
        expires: Number.isFinite(expires) ? expires : 0,
        signature: request.query.sig ?? '',
      });
      const maxAge = Math.max(0, Math.min(86_400, Math.floor(expires - Date.now() / 1000)));
      // The schema above can only describe a binary body as a `format: binary` string.
      const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength) as unknown as string;
      return reply
        .header('content-type', figureFormats[format].mediaType)
        .header('cache-control', `private, max-age=${maxAge}, immutable`)
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  );
};
