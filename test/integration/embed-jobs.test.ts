// Embed-on-add on the embedded default (no Redis): an `embed-passages` job on the in-process queue,
// run by the replica itself, one per document whoever files it.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorialPdf } from '../helpers/generated-pdfs.js';
import { multipartBody } from '../helpers/multipart.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

const editorial = await editorialPdf();
const sha256 = createHash('sha256').update(editorial).digest('hex');

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const upload = (key: string) => {
  const form = multipartBody([
    { name: 'file', filename: 'editorial.pdf', contentType: 'application/pdf', data: editorial },
  ]);
  return t.app.inject({
    method: 'POST',
    url: '/api/add_to_project?project_name=Reading',
    headers: { ...withKey(key), 'content-type': form.contentType },
    payload: form.body,
  });
};

describe('embed-passages jobs without Redis', () => {
  it('queues one job per document when two tenants file the same PDF, and runs it in this process', async () => {
    const otherKey = await t.newKey('tenant-b');
    const [first, second] = await Promise.all([upload(t.key), upload(otherKey)]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    const job = () => t.container.jobs.get('embed-passages', sha256);
    await expect.poll(async () => (await job())?.state, { timeout: 60_000, interval: 100 }).toBe('completed');
    const done = await job();
    expect(done?.starts).toBe(1);
    expect(done?.payload).toMatchObject({ sha256 });
    // Either tenant's question finds the vectors the one job stored.
    const asked = await t.app.inject({
      method: 'GET',
      url: `/api/question?pdf_id=${encodeURIComponent(second.json()[0].pdf_id)}&question=${encodeURIComponent('How strong was the T-cell response to vaccination in patients with solid tumours?')}`,
      headers: withKey(otherKey),
    });
    expect(asked.json().chunks[0].chunk).toMatch(/severely attenuated in patients with solid tumours/);
    expect(asked.json().hint).not.toMatch(/Ranked by words only/);
  }, 90_000);
});
