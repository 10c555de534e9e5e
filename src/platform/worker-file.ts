import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Options for a worker thread (piscina or node:worker_threads) whose module sits beside the caller.
 * Built code runs `<name>.js`; under vitest/tsx only `<name>.ts` exists, so the worker is started
 * with tsx's loader.
 */
export function workerModule(url: URL): { filename: string; execArgv: string[] } {
  const path = fileURLToPath(url);
  if (existsSync(path)) return { filename: path, execArgv: [] };
  const typescript = path.replace(/\.js$/, '.ts');
  if (existsSync(typescript)) {
    return { filename: typescript, execArgv: ['--import', tsxLoaderUrl()] };
  }
  throw new Error(`Worker module not found: ${path}`);
}

/** tsx's loader as an absolute URL, so `--import` works whatever the working directory. */
export function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}
