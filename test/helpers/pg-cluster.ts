import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The bin directory of the machine's PostgreSQL (the server the tests use, its tools and version). */
export const pgBin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();

/** Whether this process runs as root: PostgreSQL refuses to, so its tools then run as `postgres`. */
const asRoot = process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs as the `postgres` user when this process is root, else as itself. */
export function runAsPostgres(command: string, args: string[]): string {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(pgBin, command), ...args]]
    : [join(pgBin, command), args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A TCP port on loopback that nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
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
