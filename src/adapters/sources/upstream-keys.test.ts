import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { recorded, replayFetch } from '../../../test/fakes/recorded-fetch.js';
import { createLogger } from '../../platform/logger.js';
import type { Cache } from '../../ports/cache.js';
import { systemClock } from '../../ports/clock.js';
import { MemoryCache } from '../memory/memory-cache.js';
import { createUpstreamSources } from './create-upstream-sources.js';

const openAlexKey = 'oa-secret-key-0123456789';
const ncbiKey = 'ncbi-secret-key-9876543210';

/** A cache that remembers every key it was asked to store or read. */
function recordingCache(): Cache & { keys: string[] } {
  const inner = new MemoryCache({ purgeIntervalMs: 0 });
  const keys: string[] = [];
  return {
    keys,
    get: (key) => {
      keys.push(key);
      return inner.get(key);
    },
    set: (key, value, ttl) => {
      keys.push(key);
      return inner.set(key, value, ttl);
    },
    delete: (key) => {
      keys.push(key);
      return inner.delete(key);
    },
    close: () => inner.close(),
  };
}

/** The real logger writing into a string, at debug level (every line a source may write). */
function capturedLogger(secrets: string[] = []) {
  let text = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination, secrets });
  return { logger, text: () => text };
}

function sources(
  fetch: ReturnType<typeof replayFetch>,
  cache: Cache,
  logger: ReturnType<typeof createLogger>,
) {
  return createUpstreamSources({
    enabled: ['openalex', 'pubmed'],
    openAlexApiKey: openAlexKey,
    ncbiApiKey: ncbiKey,
    contactEmail: 'team@example.org',
    semanticScholarRequestsPerSecond: 1,
    sourceTimeoutMs: 2000,
    breakerCooldownMs: 1000,
    baseUrls: {},
    cache,
    clock: systemClock,
    logger,
    fetch,
  }).sources;
}

describe('upstream API keys (issue: keys travelled in URLs, reached a warning log line and cache keys)', () => {
  it('sends the OpenAlex key as an Authorization header, never in the URL', async () => {
    const fetch = replayFetch([
      {
        match: /\/works\/doi:10\.1016\/j\.xgen\.2025\.100814/,
        respond: recorded('openalex', 'j.xgen.2025.100814'),
      },
    ]);
    const cache = recordingCache();
    const [openalex] = sources(fetch, cache, capturedLogger().logger);
    const paper = await openalex?.lookup?.({ type: 'DOI', value: '10.1016/j.xgen.2025.100814' });
    expect(paper?.doi).toBe('10.1016/j.xgen.2025.100814');
    expect(fetch.calls[0]).not.toContain(openAlexKey);
    expect(fetch.headers[0]?.authorization).toBe(`Bearer ${openAlexKey}`);
    expect(cache.keys.join('\n')).not.toContain(openAlexKey);
  });

  it('keeps the NCBI key (a URL parameter, the only way E-utilities takes it) out of cache keys, log lines and errors', async () => {
    // First an answer that is not PubMed XML's shape, then no answer at all (the fake fetch's error
    // quotes the whole URL, as some network errors do).
    let calls = 0;
    const fetch = replayFetch([
      {
        match: /efetch\.fcgi/,
        respond: () => {
          calls += 1;
          return { status: 503, body: 'busy', headers: {} };
        },
      },
      {
        match: /\/works\?/,
        respond: { status: 200, body: JSON.stringify({ unexpected: true }), headers: {} },
      },
    ]);
    const cache = recordingCache();
    const captured = capturedLogger();
    const [openalex, pubmed] = sources(fetch, cache, captured.logger);
    const failures: string[] = [];
    await pubmed?.lookup?.({ type: 'PMID', value: '40120586' }).catch((error: Error) => {
      failures.push(error.message);
    });
    await openalex
      ?.search?.({ text: 'prime editing', limit: 5, sort: 'relevance', peerReviewedOnly: false })
      .catch((error: Error) => failures.push(error.message));
    // A URL the fake has no recording for: its error message holds the URL with the key.
    const unrecorded = createUpstreamSources({
      enabled: ['pubmed'],
      ncbiApiKey: ncbiKey,
      semanticScholarRequestsPerSecond: 1,
      sourceTimeoutMs: 2000,
      breakerCooldownMs: 1000,
      baseUrls: { pubmed: 'http://127.0.0.1:9/eutils' },
      cache,
      clock: systemClock,
      logger: captured.logger,
      fetch: replayFetch([]),
    }).sources[0];
    await unrecorded?.lookup?.({ type: 'PMID', value: '1' }).catch((error: Error) => {
      failures.push(error.message);
      captured.logger.warn({ err: error }, 'lookup failed');
    });
    expect(calls).toBeGreaterThan(0);
    expect(fetch.calls.some((url) => url.includes(`api_key=${ncbiKey}`))).toBe(true);
    expect(failures.length).toBe(3);
    expect(captured.text()).toContain('unexpected upstream shape');
    for (const printed of [captured.text(), cache.keys.join('\n'), failures.join('\n')]) {
      expect(printed).not.toContain(ncbiKey);
      expect(printed).not.toContain(openAlexKey);
    }
  });

  it('scrubs configured secrets from any log line, however they got there', () => {
    const captured = capturedLogger([ncbiKey]);
    captured.logger.warn(
      { detail: `GET https://eutils.example/efetch?api_key=${encodeURIComponent(ncbiKey)}` },
      ncbiKey,
    );
    expect(captured.text()).toContain('[redacted]');
    expect(captured.text()).not.toContain(ncbiKey);
  });
});
