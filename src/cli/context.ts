import { type Config, loadConfig, loadDotEnv } from '../config/load-config.js';
import { type Container, createContainer } from '../main.js';
import { createLogger, type Logger } from '../platform/logger.js';

/** Loads `.env` and the configuration (fail-fast with every bad variable listed). */
export function cliConfig(): Config {
  loadDotEnv();
  return loadConfig();
}

/** A container for a CLI command; logs to stderr so stdout stays for results. */
export async function cliContainer(
  config: Config = cliConfig(),
  logger: Logger = createLogger({
    level: config.server.logLevel === 'info' ? 'warn' : config.server.logLevel,
    destination: 'stderr',
  }),
): Promise<Container> {
  return createContainer(config, logger);
}
