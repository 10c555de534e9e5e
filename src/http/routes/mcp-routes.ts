import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import { principalOf } from '../auth.js';
import { mcpOriginGuard } from '../mcp-origin.js';
import type { RouteModule } from './route-context.js';

const notAllowed = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST',
  },
  id: null,
};

/**
 * A `tools/call` whose `arguments` is null (clients that send null for "no arguments") is read as one
 * without arguments: the SDK would refuse it as an internal error (-32603) with a schema dump, where
 * a tool without required arguments should run and any other gets its named validation error.
 */
export function withoutNullArguments(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withoutNullArguments);
  if (typeof body !== 'object' || body === null) return body;
  const message = body as { method?: unknown; params?: unknown };
  if (message.method !== 'tools/call' || typeof message.params !== 'object' || message.params === null) {
    return body;
  }
  const params = message.params as { arguments?: unknown };
  if (params.arguments !== null) return body;
  const { arguments: _null, ...rest } = params;
  return { ...message, params: rest };
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): each POST gets a new server and transport bound to
 * the caller's tenant, so any replica can answer any request. The API-key hook has already
 * authenticated the request; then a browser `Origin` that is not allowed gets 403 (mcpOriginGuard),
 * both before the body is read. GET (server-initiated streams) and DELETE (sessions) do not exist
 * without sessions: 405.
 */
export const mcpRoutes: RouteModule = (app, { services, config }) => {
  const options = {
    schema: { hide: true },
    config: { access: 'key' },
    onRequest: mcpOriginGuard(config),
  } as const;
  app.post('/mcp', options, async (request, reply) => {
    const { tenantId } = principalOf(request);
    const server = createMcpServer({ tenantId, services, publicUrl: request.publicUrl, logger: request.log });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    // Headers set by hooks (request id, CORS, rate limit) are not written after hijack unless copied.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, withoutNullArguments(request.body));
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32603, message: 'Internal server error' },
            id: null,
          }),
        );
      }
    }
  });

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      ...options,
      method,
      url: '/mcp',
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(notAllowed),
    });
  }
};
