import type { Command } from 'commander';
import { serve } from '../../http/server.js';
import { bootstrapKeys, createContainer } from '../../main.js';
import { createLogger } from '../../platform/logger.js';
import { cliConfig } from '../context.js';
import { output } from '../output.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP service (API, MCP endpoint, web UI)')
    .option('-p, --port <port>', 'port (overrides ALEXANDRIA_PORT)')
    .action(async (options: { port?: string }) => {
      const config = cliConfig();
      if (options.port !== undefined) config.server.port = Number.parseInt(options.port, 10);
      const logger = createLogger({ level: config.server.logLevel, destination: 'stdout' });
      const container = await createContainer(config, logger);
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
      const { address } = await serve(container);
      output.error(`Alexandria is listening on ${address} (docs: ${address}/docs)`);
    });
}
