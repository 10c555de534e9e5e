import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aclRecords } from '../helpers/acl-records.js';
import { connectMcp, toolText } from '../helpers/mcp-client.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Issue 37 part 2 through the real app over HTTP: a pasted bibliography parsed into CSL-JSON
 * (`POST /api/parse_references`), checked as text (`verify_references` with format=text), and the
 * MCP tool; bad input refused with the envelope naming its parameter (decision 0048).
 */

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.container.stores.index.upsert(aclRecords(new Set(['P19-1299', 'W18-2317'])));
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t.close();
});

/** A numbered list as copied from a paper: its heading, wrapped lines, three styles. */
const numbered = `References

[1] Xilun Chen, Ahmed Hassan Awadallah, Hany Hassan, Wei Wang, and Claire Cardie. 2019. Multi-Source
Cross-Lingual Model Transfer: Learning What to Share. In Proceedings of the 57th Annual Meeting of the
Association for Computational Linguistics, pages 3098–3112, Florence, Italy.
[2] Bergk, V., Haefeli, W. E., Gasse, C., Brenner, H. & Martin-Facklam, M. Information deficits in the summary of product characteristics preclude an optimal management of drug interactions. European Journal of Clinical Pharmacology 2005, 61, 327–335.
[3] Bange EM, Han NA, Wileyto P, et al. Cardiovascular outcomes of immune checkpoint inhibitors. Nat Med. 2021;27(7):1280–9. doi:10.1038/s41591-021-01386-7
`;

async function post(url: string, payload: string, contentType = 'application/json') {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...withKey(t.key), 'content-type': contentType },
    payload,
  });
}

describe('POST /api/parse_references', () => {
  it('reads a numbered list into CSL-JSON items, in input order', async () => {
    const response = await post('/api/parse_references', JSON.stringify({ text: numbered, format: 'text' }));
    expect(response.statusCode).toBe(200);
    const { entries } = response.json();
    expect(entries).toHaveLength(3);
    expect(entries.map((entry: { id: string }) => entry.id)).toEqual(['ref-1', 'ref-2', 'ref-3']);
    expect(entries[0]).toMatchObject({
      type: 'paper-conference',
      title: 'Multi-Source Cross-Lingual Model Transfer: Learning What to Share',
      issued: { 'date-parts': [[2019]] },
      page: '3098-3112',
      'citation-number': '1',
    });
    expect(entries[0].author[0]).toEqual({ given: 'Xilun', family: 'Chen' });
    expect(entries[0].author).toHaveLength(5);
    expect(entries[0]['container-title']).toMatch(/^Proceedings of the 57th Annual Meeting/);
    expect(entries[1]).toMatchObject({
      type: 'article-journal',
      'container-title': 'European Journal of Clinical Pharmacology',
      volume: '61',
      page: '327-335',
      issued: { 'date-parts': [[2005]] },
    });
    expect(entries[1].author[0]).toEqual({ family: 'Bergk', given: 'V.' });
    expect(entries[1].author.at(-1)).toEqual({ family: 'Martin-Facklam', given: 'M.' });
    expect(entries[2]).toMatchObject({
      title: 'Cardiovascular outcomes of immune checkpoint inhibitors',
      'container-title': 'Nat Med',
      volume: '27',
      issue: '7',
      page: '1280-9',
      DOI: '10.1038/s41591-021-01386-7',
      issued: { 'date-parts': [[2021]] },
    });
    expect(entries[2].author[0]).toEqual({ family: 'Bange', given: 'E. M.' });
  });

  it('takes one reference per line as a text/plain body', async () => {
    const lines = [
      'Nichols, Bill. “Getting to Know You...”: Knowledge, Power, and the Body. In Theorizing Documentary, ed. Michael Renov, 1-11. London: Routledge, 1993.',
      'Weiss, S., & Indurkhya, N. (1993). Optimized Rule Induction. IEEE Expert, 8 (6), 61-69.',
    ].join('\n');
    const response = await post('/api/parse_references', lines, 'text/plain');
    expect(response.statusCode).toBe(200);
    const { entries } = response.json();
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      type: 'chapter',
      'container-title': 'Theorizing Documentary',
      publisher: 'Routledge',
      'publisher-place': 'London',
      editor: [{ given: 'Michael', family: 'Renov' }],
    });
    expect(entries[0].author).toEqual([{ family: 'Nichols', given: 'Bill' }]);
    expect(entries[1]).toMatchObject({ title: 'Optimized Rule Induction', volume: '8', issue: '6' });
  });

  it('refuses bad input with the envelope, naming the parameter', async () => {
    const cases: Array<{ type: string; payload: string; status: number; param: string }> = [
      { type: 'application/json', payload: '{"text": ', status: 400, param: 'text' },
      { type: 'application/json', payload: '{"text": ""}', status: 400, param: 'text' },
      { type: 'application/json', payload: '{"text": 12}', status: 400, param: 'text' },
      {
        type: 'application/json',
        payload: '{"text": "A. B. 2020. T."  , "format": "bibtex"}',
        status: 400,
        param: 'format',
      },
      { type: 'application/json', payload: '{"text": "x", "extra": 1}', status: 400, param: 'extra' },
      {
        type: 'application/json',
        payload: JSON.stringify({ text: 'x'.repeat(400_001) }),
        status: 400,
        param: 'text',
      },
      { type: 'text/plain', payload: '   ', status: 400, param: 'text' },
      {
        type: 'application/json',
        payload: JSON.stringify({ text: '\n\nReferences\n\n' }),
        status: 422,
        param: 'text',
      },
    ];
    for (const item of cases) {
      const response = await post('/api/parse_references', item.payload, item.type);
      expect(response.statusCode, item.payload.slice(0, 60)).toBe(item.status);
      expect(response.json().error, item.payload.slice(0, 60)).toMatchObject({ param: item.param });
    }
  });

  it('gives items a project imports as CSL-JSON (the web page\'s "Add to project")', async () => {
    const parsed = await post('/api/parse_references', JSON.stringify({ text: numbered, format: 'text' }));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Pasted',
      headers: withKey(t.key),
    });
    expect(created.statusCode).toBe(200);
    const imported = await post(
      '/api/projects/Pasted/import',
      JSON.stringify(parsed.json().entries),
      'text/plain; charset=utf-8',
    );
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ imported: 3, skipped: [] });
    const titles = imported.json().papers.map((paper: { title: string }) => paper.title);
    expect(titles).toContain('Cardiovascular outcomes of immune checkpoint inhibitors');
    const nat = imported.json().papers.find((paper: { doi: string | null }) => paper.doi);
    expect(nat).toMatchObject({ doi: '10.1038/s41591-021-01386-7', year: 2021 });
  });

  it('needs a key', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/parse_references',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ text: numbered }),
    });
    expect(response.statusCode).toBe(401);
  });
});

describe('verify_references with format=text', () => {
  const pasted = [
    'Xilun Chen, Ahmed Hassan Awadallah, Hany Hassan, Wei Wang, and Claire Cardie. 2019. Multi-Source Cross-Lingual Model Transfer: Learning What to Share. In Proceedings of ACL, pages 3098–3112.',
    'Qiuyue Wang and Xiaofeng Meng. 2016. Bacteria and Biotope Entity Recognition Using A Dictionary-Enhanced Neural Network Model. In Proceedings of the BioNLP 2018 workshop.',
    'Zelda Quorn and Tobias Vark. 2021. Recursive Lattice Grammars for Underwater Dialogue. In Proceedings of EMNLP.',
  ].join('\n');

  it('checks each pasted reference: exists, mismatch naming the field, not_found', async () => {
    const response = await post('/api/verify_references', JSON.stringify({ text: pasted, format: 'text' }));
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(
      body.results.map((result: { status: string; fields: string[] }) => [result.status, ...result.fields]),
    ).toEqual([['exists'], ['mismatch', 'year'], ['not_found']]);
    expect(body.results[0].paper.identifiers.acl).toBe('P19-1299');
    const raw = await post('/api/verify_references?format=text', pasted, 'text/plain');
    expect(raw.statusCode).toBe(200);
    expect(raw.json().counts).toEqual(body.counts);
  });

  it('refuses an unknown format naming it', async () => {
    const response = await post('/api/verify_references', JSON.stringify({ text: pasted, format: 'word' }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ param: 'format' });
  });
});

describe('MCP parse_references and verify_references (real SDK client over /mcp)', () => {
  it('parses a pasted list and checks it as text', async () => {
    const client = await connectMcp(baseUrl, t.key, 'parse-references-test');
    const parsed = JSON.parse(
      toolText(await client.callTool({ name: 'parse_references', arguments: { text: numbered } })),
    );
    expect(parsed.result.entries).toHaveLength(3);
    expect(parsed.result.entries[1]['container-title']).toBe('European Journal of Clinical Pharmacology');
    expect(parsed.hint).toContain('verify_references');
    const checked = JSON.parse(
      toolText(
        await client.callTool({
          name: 'verify_references',
          arguments: {
            text: 'Xilun Chen, Ahmed Hassan Awadallah, Hany Hassan, Wei Wang, and Claire Cardie. 2019. Multi-Source Cross-Lingual Model Transfer: Learning What to Share. In Proceedings of ACL.',
            format: 'text',
          },
        }),
      ),
    );
    expect(checked.result.results[0].status).toBe('exists');
    await client.close();
  });
});
