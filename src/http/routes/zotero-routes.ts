import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { principalOf } from '../auth.js';
import { bodyErrorResponses, errorEnvelopeSchema, errorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const savedCitationSchema = z
  .object({
    saved: z.literal(true),
    doi: z.string(),
    item_key: z.string().describe('Key of the new item in the Zotero library.'),
    library: z.string().describe('users/<id>'),
    title: z.string(),
    item_type: z.string(),
    metadata: z.enum(['lookup', 'doi_only']).describe('Whether our metadata for the DOI was found.'),
    hint: z.string(),
  })
  .meta({ id: 'SavedCitation' });

const credentialsStatusSchema = z
  .object({
    configured: z.boolean(),
    user_id: z.string().nullable(),
    api_key_hint: z
      .string()
      .nullable()
      .describe('Last characters of the stored key; the key is never returned.'),
  })
  .meta({ id: 'ZoteroCredentialsStatus' });

export const saveCitationQuerySchema = z.object({
  doi: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(300)
    .describe('DOI to save (10.x/y, doi:…, or a doi.org URL).'),
  zotero_user_id: z.string().trim().max(20).optional().describe('Zotero user id (not secret).'),
  zotero_api_key: z
    .string()
    .optional()
    .describe(
      'Refused unless ALEXANDRIA_ZOTERO_ACCEPT_QUERY_KEY=true: a key in a URL leaks into logs. Use the x-zotero-api-key header.',
    ),
});

function header(request: FastifyRequest, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

/** Saving citations into Zotero (ScholarAI's save-citation), and the caller's stored Zotero credentials. */
export const zoteroRoutes: RouteModule = (app, { services, config }) => {
  app.get(
    '/api/save-citation',
    {
      config: { access: 'key' },
      schema: {
        summary: "Save a DOI into the user's Zotero library",
        description:
          "Creates a Zotero item for the DOI in the caller's library. Credentials: the x-zotero-user-id and x-zotero-api-key headers, or those stored with PUT /api/zotero/credentials. A key in the query (zotero_api_key) is refused by default: URLs end up in logs.",
        tags: ['citations'],
        querystring: saveCitationQuerySchema,
        response: {
          200: savedCitationSchema,
          ...errorResponses,
          403: errorEnvelopeSchema.describe('Zotero refused the API key.'),
          422: errorEnvelopeSchema.describe('Zotero refused the item.'),
          502: errorEnvelopeSchema.describe('Zotero could not be reached or answered with an error.'),
          504: errorEnvelopeSchema.describe('Zotero did not answer in time.'),
        },
      },
    },
    async (request, reply) => {
      const { doi, zotero_user_id, zotero_api_key } = request.query;
      if (zotero_api_key !== undefined && !config.zotero.acceptQueryKey) {
        throw invalid(
          'zotero_api_key',
          'A Zotero API key in the URL is refused: URLs are kept in server, proxy and browser logs. Send it in the x-zotero-api-key header, or store it once with PUT /api/zotero/credentials — and consider this key exposed: rotate it at zotero.org/settings/keys',
        );
      }
      const apiKey = header(request, 'x-zotero-api-key', 'zotero-api-key') ?? zotero_api_key;
      const userId = header(request, 'x-zotero-user-id') ?? zotero_user_id;
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      return services.zotero.saveDoi(
        principalOf(request).tenantId,
        doi,
        { apiKey, userId },
        { signal: controller.signal },
      );
    },
  );

  app.put(
    '/api/zotero/credentials',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Store Zotero credentials for save-citation',
        description:
          'Keeps the Zotero user id and API key for the caller’s tenant, encrypted at rest, so save-citation needs no Zotero headers. The key is never returned or logged.',
        tags: ['citations'],
        body: z.object({
          // The patterns are what the service checks (src/services/zotero-service.ts); not trimmed,
          // so the document's bounds are the server's (decision 0052).
          user_id: z.string().min(1, 'must not be empty').max(20).meta({ pattern: '^[0-9]{1,12}$' }),
          api_key: z.string().min(1, 'must not be empty').max(64).meta({ pattern: '^[A-Za-z0-9]{8,64}$' }),
        }),
        response: { 200: credentialsStatusSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) =>
      services.zotero.storeCredentials(principalOf(request).tenantId, {
        userId: request.body.user_id,
        apiKey: request.body.api_key,
      }),
  );

  app.get(
    '/api/zotero/credentials',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Whether Zotero credentials are stored',
        tags: ['citations'],
        response: { 200: credentialsStatusSchema, ...errorResponses },
      },
    },
    async (request) => services.zotero.credentialsStatus(principalOf(request).tenantId),
  );

  app.delete(
    '/api/zotero/credentials',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Forget the stored Zotero credentials',
        tags: ['citations'],
        response: { 200: credentialsStatusSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      await services.zotero.deleteCredentials(tenantId);
      return services.zotero.credentialsStatus(tenantId);
    },
  );
};
