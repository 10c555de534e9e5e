import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { RegisteredRoute } from '../../src/http/access-policy.js';
import { RouteWithoutPolicyError } from '../../src/http/access-policy.js';
import { routeModules } from '../../src/http/routes/index.js';
import type { RouteModule } from '../../src/http/routes/route-context.js';
import { createHttpApp } from '../../src/http/server.js';
import { createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { type Spelling, samplePath, spellingsOf } from '../helpers/path-spellings.js';
import { type RawResponse, rawRequest } from '../helpers/raw-http.js';
import { createTestApp, offline, type TestApp } from '../helpers/test-app.js';

// Regression (issue "Closed doors"): the key check read the raw URL while the router decoded it, so
// `GET /%61pi/abstracts` and `GET http://x/api/fast_paper_search` answered without a key. Every
// route now declares its policy and the hook decides on the matched route. These tests enumerate
// the routes from the app itself (its onRoute record), not from a list kept by hand.

let t: TestApp;
let port: number;

beforeAll(async () => {
  // The keyless per-address budget is off here: thousands of keyless requests must each get the
  // answer of their route, not a 429 that would hide it.
  t = await createTestApp({ ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '0' });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  await t.close();
});

/** One line in the test log: what the enumeration covered. */
function log(text: string): void {
  // biome-ignore lint/suspicious/noConsole: the figures of the enumeration belong in the CI log.
  console.log(text);
}

const routesOf = (access: RegisteredRoute['access']) =>
  t.app.routeAccess.filter((route) => route.access === access);

/** A body for methods that carry one: small and valid JSON, so a route that ran would answer 2xx or 400. */
function requestFor(route: RegisteredRoute, spelling: Spelling) {
  const withBody = route.method === 'POST' || route.method === 'PUT';
  const body =
    route.url === '/mcp'
      ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      : JSON.stringify({ project_name: 'opened', messages: [{ role: 'user', content: 'hi' }] });
  return rawRequest(port, spelling.target, {
    method: route.method,
    headers: withBody
      ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      : {},
    ...(withBody ? { body } : {}),
  });
}

/**
 * Whether a keyless answer is a refusal that ran no route: 401 (the route's key check), 404 (no route
 * matched), or a 400 of the parser or router (the target is not a valid request line or url). A 400
 * from a route's own parameter checks would mean its handler was reached without a key.
 */
function refusedWithoutRunning(response: RawResponse, method: string): boolean {
  if (response.status === 401 || response.status === 404) return true;
  if (response.status !== 400) return false;
  if (method === 'HEAD') return true; // no body to tell; a route's own 400 needs a handler, which 401 precedes
  const error = (JSON.parse(response.body) as { error?: { param?: string | null; message?: string } }).error;
  return error?.param === 'url' || error?.message === 'Malformed HTTP request';
}

describe('authentication is decided on the matched route, however the path is spelled', () => {
  it('every route declares a policy, and the API and /mcp need a key', () => {
    const keyed = routesOf('key');
    expect(t.app.routeAccess.length).toBeGreaterThan(60);
    expect(keyed.length).toBeGreaterThan(40);
    for (const route of t.app.routeAccess) {
      const underApi = route.url === '/mcp' || route.url.startsWith('/api/');
      expect({ route: `${route.method} ${route.url}`, keyed: route.access === 'key' }).toEqual({
        route: `${route.method} ${route.url}`,
        keyed: underApi,
      });
    }
    expect(routesOf('signed-link').map((route) => route.url)).toEqual([
      '/files/figures/:sha256/:file',
      '/files/figures/:sha256/:file',
    ]);
    expect(new Set(routesOf('probe').map((route) => route.url))).toEqual(
      new Set(['/livez', '/healthz', '/readyz', '/metrics']),
    );
  });

  it('no keyed route answers any spelling of its path without a key', async () => {
    const limit = pLimit(8);
    const attempts = routesOf('key').flatMap((route) =>
      spellingsOf(samplePath(route.url)).map((spelling) => ({ route, spelling })),
    );
    const outcomes = await Promise.all(
      attempts.map(({ route, spelling }) =>
        limit(async () => ({ route, spelling, response: await requestFor(route, spelling) })),
      ),
    );
    const opened = outcomes
      .filter(({ route, response }) => !refusedWithoutRunning(response, route.method))
      .map(
        ({ route, spelling, response }) =>
          `${route.method} ${spelling.target} (${spelling.kind}) → ${response.status} ${response.body.slice(0, 80)}`,
      );
    const statuses = new Map<number, number>();
    for (const { response } of outcomes)
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    log(
      `${attempts.length} route × spelling combinations over ${routesOf('key').length} keyed route methods: ` +
        `${opened.length} answered without a key; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(opened).toEqual([]);
    // Each canonical spelling reached its route and was refused there, and so did the spellings a
    // router decodes to the same path (encoded letters, the absolute form).
    const refusedByRoute = (kind: string) =>
      outcomes.filter(({ spelling, response }) => spelling.kind === kind && response.status === 401).length;
    const keyed = routesOf('key').length;
    expect(refusedByRoute('canonical')).toBe(keyed);
    expect(refusedByRoute('absolute form')).toBe(keyed);
    expect(refusedByRoute('encoded a')).toBeGreaterThan(keyed / 2);
    expect(attempts.length).toBeGreaterThan(2000);
  }, 120_000);

  it('no signed-link route serves any spelling of its path without a valid signature', async () => {
    for (const route of routesOf('signed-link')) {
      for (const spelling of spellingsOf(samplePath(route.url))) {
        const response = await requestFor(route, spelling);
        expect([400, 403, 404], `${route.method} ${spelling.target} (${spelling.kind})`).toContain(
          response.status,
        );
      }
    }
  }, 60_000);

  it('an unknown path is a 404 with or without a key, and never reads the body', async () => {
    for (const target of ['/api/nothing-here', '/API/abstracts', '/apix/abstracts', '/nothing']) {
      const keyless = await rawRequest(port, target);
      const keyed = await rawRequest(port, target, { headers: { 'x-alexandria-api-key': t.key } });
      expect([keyless.status, keyed.status]).toEqual([404, 404]);
      expect(JSON.parse(keyless.body).error.code).toBe('not_found');
      const upload = await openEndedUpload(`/api/nothing-here`, 'POST');
      expect(upload.status).toBe(404);
    }
  });
});

/**
 * Sends the head of a 50 MB upload and 64 KB of its body, then nothing more: the connection stays
 * open with the body unfinished. Returns the status line's answer; a server that waits for the whole
 * body before answering never answers (then this rejects after 10 s, far above the few milliseconds
 * a refusal takes).
 */
async function openEndedUpload(
  target: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${method} ${target}: no answer while the body was unfinished`));
    }, 10_000);
    socket.on('connect', () => {
      const head = [
        `${method} ${target} HTTP/1.1`,
        `host: 127.0.0.1:${port}`,
        'content-type: application/json',
        `content-length: ${50 * 1024 * 1024}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ].join('\r\n');
      socket.write(`${head}\r\n\r\n[${' '.repeat(64 * 1024)}`);
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(match[1]) });
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('a keyless upload is refused before its body is read', () => {
  it('every keyed route with a body answers 401 while a 50 MB body is still unsent, however spelled', async () => {
    const uploads = routesOf('key').filter((route) => route.method === 'POST' || route.method === 'PUT');
    expect(uploads.length).toBeGreaterThanOrEqual(7);
    for (const route of uploads) {
      const path = samplePath(route.url);
      for (const target of [
        path,
        `/%${path.charCodeAt(1).toString(16)}${path.slice(2)}`,
        `http://x${path}`,
      ]) {
        expect(await openEndedUpload(target, route.method), `${route.method} ${target}`).toEqual({
          status: 401,
        });
      }
    }
  }, 60_000);
});

describe('a route without a policy stops the start', () => {
  async function buildWith(extra: RouteModule) {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-policy-'));
    const config = loadConfig({ ...offline, ALEXANDRIA_DATA_DIR: dataDir, ALEXANDRIA_LOG_LEVEL: 'silent' });
    const container = await createContainer(config, createLogger({ level: 'silent' }));
    try {
      const app = await createHttpApp(container, { routeModules: [...routeModules, extra] });
      await app.close();
      return 'started';
    } finally {
      await container.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  it('buildApp throws naming a route of ours that declares none', async () => {
    const forgotten: RouteModule = (app) => {
      app.get('/api/forgotten', async () => ({ open: true }));
    };
    await expect(buildWith(forgotten)).rejects.toThrow(RouteWithoutPolicyError);
    await expect(buildWith(forgotten)).rejects.toThrow(/GET \/api\/forgotten declares no access policy/);
  });

  it('buildApp throws for an unknown policy and for a plugin route registered without one', async () => {
    const misspelt: RouteModule = (app) => {
      // @ts-expect-error: a policy outside the closed set, as a careless edit could write it
      app.get('/api/misspelt', { config: { access: 'open' } }, async () => ({ open: true }));
    };
    await expect(buildWith(misspelt)).rejects.toThrow(/GET \/api\/misspelt declares no access policy/);
    const plugin: RouteModule = async (app) => {
      await app.register(async (scope) => {
        scope.post('/plugin/upload', async () => ({ open: true }));
      });
    };
    await expect(buildWith(plugin)).rejects.toThrow(/POST \/plugin\/upload declares no access policy/);
    const declared: RouteModule = async (app, { withPolicy }) => {
      await withPolicy('public', () =>
        app.register(async (scope) => {
          scope.get('/plugin/page', async () => 'page');
        }),
      );
    };
    expect(await buildWith(declared)).toBe('started');
  });
});
