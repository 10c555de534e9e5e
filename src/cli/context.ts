import { chooseDataDir, type DataDirChoice } from '../config/data-dir.js';
import { type Config, loadConfig, loadDotEnv, secretValues } from '../config/load-config.js';
import { retiredVariableNotices } from '../config/retired-variables.js';
import { type Container, createContainer } from '../main.js';
import { createLogger, type Logger } from '../platform/logger.js';
import { output } from './output.js';

/**
 * Loads `.env` and the configuration (fail-fast with every bad variable listed), with the data
 * folder chosen for where the command was started (`chooseDataDir`). A variable this release no
 * longer reads is named on stderr as ignored (`retiredVariableNotices`).
 */
export function cliSettings(): { config: Config; dataDir: DataDirChoice } {
  loadDotEnv();
  const config = loadConfig();
  for (const notice of retiredVariableNotices()) output.error(notice);
  const dataDir = chooseDataDir();
  config.storage.dataDir = dataDir.path;
  return { config, dataDir };
}

/** The configuration of a command (see `cliSettings`). */
export function cliConfig(): Config {
  return cliSettings().config;
}

/** A CLI command's logger: to stderr so stdout stays for results, warnings and up by default. */
export function cliLogger(config: Config): Logger {
  return createLogger({
    level: config.server.logLevel === 'info' ? 'warn' : config.server.logLevel,
    destination: 'stderr',
    secrets: secretValues(config),
  });
}

/** A container for a CLI command (see `cliLogger`). */
export async function cliContainer(
  config: Config = cliConfig(),
  logger: Logger = cliLogger(config),
): Promise<Container> {
  return createContainer(config, logger);
}
