import { describe, expect, it } from 'vitest';
import { type Environment, loadConfig } from '../config/load-config.js';
import { mcpOriginAllowed } from './mcp-origin.js';

const configWith = (env: Environment = {}) => loadConfig({ ALEXANDRIA_DATA_DIR: '/tmp/unused', ...env });

describe('mcpOriginAllowed', () => {
  it('allows loopback origins on any port and scheme, by default', () => {
    const config = configWith();
    for (const origin of [
      'http://localhost',
      'http://localhost:6274',
      'https://localhost:8443',
      'http://127.0.0.1:8080',
      'http://127.8.9.10',
      'http://[::1]:3000',
      'http://[::ffff:127.0.0.1]:3000',
    ]) {
      expect(mcpOriginAllowed(origin, config), origin).toBe(true);
    }
  });

  it('refuses every other origin by default, the DNS-rebinding one first', () => {
    const config = configWith();
    for (const origin of [
      'http://evil.example.com',
      'http://localhost.evil.example.com',
      'http://127.0.0.1.evil.example.com',
      'http://10.0.0.7:8080',
      'http://[::2]',
      'null',
      'file://',
      'chrome-extension://abcdef',
      'not an origin',
      '',
    ]) {
      expect(mcpOriginAllowed(origin, config), origin).toBe(false);
    }
  });

  it("allows ALEXANDRIA_PUBLIC_URL's origin and the configured ones, nothing near them", () => {
    const config = configWith({
      ALEXANDRIA_PUBLIC_URL: 'https://papers.example.org/alexandria',
      ALEXANDRIA_MCP_ALLOWED_ORIGINS: 'https://App.Example.org, http://tools.example.net:8080',
    });
    expect(mcpOriginAllowed('https://papers.example.org', config)).toBe(true);
    expect(mcpOriginAllowed('https://papers.example.org:443', config)).toBe(true);
    expect(mcpOriginAllowed('https://app.example.org', config)).toBe(true);
    expect(mcpOriginAllowed('http://tools.example.net:8080', config)).toBe(true);
    expect(mcpOriginAllowed('http://papers.example.org', config)).toBe(false);
    expect(mcpOriginAllowed('https://papers.example.org:8443', config)).toBe(false);
    expect(mcpOriginAllowed('http://tools.example.net', config)).toBe(false);
    expect(mcpOriginAllowed('https://evil.example.com', config)).toBe(false);
  });

  it('never trusts the origin a request names as its own Host (that is what a rebinding page sends)', () => {
    // The request-derived public URL (no ALEXANDRIA_PUBLIC_URL) is not consulted at all: the function
    // has no request, so a page served as evil.example.com and rebound to us stays refused.
    expect(mcpOriginAllowed('http://evil.example.com:8080', configWith({ ALEXANDRIA_PORT: '8080' }))).toBe(
      false,
    );
  });

  it('* allows every origin (turns the check off)', () => {
    expect(
      mcpOriginAllowed('http://evil.example.com', configWith({ ALEXANDRIA_MCP_ALLOWED_ORIGINS: '*' })),
    ).toBe(true);
  });

  it('refuses a configured entry that is not an origin, at start', () => {
    for (const entry of [
      'https://app.example.org/path',
      'app.example.org',
      'null',
      'ftp://files.example.org',
    ]) {
      expect(() => configWith({ ALEXANDRIA_MCP_ALLOWED_ORIGINS: entry }), entry).toThrow(
        /ALEXANDRIA_MCP_ALLOWED_ORIGINS/,
      );
    }
  });
});
