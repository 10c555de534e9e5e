import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { testPostgresUrl } from './services.js';

/**
 * A real streaming replica of the machine's PostgreSQL for tests: a second PostgreSQL 15 cluster
 * on another port, made by `pg_basebackup -R` of the running server and started as the `postgres`
 * user (PostgreSQL refuses to run as root). The primary must accept replication connections from
 * loopback (.ci/run adds the pg_hba line; so does `allowReplication` when it may write the file).
 */
export interface Standby {
  url: string;
  /** Runs SQL on the standby (e.g. `select pg_wal_replay_pause()`). */
  query(sql: string): Promise<pg.QueryResult>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** PostgreSQL's programs (asked when a standby is made, so importing this needs no pg_config). */
let bin: string | undefined;

function asPostgres(command: string, args: string[]): string {
  bin ??= execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  return execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

async function primaryQuery<T extends pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    return await client.query<T>(sql);
  } finally {
    await client.end();
  }
}

/** Adds `host replication all 127.0.0.1/32 trust` to the primary's pg_hba.conf when it lacks a rule. */
export async function allowReplication(): Promise<void> {
  const rules = await primaryQuery<{ n: string }>(
    "select count(*) as n from pg_hba_file_rules where 'replication' = any(database) and (address = '127.0.0.1' or type = 'local')",
  );
  if (Number(rules.rows[0]?.n) > 0) return;
  const file = (await primaryQuery<{ hba_file: string }>('show hba_file')).rows[0]?.hba_file as string;
  execFileSync('sh', ['-c', `echo 'host replication all 127.0.0.1/32 trust' >> '${file}'`]);
  await primaryQuery('select pg_reload_conf()');
}

export async function startStandby(): Promise<Standby> {
  await allowReplication();
  const home = mkdtempSync('/tmp/alexandria-standby-');
  chownSync(home, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const data = join(home, 'data');
  const port = await freePort();
  const primary = new URL(testPostgresUrl);
  asPostgres('pg_basebackup', [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  // Debian keeps a cluster's configuration outside its data dir: give the copy its own.
  // A standby needs at least the primary's values of these.
  const owner = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const limits = await primaryQuery<{ name: string; setting: string }>(
    "select name, setting from pg_settings where name in ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')",
  );
  const settings = limits.rows.map((row) => `${row.name} = ${row.setting}`).join('\n');
  for (const [file, text] of [
    ['postgresql.conf', `hot_standby = on\nshared_buffers = '64MB'\n${settings}\n`],
    ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'],
    ['pg_ident.conf', ''],
  ] as const) {
    writeFileSync(join(data, file), text);
    chownSync(join(data, file), owner, 0);
  }
  asPostgres('pg_ctl', [
    '-D',
    data,
    '-l',
    join(home, 'log'),
    '-w',
    '-o',
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${home}`,
    'start',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/${primary.pathname.slice(1) || 'postgres'}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    url,
    query: (sql) => pool.query(sql),
    async caughtUp() {
      const target = (await primaryQuery<{ lsn: string }>('select pg_current_wal_lsn() as lsn')).rows[0]?.lsn;
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const replayed = await pool.query<{ done: boolean }>(
          `select pg_last_wal_replay_lsn() >= '${target}'::pg_lsn as done`,
        );
        if (replayed.rows[0]?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('standby did not catch up within 10 s');
    },
    async stop() {
      await pool.end();
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}
