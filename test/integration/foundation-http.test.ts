import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ ALEXANDRIA_API_KEY_HEADERS: 'x-scholarai-api-key' });
});
afterAll(async () => {
  await t.close();
});

describe('authentication', () => {
  it('refuses a request without a key in the OpenAI envelope, with a request id', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/projects' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: {
        message: expect.stringContaining('Missing API key'),
        type: 'authentication_error',
        code: 'unauthorized',
        param: null,
      },
    });
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('refuses a wrong key', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/projects',
      headers: withKey('alx_wrong'),
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toBe('Invalid or revoked API key');
  });

  it('accepts our header, a Bearer token and a configured alias header', async () => {
    for (const headers of [
      withKey(t.key),
      { authorization: `Bearer ${t.key}` },
      { 'x-scholarai-api-key': t.key },
    ]) {
      const response = await t.app.inject({ method: 'GET', url: '/api/projects', headers });
      expect(response.statusCode).toBe(200);
    }
  });

  it('refuses a key once it is revoked', async () => {
    const { key, record } = await t.container.services.auth.createKey('tenant-r', 'temp');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(key) })).statusCode,
    ).toBe(200);
    await t.container.services.auth.revokeKey(record.id);
    const response = await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(key) });
    expect(response.statusCode).toBe(401);
  });

  it('echoes a well-formed incoming x-request-id', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/projects',
      headers: { ...withKey(t.key), 'x-request-id': 'trace-123' },
    });
    expect(response.headers['x-request-id']).toBe('trace-123');
  });
});

describe('projects', () => {
  it('lists the implicit default project', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(t.key) });
    expect(response.json()).toEqual([expect.objectContaining({ id: 'gpt', name: 'gpt', paper_count: 0 })]);
  });

  it('creates a project from the query or a JSON body, and refuses a duplicate name', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Protein%20folding',
      headers: withKey(t.key),
    });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ name: 'Protein folding', paper_count: 0 });
    const fromBody = await t.app.inject({
      method: 'POST',
      url: '/api/create_project',
      headers: withKey(t.key),
      payload: { project_name: 'Graph learning' },
    });
    expect(fromBody.json().name).toBe('Graph learning');
    const duplicate = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Protein%20folding',
      headers: withKey(t.key),
    });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error).toMatchObject({ code: 'conflict', param: 'project_name' });
    const listed = await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(t.key) });
    expect(listed.json().map((project: { name: string }) => project.name)).toEqual([
      'gpt',
      'Protein folding',
      'Graph learning',
    ]);
  });

  it('names the parameter when project_name is missing or empty', async () => {
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/create_project',
      headers: withKey(t.key),
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_request', param: 'project_name' });
    const empty = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=%20%20',
      headers: withKey(t.key),
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.param).toBe('project_name');
    expect(empty.json().error.message).toContain('project_name');
  });

  it('gets a project with its papers and removes a paper by entry id or DOI', async () => {
    const tenantId = 'tenant-a';
    const project = await t.container.services.projects.resolve(
      tenantId,
      { projectName: 'Removals' },
      { createMissing: true },
    );
    const paper = (title: string, doi: string) => ({
      title,
      authors: ['Ada Lovelace'],
      abstract: null,
      publication_date: '2021',
      cited_by_count: 3,
      url: `https://doi.org/${doi}`,
      ss_id: null,
      doi,
      year: 2021,
    });
    const first = await t.container.services.projects.addPaper(
      tenantId,
      project,
      paper('First', '10.1000/first'),
      {
        id: 'doc123',
        tenantId,
        sha256: 'd'.repeat(64),
        blobKey: `documents/dd/${'d'.repeat(64)}.pdf`,
        byteSize: 1,
        contentType: 'application/pdf',
        filename: null,
        sourceUrl: null,
        createdAt: new Date().toISOString(),
      },
    );
    await t.container.services.projects.addPaper(tenantId, project, paper('Second', '10.1000/sec/ond'), null);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/projects/${project.id}`,
      headers: withKey(t.key),
    });
    expect(got.statusCode).toBe(200);
    expect(got.json().papers).toHaveLength(2);
    expect(got.json().papers[0]).toMatchObject({ title: 'First', pdf_id: `PROJ:${project.id}/doc123` });
    const byName = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Removals',
      headers: withKey(t.key),
    });
    expect(byName.json().id).toBe(project.id);

    // Sent as clients that set a JSON content type on every call send it: with no body.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project.id}/papers/${first.paper.entry_id}`,
      headers: { ...withKey(t.key), 'content-type': 'application/json' },
      payload: '',
    });
    expect(removed.statusCode).toBe(200);
    const byDoi = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project.id}/papers?paper_id=${encodeURIComponent('DOI:10.1000/SEC/OND')}`,
      headers: withKey(t.key),
    });
    expect(byDoi.statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/projects/${project.id}`,
      headers: withKey(t.key),
    });
    expect(after.json().papers).toEqual([]);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project.id}/papers/${first.paper.entry_id}`,
      headers: withKey(t.key),
    });
    expect(again.statusCode).toBe(404);
    const badIdentifier = await t.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project.id}/papers?paper_id=FOO:bar`,
      headers: withKey(t.key),
    });
    expect(badIdentifier.statusCode).toBe(400);
    expect(badIdentifier.json().error.param).toBe('paper_id');
  });

  it('answers 404 for an unknown project and an unknown route', async () => {
    const project = await t.app.inject({
      method: 'GET',
      url: '/api/projects/prj_nothere',
      headers: withKey(t.key),
    });
    expect(project.statusCode).toBe(404);
    expect(project.json().error.code).toBe('not_found');
    const route = await t.app.inject({ method: 'GET', url: '/api/no_such_thing', headers: withKey(t.key) });
    expect(route.statusCode).toBe(404);
    expect(route.json().error.message).toContain('/api/no_such_thing');
  });

  it("never lets one tenant see or change another tenant's projects", async () => {
    const other = await t.newKey('tenant-b');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Private',
      headers: withKey(t.key),
    });
    const id = created.json().id as string;
    const listed = await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(other) });
    expect(listed.json().map((project: { name: string }) => project.name)).toEqual(['gpt']);
    for (const request of [
      { method: 'GET' as const, url: `/api/projects/${id}` },
      { method: 'GET' as const, url: '/api/projects/Private' },
      { method: 'DELETE' as const, url: `/api/projects/${id}` },
      { method: 'DELETE' as const, url: `/api/projects/${id}/papers/ent_x` },
    ]) {
      const response = await t.app.inject({ ...request, headers: withKey(other) });
      expect(response.statusCode).toBe(404);
    }
    // The other tenant may use the same name for its own project.
    const same = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Private',
      headers: withKey(other),
    });
    expect(same.statusCode).toBe(200);
    expect(same.json().id).not.toBe(id);
    const mine = await t.app.inject({ method: 'GET', url: `/api/projects/${id}`, headers: withKey(t.key) });
    expect(mine.statusCode).toBe(200);
  });
});

describe('errors and bad input', () => {
  it('answers malformed JSON with a 400 envelope, never a stack trace', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/create_project',
      headers: { ...withKey(t.key), 'content-type': 'application/json' },
      payload: '{"project_name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(response.body).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it('answers an unsupported content type with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/create_project',
      headers: { ...withKey(t.key), 'content-type': 'application/x-unknown' },
      payload: 'x',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('unsupported_media_type');
  });
});

describe('service endpoints', () => {
  it('serves health, readiness and Prometheus metrics without a key', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ project_store: 'ok', blob_store: 'ok', paper_index: 'ok' });
    await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(t.key) });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.body).toMatch(
      /alexandria_http_requests_total\{method="GET",route="\/api\/projects",status="200"\} \d+/,
    );
    expect(metrics.body).toContain('alexandria_http_request_duration_seconds_bucket');
  });

  it('publishes a valid OpenAPI 3.1 document with the auth schemes', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-alexandria-api-key',
    });
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/projects', '/api/create_project']),
    );
    expect(document.paths['/healthz'].get.tags).toEqual(['system']);
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a key spends its burst', async () => {
    const limited = await createTestApp({
      ALEXANDRIA_RATE_LIMIT_BURST: '3',
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '6',
    });
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof limited.app.inject>> | undefined;
      for (let index = 0; index < 4; index += 1) {
        last = await limited.app.inject({
          method: 'GET',
          url: '/api/projects',
          headers: withKey(limited.key),
        });
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last?.headers['retry-after']).toBe('10');
      expect(last?.json().error.code).toBe('rate_limited');
      // Another key has its own bucket.
      const other = await limited.newKey();
      expect(
        (await limited.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(other) }))
          .statusCode,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
