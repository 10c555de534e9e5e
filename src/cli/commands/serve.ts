import { type Command, InvalidArgumentError } from 'commander';
import { secretValues } from '../../config/load-config.js';
import { serveRoleOf } from '../../config/role.js';
import { systemRoutes } from '../../http/routes/system-routes.js';
import { serve } from '../../http/server.js';
import { bootstrapKeys, createContainer } from '../../main.js';
import { createLogger } from '../../platform/logger.js';
import { CliError } from '../cli-error.js';
import { cliConfig } from '../context.js';
import { output } from '../output.js';
import { indexNotice, sourcesNotice } from '../startup-notes.js';

/** `--port` as a TCP port; anything else is a usage error, not a NaN handed to listen(). */
export function parsePort(text: string): number {
  const port = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new InvalidArgumentError('Give a whole number from 0 to 65535 (0 picks a free port).');
  }
  return port;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP service (API, MCP endpoint, web UI)')
    .option('-p, --port <port>', 'port (overrides ALEXANDRIA_PORT)', parsePort)
    .action(async (options: { port?: number }) => {
      const config = cliConfig();
      if (options.port !== undefined) config.server.port = options.port;
      const logger = createLogger({
        level: config.server.logLevel,
        destination: 'stdout',
        secrets: secretValues(config),
      });
      const role = serveRoleOf(config);
      if (config.jobs.role === 'api' && !config.storage.redisUrl) {
        throw new CliError(
          'ALEXANDRIA_ROLE=api leaves background jobs to `alexandria worker` processes, which take them from Redis: set REDIS_URL, or use ALEXANDRIA_ROLE=all.',
          2,
        );
      }
      const container = await createContainer(config, logger, {
        background: role !== 'worker',
        runJobs: role !== 'api',
        role,
      });
      logger.info({ role }, `serving as role ${role}`);
      const { createdKey } = await bootstrapKeys(container);
      if (createdKey) {
        output.error(
          [
            '',
            'No API key existed, so an admin key was created for tenant "default".',
            'It is shown only this once; keep it (list or revoke keys with `alexandria keys`):',
            '',
            `    ${createdKey}`,
            '',
          ].join('\n'),
        );
      }
      const { host, port } = config.server;
      // A worker's HTTP port answers its probes and metrics only.
      const { address } = await serve(
        container,
        role === 'worker' ? { routeModules: [systemRoutes] } : {},
      ).catch(async (error: unknown) => {
        await container.close().catch(() => undefined);
        throw listenError(error, host, port);
      });
      if (role === 'worker') {
        output.error(
          `Alexandria worker is running jobs from ${config.jobs.prefix}; probes and metrics listening on ${address} (/livez, /readyz, /metrics)`,
        );
        return;
      }
      // Where searches go, said before anyone searches (decision 0045).
      output.error(sourcesNotice(container.upstreamSources));
      // A database that is down at this moment costs the line, not the start.
      const counts = await container.stores.index.count().catch(() => null);
      if (counts) output.error(indexNotice(counts));
      output.error(`Alexandria is listening on ${address} (docs: ${address}/docs)`);
    });
}

/** The usual reasons a server cannot bind, said with what to do; other errors pass through. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host}:${port}`;
  const elsewhere = 'choose another with --port or ALEXANDRIA_PORT (0 picks a free one)';
  if (code === 'EADDRINUSE') {
    return new CliError(
      `Port ${port} is already in use on ${host}: stop the other process, or ${elsewhere}.`,
    );
  }
  if (code === 'EACCES') {
    return new CliError(
      `Not allowed to listen on ${where} (ports below 1024 need privileges): ${elsewhere}.`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new CliError(
      `${host} is not an address of this machine: set ALEXANDRIA_HOST to one of its addresses (0.0.0.0 for all).`,
    );
  }
  return error;
}
