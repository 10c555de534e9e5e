import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { publicUrlOf } from '../../config/public-url.js';
import { AppError } from '../../domain/errors.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import { cliConfig, cliContainer } from '../context.js';

/**
 * `alexandria mcp`: the MCP server over stdio, for hosts that start a process (Claude Desktop, IDEs).
 * It acts as the tenant of ALEXANDRIA_MCP_API_KEY (or --tenant, for a local single-user setup).
 * stdout carries only JSON-RPC; logs go to stderr.
 */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('Run the MCP server over stdio (key from ALEXANDRIA_MCP_API_KEY)')
    .option('-t, --tenant <tenant>', 'act as this tenant instead of the key in ALEXANDRIA_MCP_API_KEY')
    .action(async (options: { tenant?: string }) => {
      const config = cliConfig();
      if (!options.tenant && !config.mcp.apiKey) {
        throw new AppError(
          'unauthorized',
          'Set ALEXANDRIA_MCP_API_KEY to an API key (create one with `alexandria keys create`), or pass --tenant <tenant>',
        );
      }
      const container = await cliContainer(config);
      let tenantId: string;
      try {
        tenantId = options.tenant ?? (await container.services.auth.authenticate(config.mcp.apiKey)).tenantId;
      } catch (error) {
        await container.close();
        throw error;
      }
      const server = createMcpServer({
        tenantId,
        services: container.services,
        publicUrl: publicUrlOf(config),
        logger: container.logger,
      });
      const transport = new StdioServerTransport();
      let closing = false;
      const shutdown = async () => {
        if (closing) return;
        closing = true;
        await server.close().catch(() => undefined);
        await container.close();
      };
      // The host ends the session by closing our stdin (or with a signal).
      process.stdin.once('end', () => void shutdown());
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      await server.connect(transport);
    });
}
