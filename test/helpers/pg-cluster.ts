import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

let bin: string | undefined;

/**
 * The bin directory of the machine's PostgreSQL (the server the tests use, its tools and version),
 * asked on first use: importing this file needs no pg_config (a machine without PostgreSQL skips).
 */
export function pgBin(): string {
  bin ??= execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  return bin;
}

/** Whether this process runs as root: PostgreSQL refuses to, so its tools then run as `postgres`. */
const asRoot = process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs as the `postgres` user when this process is root, else as itself. */
export function runAsPostgres(command: string, args: string[]): string {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(pgBin(), command), ...args]]
    : [join(pgBin(), command), args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A directory under /tmp that the `postgres` user owns (when this process is root). */
export function postgresOwnedDirectory(prefix: string): string {
  const home = mkdtempSync(prefix);
  if (asRoot) chownSync(home, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  return home;
}

/**
 * A PostgreSQL cluster of the test's own: initdb into a temporary directory, started on a free
 * port of loopback with trust authentication. Tests that may crash a backend (the extension's fuzz
 * test) or load the server heavily run here, never on the machine's shared server: a crashed
 * backend makes the postmaster restart every session of its cluster.
 */
export interface PrivateCluster {
  /** URL of the `postgres` database as the `postgres` superuser. */
  url: string;
  /** URL of another database of the cluster (created beforehand), as `user` (default `postgres`). */
  urlOf(database: string, user?: string): string;
  /** The server's log so far (backend crashes show up as "terminated by signal"). */
  log(): string;
  stop(): void;
}

export async function startPrivateCluster(settings: Record<string, string> = {}): Promise<PrivateCluster> {
  const home = postgresOwnedDirectory('/tmp/alexandria-pg-');
  const data = join(home, 'data');
  const logFile = join(home, 'log');
  const port = await freePort();
  runAsPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = Object.entries({
    port: String(port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: home,
    fsync: 'off',
    shared_buffers: '64MB',
    ...settings,
  }).map(([name, value]) => `-c ${name}=${value}`);
  runAsPostgres('pg_ctl', ['-D', data, '-l', logFile, '-w', '-o', options.join(' '), 'start']);
  const urlOf = (database: string, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`;
  let running = true;
  const stop = () => {
    if (!running) return;
    running = false;
    try {
      runAsPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
  // A test process that ends without its afterAll (an uncaught error) still stops its cluster.
  process.once('exit', stop);
  return { url: urlOf('postgres'), urlOf, log: () => readFileSync(logFile, 'utf8'), stop };
}

/**
 * A PostgreSQL 15 cluster of a test's own, on another port (initdb into a temporary folder, run as
 * the `postgres` user: PostgreSQL refuses root), so a fault test can stop, restart, terminate and
 * pause it without touching the machine's server on 5432 that other tests use. `standby()` streams
 * a hot standby from it (pg_basebackup -R).
 */
export interface PgCluster {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  /** Runs one statement on a connection of its own. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<T>>;
  start(): void;
  /** `fast` (the default) ends sessions and shuts down cleanly; `immediate` is a crash. */
  stop(mode?: 'fast' | 'immediate'): void;
  restart(): void;
  /** Ends every session of `database` except the caller's, as an operator's pg_terminate_backend. */
  terminateSessions(): Promise<number>;
  /** SIGSTOP to the postmaster and every backend: the server hangs (connections open, no answers). */
  pause(): void;
  resume(): void;
  /** A hot standby streaming from this cluster, on a port of its own. */
  standby(): Promise<PgCluster & { caughtUp(): Promise<void> }>;
  /** Stops the cluster and deletes its folder. */
  remove(): void;
}

const postgresUid = () => Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
const asPostgres = runAsPostgres;

/** Whether this machine can run such a cluster: PostgreSQL's binaries, root, a `postgres` user. */
export function canRunOwnCluster(): string | undefined {
  try {
    execFileSync(join(pgBin(), 'initdb'), ['--version'], { stdio: 'ignore' });
    postgresUid();
  } catch {
    return 'PostgreSQL server binaries (initdb) or the postgres user are missing';
  }
  return process.getuid?.() === 0 ? undefined : 'starting a cluster as the postgres user needs root';
}

function clusterAt(home: string, data: string, port: number, database: string): PgCluster {
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${home} -c fsync=off -c shared_buffers=32MB -c max_connections=200`;
  const ctl = (args: string[]) => asPostgres('pg_ctl', ['-D', data, '-l', join(home, 'log'), ...args]);
  const query = async <T extends pg.QueryResultRow>(sql: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.query<T>(sql);
    } finally {
      await client.end();
    }
  };
  const processes = (): number[] => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    return [postmaster, ...children];
  };
  return {
    url,
    port,
    query,
    start: () => void ctl(['-w', '-o', options, 'start']),
    stop: (mode = 'fast') => void ctl(['-m', mode, '-w', 'stop']),
    restart: () => void ctl(['-m', 'fast', '-w', '-o', options, 'restart']),
    async terminateSessions() {
      const ended = await query<{ n: string }>(
        `select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = '${database}' and pid <> pg_backend_pid()`,
      );
      return Number(ended.rows[0]?.n ?? 0);
    },
    pause() {
      for (const pid of processes()) process.kill(pid, 'SIGSTOP');
    },
    resume() {
      for (const pid of processes().reverse()) process.kill(pid, 'SIGCONT');
    },
    async standby() {
      const standbyHome = postgresOwnedDirectory('/tmp/alexandria-fault-standby-');
      const standbyData = join(standbyHome, 'data');
      asPostgres('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', standbyData],
        ...['-R', '-X', 'stream', '-c', 'fast'],
      ]);
      const standby = clusterAt(standbyHome, standbyData, await freePort(), database);
      standby.start();
      return {
        ...standby,
        async caughtUp() {
          const target = (await query<{ lsn: string }>('select pg_current_wal_lsn() as lsn')).rows[0]?.lsn;
          for (let attempt = 0; attempt < 400; attempt += 1) {
            const replayed = await standby.query<{ done: boolean }>(
              `select pg_last_wal_replay_lsn() >= '${target}'::pg_lsn as done`,
            );
            if (replayed.rows[0]?.done) return;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          throw new Error('the standby did not catch up within 20 s');
        },
      };
    },
    remove() {
      try {
        ctl(['-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

/** initdb, start, and create `database` (trust authentication on loopback, replication allowed). */
export async function startOwnCluster(database: string): Promise<PgCluster> {
  const home = postgresOwnedDirectory('/tmp/alexandria-fault-pg-');
  const data = join(home, 'data');
  asPostgres('initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const cluster = clusterAt(home, data, await freePort(), database);
  cluster.start();
  const client = new pg.Client({ connectionString: cluster.url.replace(/\/[^/]*$/, '/postgres') });
  await client.connect();
  await client.query(`create database ${database}`);
  await client.end();
  return cluster;
}
