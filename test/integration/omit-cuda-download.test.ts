// Issue "Anyone can clone, test, run and operate it", part 3: `npm install -g alexandria-0.1.0.tgz`
// failed on a machine that reaches only the npm registry, because onnxruntime-node's postinstall
// downloads its CUDA libraries from NuGet (a global install does not consult our allowScripts).
// The package's preinstall (scripts/omit-cuda-download.mjs) now leaves stand-ins first. This runs
// onnxruntime-node's real postinstall as npm runs it for a dependency, with its HTTPS sent to a
// loopback proxy that records where it wanted to go and refuses: without the preinstall it asks for
// api.nuget.org and fails the install; after it, it asks for nothing and succeeds; asked for CUDA
// explicitly, it still downloads. docs/decisions/0044-install-anywhere.md
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const onnx = join(repo, 'node_modules', 'onnxruntime-node');
const cudaFiles = [
  'libonnxruntime_providers_cuda.so',
  'libonnxruntime_providers_shared.so',
  'libonnxruntime_providers_tensorrt.so',
];
let proxy: Server;
let proxyUrl: string;
let tunnels: string[] = [];
let root = '';

beforeAll(async () => {
  proxy = createServer((_request, response) => response.writeHead(403).end());
  // HTTPS through a proxy starts with CONNECT host:port: recorded, then refused.
  proxy.on('connect', (request, socket) => {
    tunnels.push(request.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  if (root) await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  tunnels = [];
  if (root) await rm(root, { recursive: true, force: true });
  // A package folder as a global install lays it out: alexandria's scripts beside its
  // node_modules/onnxruntime-node (its scripts and manifest; its own dependencies found through
  // NODE_PATH, which require() honours), before any CUDA file is there.
  root = await mkdtemp(join(tmpdir(), 'alexandria-cuda-'));
  await mkdir(join(root, 'scripts'));
  await cp(join(repo, 'scripts', 'omit-cuda-download.mjs'), join(root, 'scripts', 'omit-cuda-download.mjs'));
  const copy = join(root, 'node_modules', 'onnxruntime-node');
  await cp(join(onnx, 'package.json'), join(copy, 'package.json'));
  await cp(join(onnx, 'script'), join(copy, 'script'), { recursive: true });
  await mkdir(join(copy, 'bin', 'napi-v6', process.platform, process.arch), { recursive: true });
});

/** Runs `node <script>` in `cwd` with the environment npm gives a dependency's install script. */
function runAsNpm(cwd: string, script: string, env: Record<string, string> = {}) {
  const environment: Record<string, string | undefined> = {
    ...process.env,
    // What npm sets for a dependency of a global install (not the project being installed).
    npm_config_local_prefix: join(tmpdir(), 'elsewhere'),
    npm_package_json: join(cwd, 'package.json'),
    NODE_PATH: join(repo, 'node_modules'),
    GLOBAL_AGENT_HTTPS_PROXY: proxyUrl,
    GLOBAL_AGENT_HTTP_PROXY: proxyUrl,
    ...env,
  };
  for (const name of [
    'ONNXRUNTIME_NODE_INSTALL',
    'ONNXRUNTIME_NODE_INSTALL_CUDA',
    'npm_config_onnxruntime_node_install',
    'npm_config_onnxruntime_node_install_cuda',
    'GLOBAL_AGENT_NO_PROXY',
  ]) {
    if (env[name] === undefined) delete environment[name];
  }
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [script],
      { cwd, env: environment, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

const onnxFolder = () => join(root, 'node_modules', 'onnxruntime-node');
const cudaFolder = () => join(onnxFolder(), 'bin', 'napi-v6', process.platform, process.arch);

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('onnxruntime-node postinstall', () => {
  it('without the preinstall, goes to NuGet for CUDA and fails the install', async () => {
    const postinstall = await runAsNpm(onnxFolder(), 'script/install.js');
    expect(tunnels).toEqual(['api.nuget.org:443']);
    expect(postinstall.code, postinstall.output).not.toBe(0);
  });

  it('after the preinstall, finds the stand-ins, reaches for nothing and succeeds', async () => {
    const preinstall = await runAsNpm(root, 'scripts/omit-cuda-download.mjs');
    expect(preinstall.code, preinstall.output).toBe(0);
    expect(preinstall.output).toContain('onnxruntime-node will not download 3 CUDA files');
    for (const name of cudaFiles) {
      expect(await readFile(join(cudaFolder(), name), 'utf8')).toMatch(/^Stand-in written by alexandria/);
    }
    const postinstall = await runAsNpm(onnxFolder(), 'script/install.js');
    expect(postinstall.code, postinstall.output).toBe(0);
    expect(tunnels).toEqual([]);
    // Run again (npm rebuild, a second install): nothing to write, still nothing fetched.
    expect((await runAsNpm(root, 'scripts/omit-cuda-download.mjs')).output).toBe('');
  });

  it('asked for CUDA (ONNXRUNTIME_NODE_INSTALL=cuda12), writes no stand-ins and lets it download', async () => {
    const asked = { ONNXRUNTIME_NODE_INSTALL: 'cuda12' };
    const preinstall = await runAsNpm(root, 'scripts/omit-cuda-download.mjs', asked);
    expect(preinstall.code, preinstall.output).toBe(0);
    const postinstall = await runAsNpm(onnxFolder(), 'script/install.js', asked);
    expect(tunnels).toEqual(['api.nuget.org:443']);
    expect(postinstall.code).not.toBe(0);
  });
});
