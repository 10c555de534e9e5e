import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * A real third-party OpenAI-compatible server for the chat adapter: llama-cpp-python's
 * `llama_cpp.server` (PyPI `llama-cpp-python[server]`, pinned 0.3.16), installed by hand into a venv
 * outside the repository because it compiles llama.cpp (minutes; not in CI). See
 * docs/decisions/0060-openai-compatible-server.md:
 *
 *   python3 -m venv ~/.cache/alexandria/llama-server-venv
 *   CMAKE_ARGS="-DGGML_NATIVE=ON" ~/.cache/alexandria/llama-server-venv/bin/pip install 'llama-cpp-python[server]==0.3.16'
 */

/** The venv's Python: `ALEXANDRIA_LLAMA_SERVER_VENV`, else `${XDG_CACHE_HOME:-~/.cache}/alexandria/llama-server-venv`. */
export function llamaServerPython(): string {
  const cacheHome = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  const venv =
    process.env.ALEXANDRIA_LLAMA_SERVER_VENV?.trim() || join(cacheHome, 'alexandria', 'llama-server-venv');
  return join(venv, 'bin', 'python');
}

/** True when the venv holds llama-cpp-python's server (lib/python3.X/site-packages/llama_cpp/server). */
export function llamaServerInstalled(): boolean {
  const lib = join(llamaServerPython(), '..', '..', 'lib');
  if (!existsSync(lib)) return false;
  return readdirSync(lib).some((version) =>
    existsSync(join(lib, version, 'site-packages', 'llama_cpp', 'server', '__main__.py')),
  );
}

export interface LlamaServer {
  /** Base URL with `/v1`, as the OpenAI client and ALEXANDRIA_CHAT_URL want it. */
  baseUrl: string;
  /** The model name the server answers to (its alias). */
  model: string;
  /** What the server printed (its log), for a failure's message. */
  log(): string;
  close(): Promise<void>;
}

export interface LlamaServerOptions {
  /** The GGUF file to serve. */
  modelPath: string;
  /** Name the server reports and accepts (`--model_alias`). */
  alias?: string;
  /** `--chat_format`; chatml-function-calling parses tool calls (the GGUF's own template does not). */
  chatFormat?: string;
  /** Context window in tokens (`--n_ctx`). */
  contextTokens?: number;
  /** CPU threads (`--n_threads`, `--n_threads_batch`); the machine is shared. */
  threads?: number;
  /** How long the model may take to load, in milliseconds. */
  startTimeoutMs?: number;
}

/** Starts `python -m llama_cpp.server` on a free loopback port and waits until it lists its model. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = await freePort();
  const alias = options.alias ?? 'local-gguf';
  const threads = String(options.threads ?? 1);
  const child: ChildProcess = spawn(
    llamaServerPython(),
    [
      '-m',
      'llama_cpp.server',
      '--model',
      options.modelPath,
      '--model_alias',
      alias,
      '--chat_format',
      options.chatFormat ?? 'chatml-function-calling',
      '--n_ctx',
      String(options.contextTokens ?? 8192),
      '--n_threads',
      threads,
      '--n_threads_batch',
      threads,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A process that dies without closing the server takes it along.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  void exited.then(() => process.off('exit', orphan));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const server: LlamaServer = {
    baseUrl,
    model: alias,
    log: () => output,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama_cpp.server exited (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/models`);
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await server.close();
  throw new Error(
    `llama_cpp.server did not start within ${options.startTimeoutMs ?? 120_000} ms:\n${output}`,
  );
}
