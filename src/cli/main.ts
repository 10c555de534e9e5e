import { Command } from 'commander';
import { ConfigError } from '../config/load-config.js';
import { AppError } from '../domain/errors.js';
import { packageVersion } from '../platform/version.js';
import { registerConfig } from './commands/config.js';
import { registerIngest } from './commands/ingest.js';
import { registerKeys } from './commands/keys.js';
import { registerMcp } from './commands/mcp.js';
import { registerServe } from './commands/serve.js';
import { output } from './output.js';

/** The `alexandria` command line. Each command module registers itself here. */
export function createProgram(): Command {
  const program = new Command('alexandria')
    .description('Alexandria: a self-hostable research literature service')
    .version(packageVersion());
  registerServe(program);
  registerKeys(program);
  registerIngest(program);
  registerConfig(program);
  registerMcp(program);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof AppError) {
      output.error(error.message);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
