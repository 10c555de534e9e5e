import pg from 'pg';
import { AppError } from '../../domain/errors.js';

/**
 * Limits of one PostgreSQL pool (ALEXANDRIA_DATABASE_*; docs/decisions/0046). Every field is
 * optional: tests and tools that open a pool of their own get the defaults below.
 */
export interface PostgresPoolSettings {
  /** Connections the pool may open (default 10). */
  maxConnections?: number;
  /** Opening a connection may take this long, in ms (default 5,000). */
  connectTimeoutMs?: number;
  /**
   * Server-side `statement_timeout`, in ms (default 300,000; 0 = none). The client gives up 5 s
   * later on a statement the server never answers (a stopped or partitioned server).
   */
  statementTimeoutMs?: number;
  /** An unused connection is closed after this long, in ms (default 30,000). */
  idleTimeoutMs?: number;
  /** Extra `-c name=value` server options (search_path, jit). */
  serverOptions?: string;
}

/** What a pool reports about a connection it lost: never the client object (it holds the backend's secret key). */
export interface ConnectionErrorSummary {
  code?: string;
  message: string;
}

/** Told when statements fail for an outage and when a new connection opens (the server is back). */
export interface PostgresPoolHealth {
  onOutage(summary: ConnectionErrorSummary): void;
  onConnected(): void;
}

/** Seconds a client is told to wait after the database failed a request. */
export const databaseRetryAfterSeconds = 5;

/** SQLSTATE codes that mean the server or the connection is gone, not that the statement was wrong. */
const outageStates = new Set([
  '57P01', // admin_shutdown: a restart, pg_terminate_backend
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: a write reached a standby (failover in progress)
]);
const outageSystemCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const outageMessages = [
  'Connection terminated',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'the database system is',
];

/** Whether `error` says the database (or the way to it) failed, rather than the statement. */
export function isDatabaseOutage(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'unavailable';
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (outageStates.has(code) || code.startsWith('08'))) return true;
  if (typeof code === 'string' && outageSystemCodes.has(code)) return true;
  return outageMessages.some((text) => error.message.includes(text));
}

/** A database outage as the 503 the request fails with (Retry-After); any other error unchanged. */
export function asDatabaseOutage(error: unknown): unknown {
  if (error instanceof AppError || !isDatabaseOutage(error)) return error;
  return new AppError('unavailable', 'The database is unavailable right now; retry shortly', {
    retryAfterSeconds: databaseRetryAfterSeconds,
    cause: error,
  });
}

/** The loggable part of a connection error. */
export function summarizeConnectionError(error: unknown): ConnectionErrorSummary {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? { code, message } : { message };
}

type Callback = (error: Error | null | undefined, ...rest: unknown[]) => void;

/**
 * A client that never ends the process and fails with a 503 when its connection is lost. node-postgres
 * emits `error` on a checked-out client when the server ends its connection (a restart,
 * pg_terminate_backend), with or without a statement in flight; the pool listens only while the
 * client is idle, so a client held across statements (a search, a transaction) crashed the process.
 * Here a listener is always attached: the loss reaches the caller as the failed statement's error,
 * and the pool drops the client on release (it is no longer queryable). A statement the server never
 * answered (query_timeout) leaves the connection busy, so it is closed rather than reused.
 */
class GuardedClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

  // biome-ignore lint/suspicious/noExplicitAny: forwards every overload of pg's query unchanged
  override query(...args: any[]): any {
    const last = args.at(-1);
    if (typeof last === 'function') {
      const callback = last as Callback;
      args[args.length - 1] = (error: Error | null | undefined, ...rest: unknown[]) =>
        callback(error ? (this.failed(error) as Error) : error, ...rest);
      // biome-ignore lint/suspicious/noExplicitAny: see above
      return (super.query as (...forwarded: any[]) => unknown)(...args);
    }
    // biome-ignore lint/suspicious/noExplicitAny: see above
    const result = (super.query as (...forwarded: any[]) => unknown)(...args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        throw this.failed(error);
      });
    }
    return result;
  }

  private failed(error: unknown): unknown {
    if (error instanceof Error && error.message === 'Query read timeout') {
      (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
    const translated = asDatabaseOutage(error);
    if (translated !== error) this.onOutage(error);
    return translated;
  }

  /** Hears of each statement that failed for an outage (set per pool). */
  protected onOutage(_error: unknown): void {}
}

/** A pool whose failures to connect are 503s (see `GuardedClient` for failures after connecting). */
class GuardedPool extends pg.Pool {
  /** Hears of connections that could not be opened for an outage. */
  health: PostgresPoolHealth | undefined;

  private failedToConnect(error: unknown): unknown {
    const translated = asDatabaseOutage(error);
    if (translated !== error) this.health?.onOutage(summarizeConnectionError(error));
    return translated;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (
      error: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): void;
  override connect(
    callback?: (
      error: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): Promise<pg.PoolClient> | undefined {
    if (callback) {
      super.connect((error, client, done) =>
        callback(error ? (this.failedToConnect(error) as Error) : undefined, client, done),
      );
      return undefined;
    }
    return super.connect().catch((error: unknown) => {
      throw this.failedToConnect(error);
    });
  }
}

/**
 * A PostgreSQL pool that survives its server: connect, statement, read and idle timeouts, TCP
 * keep-alive, an error listener on every connection whether idle or checked out, and lost
 * connections turned into 503s (`AppError` code `unavailable`) for the request that used them.
 * `onConnectionError` hears of idle connections the server ended (already dropped by the pool).
 */
export function createPostgresPool(
  connectionString: string,
  settings: PostgresPoolSettings = {},
  onConnectionError?: (summary: ConnectionErrorSummary) => void,
  health?: PostgresPoolHealth,
): pg.Pool {
  const Client = class extends GuardedClient {
    protected override onOutage(error: unknown): void {
      health?.onOutage(summarizeConnectionError(error));
    }
  };
  const statementTimeoutMs = settings.statementTimeoutMs ?? 300_000;
  const idleTimeoutMs = settings.idleTimeoutMs ?? 30_000;
  const pool = new GuardedPool({
    connectionString,
    Client,
    max: settings.maxConnections ?? 10,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: idleTimeoutMs,
    keepAlive: true,
    statement_timeout: statementTimeoutMs > 0 ? statementTimeoutMs : undefined,
    query_timeout: statementTimeoutMs > 0 ? statementTimeoutMs + 5_000 : undefined,
    idle_in_transaction_session_timeout: idleTimeoutMs * 2,
    options: settings.serverOptions,
  });
  pool.health = health;
  pool.on('error', (error) => onConnectionError?.(summarizeConnectionError(error)));
  pool.on('connect', () => health?.onConnected());
  return pool;
}
