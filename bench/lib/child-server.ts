import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Starts a benchmark server in its own process (`node --import tsx <script>`), so that the load
 * generator and the server do not share an event loop. The script prints `LISTENING <url>` once ready.
 */
export async function startChildServer(
  script: URL,
  env: Record<string, string> = {},
  /** Each line the server prints after it is ready (its log, with BENCH_LOG_LEVEL). */
  onLine?: (line: string) => void,
): Promise<{ url: string; extra: string; pid: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script.pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  const ready = new Promise<{ url: string; extra: string }>((resolve, reject) => {
    let listening = false;
    child.stdout?.on('data', (data: Buffer) => {
      buffer += data.toString();
      if (!listening) {
        const match = /LISTENING (\S+)(?: (.*))?\n/.exec(buffer);
        if (!match?.[1]) return;
        listening = true;
        buffer = buffer.slice(match.index + match[0].length);
        resolve({ url: match[1], extra: match[2] ?? '' });
      }
      let end = buffer.indexOf('\n');
      while (end !== -1) {
        onLine?.(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf('\n');
      }
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
