import { z } from 'zod';
import { envVar } from '../env-var.js';

/** The MCP server over stdio (`alexandria mcp`). The HTTP endpoint /mcp uses the request's API key. */
export const mcpSection = {
  apiKey: envVar('ALEXANDRIA_MCP_API_KEY', z.string().min(1).optional(), {
    secret: true,
    description:
      'API key whose tenant `alexandria mcp` (stdio) acts as: that tenant owns the projects the tools see. Optional: without it the local stdio server acts as tenant "default" (the admin key\'s). Create one with `alexandria keys create`.',
  }),
};
