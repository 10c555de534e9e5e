import type { ChildProcess } from 'node:child_process';

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
