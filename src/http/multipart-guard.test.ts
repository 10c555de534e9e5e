import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundaryOf, malformedMultipartError } from './multipart-guard.js';

/**
 * Pins what busboy throws for malformed forms, as the installed version words it: a bare app (no
 * guard) reads the parts and reports whether `malformedMultipartError` recognised the failure.
 */
const app = Fastify();

beforeAll(async () => {
  await app.register(multipart);
  app.post('/read', async (request) => {
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') await part.toBuffer();
      }
      return { read: true };
    } catch (error) {
      const mapped = malformedMultipartError(error);
      return { raw: (error as Error).message, param: mapped?.param ?? null, status: mapped?.status ?? null };
    }
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

const post = async (contentType: string, payload: string) =>
  (
    await app.inject({ method: 'POST', url: '/read', headers: { 'content-type': contentType }, payload })
  ).json();

describe('malformedMultipartError', () => {
  it('recognises each way busboy refuses a malformed form', async () => {
    const part = '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n';
    const cases = [
      ['multipart/form-data', 'anything', /Boundary not found/],
      ['multipart/form-data; boundary=XX', `${part}%PDF-1.4 cut here`, /unexpected end of multipart data/i],
      ['multipart/form-data; boundary=XX', '--XX\r\nContent-Disp', /unexpected end of multipart data/i],
    ] as const;
    for (const [contentType, payload, message] of cases) {
      const answer = await post(contentType, payload);
      expect(answer.raw).toMatch(message);
      expect(answer).toMatchObject({ param: 'file', status: 400 });
    }
  });

  it('leaves other errors alone', () => {
    expect(malformedMultipartError(new Error('database is locked'))).toBeUndefined();
    expect(malformedMultipartError('Unexpected end of multipart data')).toBeUndefined();
  });
});

describe('boundaryOf', () => {
  it('reads plain and quoted boundaries, and nothing when absent', () => {
    expect(boundaryOf('multipart/form-data; boundary=abc')).toBe('abc');
    expect(boundaryOf('multipart/form-data; charset=utf-8; BOUNDARY="a b"')).toBe('a b');
    expect(boundaryOf('multipart/form-data; boundary=')).toBe('');
    expect(boundaryOf('multipart/form-data')).toBeUndefined();
  });
});
