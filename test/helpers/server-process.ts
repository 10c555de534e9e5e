import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';

const cliEntry = join(import.meta.dirname, 'cli-entry.ts');

/**
 * `alexandria <args>` from the TypeScript sources as a child process on a data folder: a free
 * loopback port, warnings only, no upstream source (the test process's ALEXANDRIA_SOURCES=none),
 * stdout and stderr piped; `env` adds or overrides variables, and removes those set to undefined.
 */
export function spawnCli(
  dataDir: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): ChildProcess {
  return spawn(process.execPath, ['--import', tsxLoaderUrl(), cliEntry, ...args], {
    env: {
      ...process.env,
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_PORT: '0',
      ALEXANDRIA_HOST: '127.0.0.1',
      ALEXANDRIA_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Waits for a spawned `alexandria serve` (stderr piped) to say where it listens. The first start in
 * a data folder also prints the admin API key, returned as `adminKey`.
 */
export async function serverListening(child: ChildProcess): Promise<{ url: string; adminKey?: string }> {
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
  const adminKey = /(alx_[A-Za-z0-9]{40})/.exec(stderr)?.[1];
  return adminKey ? { url, adminKey } : { url };
}

/** Waits for a spawned child (stdout and stderr piped) to exit; its exit code and what it printed. */
export async function finished(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => {
    stdout += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}
