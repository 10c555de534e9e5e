import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

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

const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
const postgresUid = () => Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));

function asPostgres(command: string, args: string[]): string {
  return execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Whether this machine can run such a cluster: PostgreSQL's binaries, root, a `postgres` user. */
export function canRunOwnCluster(): string | undefined {
  try {
    execFileSync(join(bin, 'initdb'), ['--version'], { stdio: 'ignore' });
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
      const standbyHome = mkdtempSync('/tmp/alexandria-fault-standby-');
      chownSync(standbyHome, postgresUid(), 0);
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
  const home = mkdtempSync('/tmp/alexandria-fault-pg-');
  chownSync(home, postgresUid(), 0);
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
