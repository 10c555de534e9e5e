import type {
  ConnectionErrorSummary,
  PostgresPoolHealth,
  PostgresPoolSettings,
} from '../adapters/postgres/postgres-pool.js';
import type { StandbyRoutingOptions } from '../adapters/postgres/standby-router.js';
import type { Config } from '../config/load-config.js';
import type { DependencyHealth } from '../platform/dependency-health.js';
import type { Logger } from '../platform/logger.js';

/**
 * The pool settings and connection-loss report every PostgreSQL adapter gets from configuration
 * (ALEXANDRIA_DATABASE_*; docs/decisions/0046). `what` names the pool in the log line. The log gets
 * the error's code and message only: pg attaches the client (with the backend's secret key) to it.
 */
export function postgresPoolOptions(
  config: Config,
  logger: Logger,
  what: string,
  health?: DependencyHealth,
): {
  pool: PostgresPoolSettings;
  onConnectionError: (error: ConnectionErrorSummary) => void;
  health: PostgresPoolHealth;
} {
  const { database } = config;
  return {
    pool: {
      maxConnections: database.poolSize,
      connectTimeoutMs: database.connectTimeoutMs,
      statementTimeoutMs: database.statementTimeoutMs,
      idleTimeoutMs: database.idleTimeoutMs,
    },
    onConnectionError: (error) =>
      logger.warn({ database: error }, `PostgreSQL ended an idle connection of the ${what}`),
    health: {
      onOutage: (error) => health?.failed('postgres', what.replace(/ /g, '_'), error.message),
      onConnected: () => health?.answered('postgres'),
    },
  };
}

/** How the paper index watches and skips its read replicas. */
export function standbyRoutingOptions(config: Config, logger: Logger): StandbyRoutingOptions {
  return {
    timeoutMs: config.database.standbyTimeoutMs,
    skipMs: config.database.standbySkipSeconds * 1000,
    onSkip: (standby, reason) =>
      logger.warn(
        { standby, reason, skipSeconds: config.database.standbySkipSeconds },
        'a PostgreSQL read replica is skipped: the primary answers its reads meanwhile',
      ),
  };
}
