#!/usr/bin/env node
// Lint for the architecture rules Biome cannot express (docs/architecture.md explains them):
// - layers: every folder (and top-level file) of src/ has a row in `mayImport` below, naming the other
//   folders it may import; a folder without a row fails the check, so a new folder must be placed.
//   The arrows: http/mcp/cli -> agent -> services -> ports <- adapters; the composition root
//   (main.ts, compose/) imports everything below the surfaces and nothing imports it except the CLI
//   (which starts the process) and HTTP (the `Container` type only);
// - docs/architecture.md's "may import" table says the same as `mayImport` (so the map stays true);
// - process.env is read only by src/config;
// - no console.* in src (the CLI writes through src/cli/output.ts, everything else logs with pino);
// - no source file of src/ (tests aside) is longer than `maxLines` (decision 0056), and main.ts is at
//   most 300 lines (decision 0055).
// Test files (*.test.ts) may import anything.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const src = join(root, 'src');

/** Folder → the other folders of src/ it may import. `name (types)`: `import type` only. */
const mayImport = {
  domain: [],
  types: [],
  platform: [],
  text: [],
  ports: ['domain'],
  config: ['domain', 'platform'],
  ingest: ['domain', 'ports', 'platform', 'text'],
  // bibliography: reference lists and strings, citation markers; pure, plus its worker-thread reader.
  bibliography: ['domain', 'platform', 'text'],
  // pdf: the PDF engines behind the PdfExtractor port; bibliography for the reference-list heading.
  pdf: ['domain', 'ports', 'platform', 'text', 'bibliography'],
  adapters: ['domain', 'ports', 'platform', 'text'],
  services: ['domain', 'ports', 'platform', 'text', 'ingest', 'bibliography'],
  agent: ['domain', 'ports', 'platform', 'text', 'services'],
  'app-services': ['services', 'agent'],
  // agent: the answering factory builds the research agent from the chat profile (decision 0055).
  compose: [
    'domain',
    'ports',
    'platform',
    'text',
    'config',
    'ingest',
    'bibliography',
    'pdf',
    'adapters',
    'services',
    'agent',
  ],
  main: [
    'domain',
    'ports',
    'platform',
    'text',
    'config',
    'ingest',
    'bibliography',
    'pdf',
    'adapters',
    'services',
    'agent',
    'app-services',
    'compose',
  ],
  mcp: ['domain', 'ports', 'platform', 'config', 'services', 'agent', 'app-services'],
  http: ['domain', 'ports', 'platform', 'config', 'services', 'agent', 'app-services', 'mcp', 'main (types)'],
  cli: [
    'domain',
    'ports',
    'platform',
    'config',
    'ingest',
    'services',
    'agent',
    'app-services',
    'compose',
    'main',
    'http',
    'mcp',
  ],
};

/** Lines a source file of src/ may have (test files aside): past it, split along a seam (0056). */
const maxLines = 500;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

/** `src/http/x.ts` → `http`; `src/main.ts` → `main`. */
const layerOf = (relPath) => relPath.split('/')[0].replace(/\.(d\.)?[jt]s$/, '');

const problems = [];
const rules = new Map(
  Object.entries(mayImport).map(([layer, allowed]) => [
    layer,
    new Map(allowed.map((entry) => [entry.replace(' (types)', ''), entry.endsWith(' (types)')])),
  ]),
);
const all = files(src);
for (const file of all) {
  const rel = relative(src, file);
  const layer = layerOf(rel);
  const allowed = rules.get(layer);
  if (allowed === undefined) {
    problems.push(
      `${rel}: src/${layer} has no row in scripts/check-architecture.mjs (and docs/architecture.md)`,
    );
    continue;
  }
  const text = readFileSync(file, 'utf8');
  const isTest = rel.endsWith('.test.ts');
  const imports = [
    ...text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?\b[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g),
  ].map((match) => ({ typeOnly: match[2] !== undefined, path: match[3] }));
  for (const match of text.matchAll(
    /(?:^|\n)\s*import\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  )) {
    imports.push({ typeOnly: false, path: match[1] ?? match[2] });
  }
  for (const { typeOnly, path } of imports) {
    const target = relative(src, join(file, '..', path));
    if (target.startsWith('..')) continue;
    const targetLayer = layerOf(target);
    if (isTest || targetLayer === layer) continue;
    const typesOnly = allowed.get(targetLayer);
    if (typesOnly === undefined) {
      problems.push(`${rel}: ${layer} must not import ${targetLayer} (${path})`);
    } else if (typesOnly && !typeOnly) {
      problems.push(`${rel}: ${layer} may import only types from ${targetLayer} (${path})`);
    }
  }
  if (!rel.startsWith('config/') && !isTest && /process\.env\b/.test(text)) {
    problems.push(`${rel}: process.env is read only by src/config`);
  }
  if (!isTest && /\bconsole\.(log|info|warn|error|debug)\b/.test(text)) {
    problems.push(`${rel}: use the logger (or src/cli/output.ts), not console`);
  }
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  // The composition root only wires (decision 0055): it stays short enough to read at once.
  if (rel === 'main.ts' && lines > 300) {
    problems.push(
      `main.ts: ${lines} lines, over 300: move construction into a compose/ factory (decision 0055)`,
    );
  }
  if (!isTest && lines > maxLines) {
    problems.push(`${rel}: ${lines} lines, over ${maxLines}: split it into cohesive modules (decision 0056)`);
  }
}

// The map for newcomers states the same table: `| `folder` | … | may import |` rows, last cell a list of
// `folder` names (or "nothing").
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const documented = new Map();
for (const line of doc.split('\n')) {
  const cells = line.split('|').map((cell) => cell.trim());
  const folder = /^`([\w.-]+)\/?`$/.exec(cells[1] ?? '')?.[1];
  if (folder === undefined || cells.length < 4) continue;
  const last = cells[cells.length - 2] ?? '';
  documented.set(
    folder.replace(/\.ts$/, ''),
    [...last.matchAll(/`([\w-]+)`( \(types\))?/g)].map((m) => m[1] + (m[2] ?? '')),
  );
}
for (const [layer, allowed] of Object.entries(mayImport)) {
  const listed = documented.get(layer);
  const same = listed && [...listed].sort().join(',') === [...allowed].sort().join(',');
  if (!same) {
    problems.push(
      `docs/architecture.md: the row for ${layer} should list ${allowed.join(', ') || 'nothing'} (it lists ${listed?.join(', ') || (listed ? 'nothing' : 'no row')})`,
    );
  }
}
for (const layer of documented.keys()) {
  if (!(layer in mayImport)) problems.push(`docs/architecture.md: ${layer} has a row but no rule`);
}

if (problems.length > 0) {
  console.error(`Architecture check failed:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`Architecture check passed (${all.length} files, ${rules.size} folders).`);
