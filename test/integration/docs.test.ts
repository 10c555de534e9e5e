import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTable, envExample } from '../../scripts/gen-docs.js';
import { loadConfig } from '../../src/config/load-config.js';

const root = new URL('../../', import.meta.url);

describe('documentation stays in step with the config schema', () => {
  it('.env.example lists every variable with its default (npm run docs:gen)', () => {
    expect(readFileSync(new URL('.env.example', root), 'utf8')).toBe(envExample());
  });

  it('the README configuration table is current (npm run docs:gen)', () => {
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain(configTable());
  });

  it('the defaults of .env.example load as a valid configuration', () => {
    const environment: Record<string, string> = {};
    for (const line of envExample().split('\n')) {
      const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
      if (match?.[1]) environment[match[1]] = match[2] ?? '';
    }
    expect(() => loadConfig(environment)).not.toThrow();
  });
});
