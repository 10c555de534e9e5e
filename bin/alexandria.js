#!/usr/bin/env node
// The `alexandria` command. Runs the compiled CLI from dist/ (built by `npm ci` via the prepare
// script, or `npm run build`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('alexandria: dist/ is missing; run `npm run build` (npm ci does it for you).\n');
  process.exit(1);
}
const { runCli } = await import(entry.href);
await runCli(process.argv);
