import { describe, expect, it } from 'vitest';
import { recorded, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { UnpaywallSource } from './unpaywall-source.js';

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({ source: 'unpaywall', fetch, retry: { retries: 0 } });
  return { fetch, unpaywall: new UnpaywallSource({ client, email: 'team@example.org' }) };
}

describe('UnpaywallSource (recorded responses)', () => {
  it('finds the best open-access PDF of a DOI', async () => {
    const { fetch, unpaywall } = source([
      { match: /\/v2\/10\.1073\/pnas\.1414271111/, respond: recorded('unpaywall', 'pnas.1414271111') },
    ]);
    const paper = await unpaywall.lookup({ type: 'DOI', value: '10.1073/pnas.1414271111' });
    expect(paper).toMatchObject({
      title:
        'Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen cross-linking',
      doi: '10.1073/pnas.1414271111',
      pdf_url: 'https://www.pnas.org/content/pnas/111/45/E4832.full.pdf',
      pdf_id: 'PDF_URL:https://www.pnas.org/content/pnas/111/45/E4832.full.pdf',
      year: 2014,
      type: 'journal-article',
      source: 'unpaywall',
    });
    expect(new URL(fetch.calls[0] ?? '').searchParams.get('email')).toBe('team@example.org');
  });

  it('reports no PDF for a gold record without a PDF url and for a closed one', async () => {
    const { unpaywall } = source([
      { match: /j\.xgen/, respond: recorded('unpaywall', 'j.xgen.2025.100814') },
      { match: /a:1007154515475/, respond: recorded('unpaywall', 'a:1007154515475') },
    ]);
    const gold = await unpaywall.lookup({ type: 'DOI', value: '10.1016/j.xgen.2025.100814' });
    expect(gold?.title).toBe('High-throughput screening of human genetic variants by pooled prime editing');
    expect(gold?.pdf_url ?? null).toBeNull();
    const closed = await unpaywall.lookup({ type: 'DOI', value: '10.1023/a:1007154515475' });
    expect(closed?.pdf_url ?? null).toBeNull();
    expect(closed?.authors[0]).toBe('Subrata Adak');
  });

  it('answers null for an unknown DOI and for other identifier types', async () => {
    const { unpaywall } = source([{ match: /\/v2\//, respond: { status: 404, body: '{"error":true}' } }]);
    expect(await unpaywall.lookup({ type: 'DOI', value: '10.9999/unknown' })).toBeNull();
    expect(await unpaywall.lookup({ type: 'PMID', value: '1' })).toBeNull();
  });
});
