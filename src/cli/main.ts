import { Command } from 'commander';
import { ConfigError } from '../config/load-config.js';
import { AppError } from '../domain/errors.js';
import { packageVersion } from '../platform/version.js';
import { CliError } from './cli-error.js';
import { registerBackup } from './commands/backup.js';
import { registerConfig } from './commands/config.js';
import { registerDb } from './commands/db.js';
import { registerIngest } from './commands/ingest.js';
import { registerJobs } from './commands/jobs.js';
import { registerKeys } from './commands/keys.js';
import { registerMcp } from './commands/mcp.js';
import { registerServe } from './commands/serve.js';
import { registerStatus } from './commands/status.js';
import { registerWorker } from './commands/worker.js';
import { output } from './output.js';

/** The `alexandria` command line. Each command module registers itself here. */
export function createProgram(): Command {
  const program = new Command('alexandria')
    .description('Alexandria: a self-hostable research literature service')
    .version(packageVersion())
    .option('--debug', 'print the stack trace of an unexpected error')
    // Commander's own usage errors (unknown option, missing argument, bad value) stay one line too.
    .configureOutput({
      outputError: (text, write) => write(`${text.trimEnd()} (see --help)\n`),
    });
  registerServe(program);
  registerKeys(program);
  registerIngest(program);
  registerConfig(program);
  registerMcp(program);
  registerWorker(program);
  registerJobs(program);
  registerBackup(program);
  registerDb(program);
  registerStatus(program);
  return program;
}

/**
 * Runs the command line. Every failure ends as one `error: …` line on stderr and a non-zero exit:
 * the user's mistakes (CliError, bad configuration, refused requests) say what to do; anything else
 * is unexpected and shows its stack trace only with --debug.
 */
export async function runCli(argv: string[]): Promise<void> {
  const program = createProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CliError) {
      output.error(`error: ${error.message}`);
      process.exitCode = error.exitCode;
    } else if (error instanceof ConfigError || error instanceof AppError) {
      output.error(`error: ${error.message}`);
      process.exitCode = 2;
    } else {
      const message = error instanceof Error ? error.message : String(error);
      if (program.opts<{ debug?: boolean }>().debug && error instanceof Error)
        output.error(String(error.stack));
      else output.error(`error: ${message} (unexpected; run again with --debug for the stack trace)`);
      process.exitCode = 1;
    }
  }
}
