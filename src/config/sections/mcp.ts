import { z } from 'zod';
import { envVar, listText } from '../env-var.js';

/**
 * One browser origin (`scheme://host[:port]`, http or https, nothing after it), normalised as
 * browsers send it in `Origin`, or `*` for any origin.
 */
const originEntry = z.string().transform((entry, context) => {
  if (entry === '*') return entry;
  try {
    const url = new URL(entry);
    const webScheme = url.protocol === 'http:' || url.protocol === 'https:';
    const originOnly = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    if (webScheme && originOnly && !entry.endsWith('//')) return url.origin;
  } catch {
    // reported below
  }
  context.addIssue({
    code: 'custom',
    message: `"${entry}" is not an origin like https://app.example.org or *`,
  });
  return z.NEVER;
});

/** The MCP server: over stdio (`alexandria mcp`), and the HTTP endpoint /mcp (which uses the request's API key). */
export const mcpSection = {
  apiKey: envVar('ALEXANDRIA_MCP_API_KEY', z.string().min(1).optional(), {
    secret: true,
    description:
      'API key whose tenant `alexandria mcp` (stdio) acts as: that tenant owns the projects the tools see. Optional: without it the local stdio server acts as tenant "default" (the admin key\'s). Create one with `alexandria keys create`.',
  }),
  allowedOrigins: envVar('ALEXANDRIA_MCP_ALLOWED_ORIGINS', listText.pipe(z.array(originEntry)), {
    default: '',
    description:
      'Comma-separated browser origins (https://app.example.org) whose pages may call /mcp, besides the origin of ALEXANDRIA_PUBLIC_URL and loopback (localhost, 127.0.0.0/8, [::1], any port). A request whose Origin header is anything else gets 403 (DNS-rebinding protection, as the MCP specification requires); requests without Origin (MCP clients that are not browsers) are not affected. * allows every origin.',
  }),
};
