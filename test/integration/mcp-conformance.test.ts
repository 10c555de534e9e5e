import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KeyProxy, startKeyProxy } from '../helpers/key-proxy.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';

// The official MCP conformance suite's server scenarios, run against a real `alexandria serve`
// process. The suite knows nothing of API keys, so a loopback proxy adds ours to every request and
// forwards everything else unchanged (Host and Origin included). The suite needs Node >= 22; the
// project runs on 20 too, so the suite runs under the Node 22 that `node scripts/node-runtime.mjs 22`
// installs into a cache folder (.ci/run does). Without it this file prints one line and skips,
// unless ALEXANDRIA_TEST_REQUIRE_ALL=1, where the missing runtime is a failure.

const root = join(import.meta.dirname, '..', '..');
const baselineFile = join(import.meta.dirname, 'mcp-conformance-baseline.yml');
const suiteEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);

/** The Node 22 binary if it is installed (the script prints its path), else undefined. */
function installedNode22(): string | undefined {
  const answer = spawnSync(
    process.execPath,
    [join(root, 'scripts', 'node-runtime.mjs'), '22', '--installed'],
    {
      encoding: 'utf8',
    },
  );
  return answer.status === 0 ? answer.stdout.trim() : undefined;
}

/** The `server:` list of the baseline file (the suite's own format: `  - name  # why`). */
function baselineScenarios(text: string): string[] {
  const names: string[] = [];
  let inServer = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line) && !line.startsWith('#')) inServer = /^server:\s*$/.test(line);
    const entry = /^\s+-\s+([a-z0-9-]+)/.exec(line);
    if (inServer && entry?.[1]) names.push(entry[1]);
  }
  return names;
}

/** Prints one line to the test log. */
function log(text: string): void {
  // biome-ignore lint/suspicious/noConsole: a skip and the suite's figures belong in the CI log.
  console.log(text);
}

const node22 = installedNode22();
const requireAll = process.env.ALEXANDRIA_TEST_REQUIRE_ALL === '1';
if (node22 === undefined && !requireAll) {
  log(
    'skipped MCP conformance suite: it needs Node 22; run `node scripts/node-runtime.mjs 22` to install it',
  );
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

describe.skipIf(node22 === undefined && !requireAll)(
  'official MCP conformance suite, server scenarios',
  () => {
    let dataDir: string;
    let resultsDir: string;
    let server: ChildProcess | undefined;
    let proxy: KeyProxy | undefined;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'alexandria-conformance-'));
      resultsDir = await mkdtemp(join(tmpdir(), 'alexandria-conformance-results-'));
      server = spawnCli(dataDir, ['serve']);
      const { url, adminKey } = await serverListening(server);
      if (adminKey === undefined) throw new Error('serve printed no admin key');
      proxy = await startKeyProxy(url, { name: 'x-alexandria-api-key', value: adminKey });
    }, 120_000);

    afterAll(async () => {
      await proxy?.close();
      server?.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      await rm(resultsDir, { recursive: true, force: true });
    });

    it('passes every scenario outside the documented baseline, dns-rebinding-protection included', async () => {
      if (node22 === undefined) {
        throw new Error(
          'Node 22 is not installed (ALEXANDRIA_TEST_REQUIRE_ALL=1): run `node scripts/node-runtime.mjs 22`',
        );
      }
      const baseline = baselineScenarios(await readFile(baselineFile, 'utf8'));
      const run = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          node22,
          [
            suiteEntry,
            'server',
            '--url',
            `${proxy?.url}/mcp`,
            '-o',
            resultsDir,
            '--expected-failures',
            baselineFile,
          ],
          { timeout: 240_000, maxBuffer: 32 * 1024 * 1024 },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
        );
      });

      // Each scenario's checks, as the suite saved them (server-<scenario>-<timestamp>/checks.json).
      const results = new Map<string, Check[]>();
      for (const folder of await readdir(resultsDir)) {
        const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(folder)?.[1];
        if (!scenario) continue;
        results.set(
          scenario,
          JSON.parse(await readFile(join(resultsDir, folder, 'checks.json'), 'utf8')) as Check[],
        );
      }
      // The suite's rule: a scenario fails on any FAILURE or WARNING check.
      const failed = [...results].filter(([, checks]) =>
        checks.some((check) => check.status === 'FAILURE' || check.status === 'WARNING'),
      );
      const failedNames = failed.map(([name]) => name);
      const unexpected = failed
        .filter(([name]) => !baseline.includes(name))
        .map(
          ([name, checks]) =>
            `${name}: ${checks.map((check) => check.errorMessage ?? check.status).join('; ')}`,
        );
      const stale = baseline.filter((name) => results.has(name) && !failedNames.includes(name));
      log(
        `MCP conformance: ${results.size} server scenarios, ${results.size - failed.length} passed, ` +
          `${failed.length} failed, all in the baseline of ${baseline.length} undeclared ones: ${unexpected.length === 0}`,
      );

      expect(results.size, run.output.slice(-2000)).toBeGreaterThanOrEqual(25);
      expect(unexpected, 'failed outside the baseline').toEqual([]);
      expect(stale, 'in the baseline but passing: remove them from mcp-conformance-baseline.yml').toEqual([]);
      expect(
        baseline.filter((name) => !results.has(name)),
        'baseline names the suite does not know',
      ).toEqual([]);
      for (const required of ['dns-rebinding-protection', 'server-initialize', 'ping', 'tools-list']) {
        expect(
          results.get(required)?.map((check) => check.status),
          required,
        ).toEqual(expect.arrayContaining(['SUCCESS']));
        expect(failedNames).not.toContain(required);
      }
      expect(results.get('dns-rebinding-protection')?.map((check) => [check.id, check.status])).toEqual([
        ['localhost-host-rebinding-rejected', 'SUCCESS'],
        ['localhost-host-valid-accepted', 'SUCCESS'],
      ]);
      // The suite's own verdict on the same baseline agrees.
      expect(run.code, run.output.slice(-2000)).toBe(0);
      expect(proxy?.forwarded).toBeGreaterThan(25);
    }, 300_000);
  },
);
