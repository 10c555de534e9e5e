import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withKey } from './test-app.js';

/** The MCP SDK's own client, connected over streamable HTTP to `<baseUrl>/mcp` with an API key. */
export async function connectMcp(baseUrl: string, key: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: withKey(key) } }),
  );
  return client;
}

/** The text of a tool result's first content part (throws when it is not text). */
export function toolText(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error('expected text');
  return content.text;
}
