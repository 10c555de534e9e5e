import { afterEach, describe, expect, it } from 'vitest';
import { readReferences } from '../../src/bibliography/reference-reading.js';
import { emptyPaper } from '../../src/domain/paper.js';
import type { PaperIndex } from '../../src/ports/paper-index.js';
import { referencesPdf } from '../helpers/reference-pdf.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Issue: heavy requests were neither cached nor capped per tenant — `verify_references` on a
 * 9,999-entry list took 43 s on every call, four at once 124 s each (decision 0042). Here with a
 * generated 300-entry PDF: its check searches the index once or twice per entry.
 */
const pdf = referencesPdf(300);

/** Counts the index's searches and lets the test hold them (`hold()` until `release()`). */
function meterSearches(index: PaperIndex) {
  const original = index.search.bind(index);
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  const meter = {
    count: 0,
    delayMs: 0,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release() {
      gate = null;
      open();
    },
  };
  index.search = async (query) => {
    meter.count += 1;
    if (gate) await gate;
    if (meter.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, meter.delayMs));
    return original(query);
  };
  return meter;
}

function verifyPdf(t: TestApp, key: string, bytes: Uint8Array = pdf) {
  return t.app.inject({
    method: 'POST',
    url: '/api/verify_references',
    headers: { ...withKey(key), 'content-type': 'application/pdf' },
    payload: Buffer.from(bytes),
  });
}

/** Resolves once `condition` holds (checked every 10 ms), or fails after `ms`. */
async function until(condition: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('heavy requests have a price (decision 0042)', () => {
  it('answers a second identical verify_references from the cache, for any tenant: no index search', async () => {
    t = await createTestApp();
    const meter = meterSearches(t.container.stores.index);
    const first = await verifyPdf(t, t.key);
    expect(first.statusCode).toBe(200);
    const counts = first.json().counts as Record<string, number>;
    expect(counts.not_found).toBeGreaterThan(250);
    expect(meter.count).toBeGreaterThan(250);
    const searched = meter.count;
    const again = await verifyPdf(t, t.key);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    // The same bytes from another tenant: the check holds nothing of the tenant who asked first.
    const other = await verifyPdf(t, await t.newKey('tenant-b'));
    expect(other.json()).toEqual(first.json());
    expect(meter.count).toBe(searched);
    // A bibliography is keyed by its text and format.
    const bibliography =
      '@article{a, title={Neural parsing graph corpus retrieval}, author={Smith, J}, year={2001}}';
    const check = (text: string) =>
      t?.app.inject({
        method: 'POST',
        url: '/api/verify_references',
        headers: withKey(t.key),
        payload: { text },
      });
    expect((await check(bibliography))?.statusCode).toBe(200);
    const afterFirst = meter.count;
    expect(afterFirst).toBeGreaterThan(searched);
    expect((await check(bibliography))?.statusCode).toBe(200);
    expect(meter.count).toBe(afterFirst);
    expect((await check(`${bibliography}\n`))?.statusCode).toBe(200);
    expect(meter.count).toBeGreaterThan(afterFirst);
  }, 120_000);

  it('keeps citation contexts per tenant: another tenant never gets the cached sentences of the first', async () => {
    t = await createTestApp();
    const added = await uploadPdf(t, t.key, 'many-references.pdf', pdf);
    expect(added.statusCode).toBe(200);
    const pdfId = added.json()[0].pdf_id as string;
    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/references?pdf_id=${encodeURIComponent(pdfId)}`,
      headers: withKey(t.key),
    });
    const first = listed.json().references[0] as { title: string; year: number };
    // The work entry [1] cites, as a record of the index (the first sentence of the text cites it).
    await t.container.stores.index.upsert([
      {
        ...emptyPaper(first.title),
        authors: ['J. Smith', 'K. Jones'],
        year: first.year,
        doi: '10.1000/first-cited',
        identifiers: { doi: '10.1000/first-cited' },
      },
    ]);
    const ask = async (key: string) =>
      (
        await t?.app.inject({
          method: 'GET',
          url: '/api/citation_contexts?paper_id=DOI:10.1000/first-cited',
          headers: withKey(key),
        })
      )?.json() as { contexts: Array<{ pdf_id: string; sentence: string }> };
    const mine = await ask(t.key);
    expect(mine.contexts.map((context) => context.sentence)).toEqual([
      'We build on prior work [1] and [2], see also [3].',
    ]);
    expect((await ask(t.key)).contexts).toEqual(mine.contexts);
    expect((await ask(await t.newKey('tenant-b'))).contexts).toEqual([]);
  }, 120_000);

  it('refuses a tenant past its share with 429 and Retry-After, while another tenant is served', async () => {
    t = await createTestApp({ ALEXANDRIA_HEAVY_PER_TENANT: '1', ALEXANDRIA_HEAVY_SLOTS: '2' });
    const meter = meterSearches(t.container.stores.index);
    meter.hold();
    const running = verifyPdf(t, t.key);
    await until(() => meter.count > 0);
    const refused = await verifyPdf(t, t.key);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json().error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(refused.json().error.message).toMatch(/ALEXANDRIA_HEAVY_PER_TENANT/);
    const other = t.app.inject({
      method: 'POST',
      url: '/api/verify_references',
      headers: withKey(await t.newKey('tenant-b')),
      payload: { text: '@article{b, title={Sparse dense embedding evaluation benchmark}, year={2003}}' },
    });
    meter.release();
    expect((await other).statusCode).toBe(200);
    expect((await running).statusCode).toBe(200);
  }, 120_000);

  it('answers 503 with Retry-After when the service is busy past the queue time', async () => {
    t = await createTestApp({ ALEXANDRIA_HEAVY_SLOTS: '1', ALEXANDRIA_HEAVY_QUEUE_MS: '200' });
    const meter = meterSearches(t.container.stores.index);
    meter.hold();
    const running = verifyPdf(t, t.key);
    await until(() => meter.count > 0);
    const busy = await t.app.inject({
      method: 'GET',
      url: '/api/citation_contexts?paper_id=DOI:10.1000/x',
      headers: withKey(await t.newKey('tenant-b')),
    });
    expect(busy.statusCode).toBe(503);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(busy.json().error).toMatchObject({ code: 'overloaded', type: 'server_error', param: null });
    meter.release();
    expect((await running).statusCode).toBe(200);
  }, 120_000);

  it('stops a check past its time budget with 504, then goes on where it stopped', async () => {
    // The works the list cites are in the index: an entry linked before the stop needs no search after it.
    const cited = async (app: TestApp) => {
      const parsed = await app.container.pdf.extract(new Uint8Array(pdf), { images: false });
      const entries = readReferences(parsed.chunks).list?.entries ?? [];
      await app.container.stores.index.upsert(
        entries.flatMap((entry) =>
          entry.title
            ? [{ ...emptyPaper(entry.title), authors: ['J. Smith', 'K. Jones'], year: entry.year }]
            : [],
        ),
      );
    };
    t = await createTestApp({ ALEXANDRIA_HEAVY_TIMEOUT_MS: '1500' });
    await cited(t);
    const meter = meterSearches(t.container.stores.index);
    meter.delayMs = 20;
    const stopped = await verifyPdf(t, t.key);
    expect(stopped.statusCode).toBe(504);
    expect(stopped.json().error.code).toBe('timeout');
    expect(stopped.json().error.message).toMatch(/time budget of 1.5 s \(ALEXANDRIA_HEAVY_TIMEOUT_MS\)/);
    expect(stopped.json().error.message).toMatch(/asking again goes on/);
    // Stopped, not left running: no search starts once the answer is out.
    const atStop = meter.count;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(meter.count).toBeLessThanOrEqual(atStop + 1);
    expect(atStop).toBeGreaterThan(0);
    expect(atStop).toBeLessThan(290);
    // Asked again at full speed, the check searches only for what the first did not link.
    meter.delayMs = 0;
    const before = meter.count;
    const done = await verifyPdf(t, t.key);
    expect(done.statusCode).toBe(200);
    const fresh = await createTestApp();
    try {
      await cited(fresh);
      const whole = meterSearches(fresh.container.stores.index);
      expect((await verifyPdf(fresh, fresh.key)).json().counts).toEqual(done.json().counts);
      expect(done.json().counts.exists).toBeGreaterThan(250);
      expect(meter.count - before).toBeLessThanOrEqual(whole.count - (atStop - 1));
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it('documents 429, 503 and 504 with Retry-After on the heavy operations in /openapi.json', async () => {
    t = await createTestApp();
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >;
    };
    const heavy = [
      ['/api/verify_references', 'post'],
      ['/api/references', 'get'],
      ['/api/citation_contexts', 'get'],
      ['/api/project_graph', 'get'],
      ['/api/analyze_project', 'get'],
    ] as const;
    for (const [path, method] of heavy) {
      const responses = document.paths[path]?.[method]?.responses ?? {};
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['429', '503', '504']));
      expect(responses['429']?.headers).toHaveProperty('Retry-After');
      expect(responses['503']?.headers).toHaveProperty('Retry-After');
    }
    // Uploads take a place of the tenant's parses.
    expect(document.paths['/api/add_to_project']?.post?.responses['429']?.headers).toHaveProperty(
      'Retry-After',
    );
  });
});
