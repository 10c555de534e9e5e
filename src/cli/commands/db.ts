import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';

/** The PGXS build-and-install script, shipped in the package beside dist/. */
const installScript = fileURLToPath(new URL('../../../scripts/build-pg-extension.mjs', import.meta.url));

export function registerDb(program: Command): void {
  const db = program.command('db').description('Database host tasks for the PostgreSQL paper index');
  db.command('install-extension')
    .description(
      "Compile the alexandria_pg extension with PGXS and install it into this machine's PostgreSQL (run as root on the database host and on every standby)",
    )
    .option('--build-only', 'compile only, install nothing')
    .action((options: { buildOnly?: boolean }) => {
      const result = spawnSync(
        process.execPath,
        [installScript, ...(options.buildOnly ? ['--build-only'] : [])],
        {
          stdio: 'inherit',
        },
      );
      if (result.status !== 0) throw new CliError('the extension was not installed (see the line above)', 1);
    });
}
