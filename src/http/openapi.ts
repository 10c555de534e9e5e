import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * OpenAPI 3.1 generated from the route schemas, with the API-key and bearer schemes, served at
 * /openapi.json; Swagger UI at /docs. Routes outside /api (health, metrics, docs) are hidden.
 */
export async function installOpenApi(
  app: FastifyInstance,
  options: { publicUrl: string; version: string },
): Promise<void> {
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
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-alexandria-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
