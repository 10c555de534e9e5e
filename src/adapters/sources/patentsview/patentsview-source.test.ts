import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { PatentsViewSource } from './patentsview-source.js';

// Hand-written from the published API reference: no recording of this API exists (see __fixtures__/README.md).
const fixture = readFileSync(join(import.meta.dirname, '__fixtures__', 'patent-search.json'), 'utf8');

describe('PatentsViewSource (fixture written from the published docs)', () => {
  it('builds the PatentSearch query and maps patents to records', async () => {
    const fetch = replayFetch([{ match: /\/api\/v1\/patent\//, respond: { status: 200, body: fixture } }]);
    const client = new UpstreamClient({ source: 'patentsview', fetch, headers: { 'x-api-key': 'pv-key' } });
    const patents = new PatentsViewSource({ client });
    const page = await patents.searchPatents({
      text: 'display presentation times',
      sort: 'cited_by_count',
      peerReviewedOnly: true,
      startYear: 2000,
      endYear: 2020,
      limit: 10,
    });
    expect(page.total).toBe(2);
    expect(page.papers[0]).toMatchObject({
      title: 'Controlling display performance with target presentation times',
      patent_number: 'US10510317',
      authors: ['Arthur L. Spence', 'Jeremy T. Sandmel', 'David M. Chan'],
      assignees: ['Apple Inc.'],
      publication_date: '2019-12-17',
      year: 2019,
      type: 'patent',
      url: 'https://patents.google.com/patent/US10510317',
    });
    expect(page.papers[1]?.assignees).toEqual(['Telefonaktiebolaget LM Ericsson (publ)']);
    const called = new URL(fetch.calls[0] ?? '');
    expect(JSON.parse(called.searchParams.get('q') ?? '')).toEqual({
      _and: [
        {
          _or: [
            { _text_any: { patent_title: 'display presentation times' } },
            { _text_any: { patent_abstract: 'display presentation times' } },
          ],
        },
        { _gte: { patent_date: '2000-01-01' } },
        { _lte: { patent_date: '2020-12-31' } },
      ],
    });
    expect(JSON.parse(called.searchParams.get('s') ?? '')).toEqual([
      { patent_num_times_cited_by_us_patents: 'desc' },
    ]);
    expect(JSON.parse(called.searchParams.get('o') ?? '')).toEqual({ size: 10 });
    expect(fetch.headers[0]?.['x-api-key']).toBe('pv-key');
  });
});
