import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';

/**
 * Issue 16: `alexandria mcp` started by an MCP host in `/` with no ALEXANDRIA_DATA_DIR created
 * `/data/*.db` and then refused the key it was given ("Invalid or revoked API key"). Started so now,
 * it keeps its data in the user's data folder, needs no key (it runs as the local user) and says on
 * stderr where the data is and which tenant it acts as.
 */

const cliEntry = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');
const cliArgs = ['--import', tsxLoaderUrl(), cliEntry];
let home: string;
const rootDataExisted = existsSync('/data');

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'alexandria-home-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The environment an MCP host gives a server it starts: a PATH and the user's HOME, nothing of ours. */
function hostEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ALEXANDRIA_LOG_LEVEL: 'warn',
    ALEXANDRIA_SOURCES: 'none',
    ...extra,
  };
}

/** `alexandria mcp` from `/`, through the MCP SDK's own stdio client, with its stderr collected. */
async function startFromRoot(extra: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliArgs, 'mcp'],
    cwd: '/',
    env: hostEnvironment(extra),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'alexandria-root-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error('expected a text result');
  return content.text;
}

describe('`alexandria mcp` started in / without ALEXANDRIA_DATA_DIR or a key', () => {
  it('keeps its data in ~/.local/share/alexandria, not /data, and serves the local tenant', async () => {
    const userData = join(home, '.local', 'share', 'alexandria');
    const { client, stderr } = await startFromRoot();
    try {
      const created = await client.callTool({
        name: 'create_project',
        arguments: { project_name: 'Started from root' },
      });
      expect(created.isError, textOf(created)).toBeFalsy();
      const listed = JSON.parse(textOf(await client.callTool({ name: 'list_projects', arguments: {} })));
      expect(listed.result.map((project: { name: string }) => project.name)).toEqual(
        expect.arrayContaining(['gpt', 'Started from root']),
      );
      expect(stderr()).toContain(`data folder ${userData} (the user data folder`);
      expect(stderr()).toContain('set ALEXANDRIA_DATA_DIR to use another');
      expect(stderr()).toContain('tenant "default"');
      // Where searches go, said at start (decision 0045; this test's environment says none).
      expect(stderr()).toContain('Upstream sources: off (ALEXANDRIA_SOURCES=none)');
      expect(stderr()).not.toContain('Invalid or revoked API key');
    } finally {
      await client.close();
    }
    expect(existsSync(join(userData, 'alexandria.db'))).toBe(true);
    if (!rootDataExisted) expect(existsSync('/data')).toBe(false);
  }, 240_000);

  it('finds the same folder again, and a key made by `alexandria keys create` in / belongs to it', async () => {
    const key = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [...cliArgs, 'keys', 'create', '--name', 'claude-desktop'],
        { cwd: '/', env: hostEnvironment() },
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout.trim())),
      );
    });
    expect(key).toMatch(/^alx_/);
    const { client, stderr } = await startFromRoot({ ALEXANDRIA_MCP_API_KEY: key });
    try {
      const listed = JSON.parse(textOf(await client.callTool({ name: 'list_projects', arguments: {} })));
      expect(listed.result.map((project: { name: string }) => project.name)).toContain('Started from root');
      expect(stderr()).toContain('tenant "default"');
    } finally {
      await client.close();
    }
  }, 240_000);
});
