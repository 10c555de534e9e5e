import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Starts a benchmark server in its own process (`node --import tsx <script>`), so that the load
 * generator and the server do not share an event loop. The script prints `LISTENING <url>` once ready.
 */
export async function startChildServer(
  script: URL,
  env: Record<string, string> = {},
): Promise<{ url: string; extra: string; pid: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script.pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  const ready = new Promise<{ url: string; extra: string }>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      buffer += data.toString();
      const match = /LISTENING (\S+)(?: (.*))?\n/.exec(buffer);
      if (match?.[1]) resolve({ url: match[1], extra: match[2] ?? '' });
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const { url, extra } = await ready;
  return {
    url,
    extra,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
