import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Error messages that echoed huge input (issue 13): a path segment over the router's parameter
 * limit, a url that is not valid percent-encoding and an unknown route came back with the whole
 * url in the message (70 KB). Every message now keeps at most 200 characters of an echoed value.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function errorOf(method: 'GET' | 'DELETE', url: string) {
  const response = await t.app.inject({ method, url, headers: withKey(t.key) });
  const body = response.json() as { error: { message: string; param: string | null; code: string } };
  return { status: response.statusCode, length: response.body.length, error: body.error };
}

describe('error messages that echo huge input', () => {
  const huge = 'p'.repeat(70_000);

  it('a path segment over the router limit: a short 400 naming the url, with the start of the input', async () => {
    const { status, length, error } = await errorOf('GET', `/api/projects/${huge}`);
    expect(status).toBe(400);
    expect(error.param).toBe('url');
    expect(length).toBeLessThan(600);
    expect(error.message).toContain(`/api/projects/${'p'.repeat(100)}`);
    expect(error.message).toMatch(/p…/);
  });

  it('a url that is not valid percent-encoding, however long', async () => {
    const { status, length, error } = await errorOf('DELETE', `/api/projects/%zz${huge}`);
    expect(status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(length).toBeLessThan(600);
    expect(error.message).toMatch(/^Malformed request: .*%zzp+…/);
  });

  it('an unknown route, however long', async () => {
    const { status, length, error } = await errorOf('GET', `/api/nothing/${huge}`);
    expect(status).toBe(404);
    expect(length).toBeLessThan(600);
    expect(error.message).toMatch(/^No route GET \/api\/nothing\/p+…$/);
  });
});
