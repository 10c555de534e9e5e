#!/usr/bin/env node
// Lint for the architecture rules Biome cannot express:
// - layers: domain imports nothing of ours but domain; ports import only domain/ports; services never
//   import http, mcp, cli, adapters, main or the agent (the agent uses services, not the reverse);
//   text utilities import nothing above domain; adapters never import services, http, mcp, cli or main;
// - process.env is read only by src/config;
// - no console.* in src (the CLI writes through src/cli/output.ts, everything else logs with pino).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const src = join(root, 'src');

const forbidden = {
  domain: ['ports', 'services', 'adapters', 'http', 'mcp', 'cli', 'main', 'agent', 'pdf', 'platform'],
  ports: ['services', 'adapters', 'http', 'mcp', 'cli', 'main'],
  services: ['adapters', 'http', 'mcp', 'cli', 'main', 'agent', 'app-services'],
  agent: ['adapters', 'http', 'mcp', 'cli', 'main', 'app-services'],
  // Text utilities (sentences, keywords, quoting, prompt fences) sit below services and the agent.
  text: ['ports', 'services', 'adapters', 'http', 'mcp', 'cli', 'main', 'agent', 'pdf', 'config'],
  config: ['services', 'adapters', 'http', 'mcp', 'cli', 'main', 'agent'],
  adapters: ['services', 'http', 'mcp', 'cli', 'main'],
  http: ['adapters', 'cli'],
  mcp: ['adapters', 'cli'],
  pdf: ['services', 'http', 'mcp', 'cli', 'main'],
};

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const problems = [];
for (const file of files(src)) {
  const rel = relative(src, file);
  const layer = rel.split('/')[0].replace(/\.ts$/, '');
  const text = readFileSync(file, 'utf8');
  const isTest = rel.endsWith('.test.ts');
  for (const match of text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = relative(src, join(file, '..', match[1]));
    if (target.startsWith('..')) continue;
    const targetLayer = target.split('/')[0].replace(/\.js$/, '');
    if (!isTest && (forbidden[layer] ?? []).includes(targetLayer)) {
      problems.push(`${rel}: the ${layer} layer must not import ${targetLayer} (${match[1]})`);
    }
  }
  if (!rel.startsWith('config/') && !isTest && /process\.env\b/.test(text)) {
    problems.push(`${rel}: process.env is read only by src/config`);
  }
  if (!isTest && /\bconsole\.(log|info|warn|error|debug)\b/.test(text)) {
    problems.push(`${rel}: use the logger (or src/cli/output.ts), not console`);
  }
}
if (problems.length > 0) {
  console.error(`Architecture check failed:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`Architecture check passed (${files(src).length} files).`);
