import type { Command } from 'commander';
import { listVariables, redactConfig } from '../../config/load-config.js';
import { cliConfig } from '../context.js';
import { output } from '../output.js';

export function registerConfig(program: Command): void {
  program
    .command('config')
    .description('Print the effective configuration (secrets redacted)')
    .option('--variables', 'list every environment variable with its default and description')
    .action((options: { variables?: boolean }) => {
      if (options.variables) {
        output.table(
          listVariables().map(({ variable }) => ({
            variable: variable.name,
            default: variable.defaultText ?? '',
            description: variable.description,
          })),
        );
        return;
      }
      output.json(redactConfig(cliConfig()));
    });
}
