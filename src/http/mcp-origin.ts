import type { FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config/load-config.js';
import { boundedMessage } from '../domain/error-message.js';

/**
 * Whether a browser page of `origin` (the `Origin` header's value) may call /mcp. Allowed: the
 * origin of ALEXANDRIA_PUBLIC_URL, loopback origins (`localhost`, 127.0.0.0/8, `[::1]`, any port,
 * http or https: a page there is already on the machine), and ALEXANDRIA_MCP_ALLOWED_ORIGINS (`*`:
 * any). Never the origin the request's own Host names: a DNS-rebinding page sends its own name as
 * both Host and Origin, so matching them would let exactly that attack through.
 */
export function mcpOriginAllowed(origin: string, config: Config): boolean {
  const allowed = config.mcp.allowedOrigins;
  if (allowed.includes('*')) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything that is not an origin
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (isLoopbackHost(url.hostname)) return true;
  const publicUrl = config.server.publicUrl;
  if (publicUrl !== undefined && new URL(publicUrl).origin === url.origin) return true;
  return allowed.includes(url.origin);
}

function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'loopback';
}

/**
 * An `onRequest` hook for the /mcp routes: a request whose `Origin` header is present and not allowed
 * (see mcpOriginAllowed) gets 403 with a JSON-RPC error, before its body is read, as MCP's Streamable
 * HTTP transport requires. Requests without `Origin` (MCP clients that are not browsers) pass.
 */
export function mcpOriginGuard(config: Config) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const origin = request.headers.origin;
    if (origin === undefined || mcpOriginAllowed(origin, config)) return;
    request.log.warn({ origin: boundedMessage(origin) }, 'MCP request from a foreign origin refused');
    await reply
      .code(403)
      .type('application/json; charset=utf-8')
      .send({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: boundedMessage(
            `Forbidden: pages of origin ${origin} may not call this MCP server (ALEXANDRIA_MCP_ALLOWED_ORIGINS lists the allowed ones)`,
          ),
        },
        id: null,
      });
  };
}
