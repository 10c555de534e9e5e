import { envVar, nonNegativeInt, positiveInt } from '../env-var.js';

/**
 * How Alexandria talks to PostgreSQL when DATABASE_URL is set: pool sizes and the time limits that
 * keep a restarted, stopped or hung server from stalling or ending a process
 * (docs/decisions/0046-surviving-dependency-faults.md). Each pool (the project store, the paper
 * index, each read replica) gets these settings.
 */
export const databaseSection = {
  poolSize: envVar('ALEXANDRIA_DATABASE_POOL_SIZE', positiveInt, {
    default: '10',
    description:
      'Connections each PostgreSQL pool of a process may open (the project store, the paper index and each read replica have one). Size the server for replicas × workers × pools × this, plus ingest and maintenance (max_connections).',
  }),
  connectTimeoutMs: envVar('ALEXANDRIA_DATABASE_CONNECT_TIMEOUT_MS', positiveInt, {
    default: '5000',
    description:
      'How long opening a PostgreSQL connection may take, in milliseconds. A request that cannot get a connection in time answers 503 with Retry-After.',
  }),
  statementTimeoutMs: envVar('ALEXANDRIA_DATABASE_STATEMENT_TIMEOUT_MS', nonNegativeInt, {
    default: '300000',
    description:
      'Longest a PostgreSQL statement may run (the server cancels it: statement_timeout), in milliseconds; the client also gives up on an unanswered statement 5 s after this, so a hung server fails the request (503) instead of stalling it. 0 = no limit.',
  }),
  idleTimeoutMs: envVar('ALEXANDRIA_DATABASE_IDLE_TIMEOUT_MS', positiveInt, {
    default: '30000',
    description:
      'How long an unused pooled PostgreSQL connection stays open, in milliseconds; a session idle inside a transaction for twice this is ended by the server (idle_in_transaction_session_timeout).',
  }),
  standbyTimeoutMs: envVar('ALEXANDRIA_DATABASE_STANDBY_TIMEOUT_MS', positiveInt, {
    default: '1000',
    description:
      'With ALEXANDRIA_DATABASE_READ_URLS: how long a read replica may take to answer whether it is caught up, in milliseconds. A replica that does not answer in time (stopped, hung, unreachable) is skipped for ALEXANDRIA_DATABASE_STANDBY_SKIP_SECONDS and the primary answers.',
  }),
  standbySkipSeconds: envVar('ALEXANDRIA_DATABASE_STANDBY_SKIP_SECONDS', positiveInt, {
    default: '30',
    description:
      'How long a read replica that failed or did not answer in time is left out before it is tried again, in seconds.',
  }),
};
