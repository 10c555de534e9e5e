// Regenerates .env.example and the configuration table of README.md from the config schema
// (src/config/sections). Run `npm run docs:gen` after adding a variable; a test fails when stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { listVariables } from '../src/config/load-config.js';

const root = new URL('..', import.meta.url).pathname;

export function envExample(): string {
  const lines = [
    '# Alexandria configuration. Every variable is optional; the value shown is the default.',
    '# Generated from src/config/sections by `npm run docs:gen`.',
  ];
  let section = '';
  for (const { section: name, variable } of listVariables()) {
    if (name !== section) {
      section = name;
      lines.push('', `# --- ${name} ---`);
    }
    lines.push(`# ${variable.description}`);
    lines.push(
      `${variable.defaultText === undefined ? '# ' : ''}${variable.name}=${variable.defaultText ?? ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function configTable(): string {
  const rows = listVariables().map(
    ({ variable }) =>
      `| \`${variable.name}\` | ${variable.defaultText === undefined || variable.defaultText === '' ? '—' : `\`${variable.defaultText}\``} | ${variable.description.replaceAll('|', '\\|')} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export function readmeWithTable(readme: string): string {
  return readme.replace(
    /<!-- config:start -->[\s\S]*<!-- config:end -->/,
    `<!-- config:start -->\n${configTable()}\n<!-- config:end -->`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(`${root}.env.example`, envExample());
  const readmePath = `${root}README.md`;
  writeFileSync(readmePath, readmeWithTable(readFileSync(readmePath, 'utf8')));
  console.log('Wrote .env.example and the README configuration table.');
}
