import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';

const entry = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');

describe('alexandria serve', () => {
  it('prints a first admin key, serves it, and finishes an in-flight request on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-serve-'));
    const child = spawn(process.execPath, ['--import', tsxLoaderUrl(), entry, 'serve'], {
      env: {
        ...process.env,
        ALEXANDRIA_DATA_DIR: dataDir,
        ALEXANDRIA_PORT: '0',
        ALEXANDRIA_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (data: Buffer) => {
        stdout += data.toString();
      });
      const address = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (data: Buffer) => {
          stderr += data.toString();
          const match = /listening on (http:\/\/\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
      });
      const key = /(alx_[A-Za-z0-9]{40})/.exec(stderr)?.[1];
      expect(key).toBeDefined();
      // The key is shown to the person starting the service, never written to the JSON logs.
      expect(stdout).not.toContain(key as string);

      // Start a request whose body is still arriving, then ask the server to stop.
      const { port } = new URL(address);
      const body = JSON.stringify({ project_name: 'Finished during shutdown' });
      const pending = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const outgoing = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/create_project',
            headers: {
              'x-alexandria-api-key': key,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        outgoing.on('error', reject);
        outgoing.write(body.slice(0, 10));
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => outgoing.end(body.slice(10)), 300);
        }, 300);
      });
      const answered = await pending;
      expect(answered.status).toBe(200);
      expect(JSON.parse(answered.text).name).toBe('Finished during shutdown');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
