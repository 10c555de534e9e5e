import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeZotero, startFakeZotero } from '../fakes/fake-zotero.js';
import { needsSchemathesis, schemathesisFolder } from '../helpers/requirements.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';

/**
 * The contract is exact (issue 34, decision 0052): schemathesis, an independent property-based
 * tester, reads the /openapi.json of a real `alexandria serve` on loopback and sends what the
 * document allows and what it forbids to every operation. Every answer must carry a status and a
 * content type the operation documents, with a body and headers its schemas admit; nothing is a
 * 500; and a request the document forbids is refused. Upstream sources are off: nothing leaves
 * loopback. Reproduce by hand with the command the failure message prints.
 *
 * SCHEMATHESIS_SEED and SCHEMATHESIS_EXAMPLES (per operation) change the run, e.g.
 * `SCHEMATHESIS_EXAMPLES=200 npx vitest run test/integration/openapi-schemathesis.test.ts`.
 */
const seed = Number(process.env.SCHEMATHESIS_SEED ?? 20_261_129);
const examples = Number(process.env.SCHEMATHESIS_EXAMPLES ?? 20);

/** The checks that must find nothing. */
export const contractChecks = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
  'negative_data_rejection',
];

/**
 * A refusal of a request the document forbids may come from Node's HTTP parser before any route
 * runs: 414 for a url longer than it reads, 431 for headers. Both are documented on every operation.
 */
const configuration = `
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 414, 415, 422, 428, 429, 431]
`;

interface Report {
  complete: boolean;
  test_cases: { generated: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  errors: Array<{ title?: string; operation?: string; message?: string } & Record<string, unknown>>;
}

describe.skipIf(needsSchemathesis())('schemathesis against a running server', () => {
  let dataDir: string;
  let server: ChildProcess;
  let url: string;
  let key: string;
  let zotero: FakeZotero;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'alexandria-schemathesis-'));
    // save-citation calls Zotero when credentials come with the request: a loopback fake stands in.
    zotero = await startFakeZotero({ userId: '1234567', apiKey: 'SchemathesisZoteroKey0123' });
    server = spawnCli(dataDir, ['serve'], {
      ALEXANDRIA_SOURCES: 'none',
      ALEXANDRIA_ZOTERO_API_URL: zotero.baseUrl,
      // The run sends a few thousand requests in a minute: the per-key limit is not what it tests.
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
      ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
    });
    const listening = await serverListening(server);
    url = listening.url;
    if (!listening.adminKey) throw new Error('serve printed no admin key');
    key = listening.adminKey;
  }, 60_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await zotero?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('finds no undocumented status, content type, body or header, no 500, no accepted violation', async () => {
    const reports = join(dataDir, 'schemathesis-report');
    const configFile = join(dataDir, 'schemathesis.toml');
    await writeFile(configFile, configuration);
    const args = [
      '-m',
      'schemathesis.cli',
      '--config-file',
      configFile,
      'run',
      `${url}/openapi.json`,
      '--header',
      `x-alexandria-api-key: ${key}`,
      '--checks',
      contractChecks.join(','),
      '--max-examples',
      String(examples),
      '--seed',
      String(seed),
      // One worker: the machine is shared, and CPython 3.11 can fail compiling in parallel threads.
      '--workers',
      '1',
      '--request-timeout',
      '30',
      '--report',
      'json',
      '--report-dir',
      reports,
    ];
    const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('python3', args, {
        // Its example database and caches go to the data folder, not the checkout.
        cwd: dataDir,
        env: { ...process.env, PYTHONPATH: schemathesisFolder(), NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (data: Buffer) => {
        output += data.toString();
      });
      child.stderr.on('data', (data: Buffer) => {
        output += data.toString();
      });
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, output }));
    });
    const [file] = (await readdir(reports)).filter((name) => name.endsWith('.json'));
    if (!file)
      throw new Error(`schemathesis wrote no report (exit ${run.code}):\n${run.output.slice(-4000)}`);
    const report = JSON.parse(await readFile(join(reports, file), 'utf8')) as Report;
    const findings = [
      ...report.failures.map(
        (failure) => `${failure.code} ${failure.title} (${failure.count}): ${failure.operations.join(', ')}`,
      ),
      ...report.errors.map((error) => `error: ${JSON.stringify(error).slice(0, 300)}`),
    ];
    const details = `PYTHONPATH=${schemathesisFolder()} python3 ${args.join(' ')}\n${findings.join('\n')}\n${run.output.slice(-6000)}`;
    expect(report.complete, details).toBe(true);
    expect(report.test_cases.generated, details).toBeGreaterThan(500);
    expect(findings, details).toEqual([]);
    expect(run.code, details).toBe(0);
  }, 300_000);
});
