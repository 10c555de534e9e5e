import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { chromiumPath } from './requirements.js';

/** Debian's chromium (`apt-get install -y chromium`; .ci/run installs it); check it with `needsChromium`. */
export { chromiumPath };

/** Where screenshots go: test-results/ (gitignored), kept as CI artifacts. */
export const artifactsDir = join(import.meta.dirname, '..', '..', 'test-results', 'web-ui');

const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Builds the web UI from web/ into a fresh folder, so the test runs today's sources. */
export async function buildWebUi(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'alexandria-web-'));
  await build({
    configFile: join(import.meta.dirname, '..', '..', 'web', 'vite.config.ts'),
    build: { outDir, emptyOutDir: true },
    logLevel: 'error',
  });
  return outDir;
}

/** A headless chromium with a fresh profile, that may only talk to loopback. */
export async function launchBrowser(): Promise<BrowserContext> {
  await mkdir(artifactsDir, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), 'alexandria-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: flags,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  // Nothing but the service under test: any other host is refused.
  await context.route(/^(?!http:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort('blockedbyclient'));
  return context;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
