import type { Config } from './load-config.js';

/** The base URL clients reach the service at (links in answers and chunks): configured, else localhost on the configured port. */
export function publicUrlOf(config: Config): string {
  return (config.server.publicUrl ?? `http://localhost:${config.server.port}`).replace(/\/+$/, '');
}
