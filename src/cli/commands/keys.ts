import type { Command } from 'commander';
import { cliContainer } from '../context.js';
import { output } from '../output.js';

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('Manage API keys (stored hashed; shown once when created)');

  keys
    .command('create')
    .description('Create an API key for a tenant (the tenant is created if new)')
    .option('-t, --tenant <tenant>', 'tenant that owns the key', 'default')
    .option('-n, --name <name>', 'a label for the key', 'cli')
    .option('--json', 'print JSON')
    .action(async (options: { tenant: string; name: string; json?: boolean }) => {
      const container = await cliContainer();
      try {
        const { key, record } = await container.services.auth.createKey(options.tenant, options.name);
        if (options.json) output.json({ ...record, key });
        else {
          output.line(key);
          output.error(
            `Created key ${record.id} for tenant "${record.tenantId}". Store it now: it is not shown again.`,
          );
        }
      } finally {
        await container.close();
      }
    });

  keys
    .command('list')
    .description('List API keys (never the keys themselves)')
    .option('-t, --tenant <tenant>', 'only this tenant')
    .option('--json', 'print JSON')
    .action(async (options: { tenant?: string; json?: boolean }) => {
      const container = await cliContainer();
      try {
        const records = await container.services.auth.listKeys(options.tenant);
        if (options.json) output.json(records);
        else if (records.length === 0) output.error('No API keys.');
        else
          output.table(
            records.map((record) => ({
              id: record.id,
              tenant: record.tenantId,
              name: record.name,
              prefix: `${record.prefix}…`,
              created: record.createdAt,
              status: record.revokedAt ? `revoked ${record.revokedAt}` : 'active',
            })),
          );
      } finally {
        await container.close();
      }
    });

  keys
    .command('revoke')
    .description('Revoke an API key by id (see keys list)')
    .argument('<id>', 'key id')
    .action(async (id: string) => {
      const container = await cliContainer();
      try {
        await container.services.auth.revokeKey(id);
        output.error(`Revoked ${id}.`);
      } finally {
        await container.close();
      }
    });
}
