import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import type { DataDirChoice } from '../../config/data-dir.js';
import type { Config } from '../../config/load-config.js';
import { publicUrlOf } from '../../config/public-url.js';
import { AppError } from '../../domain/errors.js';
import type { Container } from '../../main.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import { CliError } from '../cli-error.js';
import { cliContainer, cliSettings } from '../context.js';
import { output } from '../output.js';
import { sourcesNotice } from '../startup-notes.js';

/** The tenant of the local user: the one `serve`'s first admin key and `keys create` use. */
const localTenant = 'default';

/**
 * `alexandria mcp`: the MCP server over stdio, for hosts that start a process (Claude Desktop, IDEs).
 * The process runs as the local user, who owns the data folder anyway, so no API key is needed: it
 * acts as the local tenant "default" (the admin key's). ALEXANDRIA_MCP_API_KEY or --tenant choose
 * another tenant. stdout carries only JSON-RPC; what it uses (data folder, tenant) goes to stderr.
 */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      `Run the MCP server over stdio, as tenant "${localTenant}" (or the tenant of ALEXANDRIA_MCP_API_KEY, or --tenant)`,
    )
    .option('-t, --tenant <tenant>', 'act as this tenant')
    .action(async (options: { tenant?: string }) => {
      const { config, dataDir } = cliSettings();
      const container = await cliContainer(config);
      let tenantId: string;
      try {
        tenantId = await tenantOf(container, config, dataDir, options.tenant);
      } catch (error) {
        await container.close();
        throw error;
      }
      output.error(`Alexandria MCP (stdio): ${whereData(config, dataDir)}, tenant "${tenantId}".`);
      // Where the tools' searches go, as `serve` says it (decision 0045); the host shows stderr in its logs.
      output.error(sourcesNotice(container.upstreamSources));
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

/** --tenant, else the tenant of ALEXANDRIA_MCP_API_KEY, else the local tenant. */
async function tenantOf(
  container: Container,
  config: Config,
  dataDir: DataDirChoice,
  tenant: string | undefined,
): Promise<string> {
  if (tenant) return tenant;
  const key = config.mcp.apiKey;
  if (!key) return localTenant;
  // Keys given in ALEXANDRIA_API_KEYS count before `serve` has ever imported them.
  for (const configured of config.auth.apiKeys) {
    await container.services.auth.importKey(configured.tenant, configured.key);
  }
  try {
    return (await container.services.auth.authenticate(key)).tenantId;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'unauthorized') throw error;
    throw new CliError(
      [
        `ALEXANDRIA_MCP_API_KEY is not an active key of ${whereData(config, dataDir)}: keys belong to the store they were created in.`,
        'Point ALEXANDRIA_DATA_DIR (or DATABASE_URL) at the store where you created the key, create a key here with `alexandria keys create`,',
        `or leave ALEXANDRIA_MCP_API_KEY unset: a local stdio server needs no key and acts as tenant "${localTenant}".`,
      ].join(' '),
      2,
    );
  }
}

/** Where the data is, as the user can check it. */
function whereData(config: Config, dataDir: DataDirChoice): string {
  if (config.storage.databaseUrl) return 'the PostgreSQL database of DATABASE_URL';
  const why =
    dataDir.source === 'configured'
      ? 'ALEXANDRIA_DATA_DIR'
      : dataDir.source === 'user'
        ? 'the user data folder, as the working directory holds none; set ALEXANDRIA_DATA_DIR to use another'
        : './data of the working directory; set ALEXANDRIA_DATA_DIR to use another';
  return `data folder ${dataDir.path} (${why})`;
}
