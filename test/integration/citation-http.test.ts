import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPapers, parseReferences } from '../../src/services/export/citation-formats.js';
import { nestedMacroBomb } from '../fakes/bibtex-bomb.js';
import { fixtures } from '../helpers/requirements.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const bibtex = `@inproceedings{lin2022,
  title = {{DoTAT}: A Domain-oriented Text Annotation Tool},
  author = {Lin, Yupian and Ruan, Tong},
  booktitle = {Proceedings of ACL 2022: System Demonstrations},
  year = {2022},
  url = {https://aclanthology.org/2022.acl-demo.1},
}
@article{vaswani,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  journal = {NeurIPS},
  year = {2017},
  doi = {10.48550/arXiv.1706.03762},
}`;

async function importFile(project: string, body: string, contentType: string, query = '') {
  return t.app.inject({
    method: 'POST',
    url: `/api/projects/${project}/import${query}`,
    headers: { ...withKey(t.key), 'content-type': contentType },
    payload: body,
  });
}

describe('project import and export', () => {
  it('imports a BibTeX body into a project, idempotently', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Reading',
      headers: withKey(t.key),
    });
    const first = await importFile('Reading', bibtex, 'application/x-bibtex');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ imported: 2, created: 2, skipped: [] });
    expect(first.json().papers[1]).toMatchObject({
      title: 'Attention Is All You Need',
      doi: '10.48550/arxiv.1706.03762',
      identifiers: { arxiv: '1706.03762' },
    });
    const again = await importFile('Reading', bibtex, 'text/plain');
    expect(again.json()).toMatchObject({ imported: 2, created: 0 });
    const project = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading',
      headers: withKey(t.key),
    });
    expect(project.json().paper_count).toBe(2);
  });

  it('keeps every bibliographic field through the project store (rich.bib, decision 0049)', async () => {
    const rich = readFileSync(join(fixtures, 'bibliography', 'rich.bib'), 'utf8');
    await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Rich',
      headers: withKey(t.key),
    });
    const imported = await importFile('Rich', rich, 'application/x-bibtex');
    expect(imported.json()).toMatchObject({ imported: 10, created: 10 });
    // What the stored records export is what the parsed file exports: storage lost nothing
    // (src/services/export/independent-readers.test.ts reads that export with other parsers).
    const direct = parseReferences(rich, 'bibtex').papers;
    for (const format of ['bibtex', 'ris', 'csl'] as const) {
      const exported = await t.app.inject({
        method: 'GET',
        url: `/api/projects/Rich/export?format=${format}`,
        headers: withKey(t.key),
      });
      expect(exported.statusCode).toBe(200);
      expect(exported.body).toBe(formatPapers(direct, format));
    }
    const s2orc = imported.json().papers[1];
    expect(s2orc.authors).not.toContain('others');
    expect(s2orc.bibliographic).toMatchObject({ more_authors: true, pages: '4969–4983', place: 'Online' });
  });

  it('exports BibTeX, RIS and CSL-JSON with the right content types', async () => {
    const bib = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=bibtex',
      headers: withKey(t.key),
    });
    expect(bib.statusCode).toBe(200);
    expect(bib.headers['content-type']).toBe('application/x-bibtex; charset=utf-8');
    expect(bib.headers['content-disposition']).toBe('attachment; filename="Reading.bib"');
    expect(bib.body).toContain('@inproceedings{Lin2022DoTAT,');
    expect(bib.body).toContain('doi = {10.48550/arxiv.1706.03762}');

    const ris = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=ris',
      headers: withKey(t.key),
    });
    expect(ris.headers['content-type']).toBe('application/x-research-info-systems; charset=utf-8');
    expect(ris.body).toContain('TI  - Attention Is All You Need');
    expect(ris.body).toContain('AU  - Vaswani, Ashish');

    const csl = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=csl',
      headers: withKey(t.key),
    });
    expect(csl.headers['content-type']).toBe('application/vnd.citationstyles.csl+json; charset=utf-8');
    const items = JSON.parse(csl.body) as Array<Record<string, unknown>>;
    expect(items.map((item) => item.title)).toEqual([
      'DoTAT: A Domain-oriented Text Annotation Tool',
      'Attention Is All You Need',
    ]);
    expect(items[0]).toMatchObject({ type: 'paper-conference', issued: { 'date-parts': [[2022]] } });
  });

  it('round-trips an export into another project (RIS through multipart, CSL-JSON as JSON)', async () => {
    const ris = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=ris',
      headers: withKey(t.key),
    });
    const boundary = 'x-boundary-1';
    const multipartBody = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="refs.ris"',
      'Content-Type: application/x-research-info-systems',
      '',
      ris.body,
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const viaMultipart = await importFile('gpt', multipartBody, `multipart/form-data; boundary=${boundary}`);
    expect(viaMultipart.statusCode).toBe(200);
    expect(viaMultipart.json().papers.map((paper: { authors: string[] }) => paper.authors)).toEqual([
      ['Yupian Lin', 'Tong Ruan'],
      ['Ashish Vaswani', 'Noam Shazeer'],
    ]);

    const csl = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=csl',
      headers: withKey(t.key),
    });
    const viaJson = await importFile('gpt', csl.body, 'application/json', '?format=csl');
    expect(viaJson.json()).toMatchObject({ imported: 2, created: 0 });
  });

  it('answers bad input with 400/404/422 envelopes naming the parameter', async () => {
    const badFormat = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export?format=docx',
      headers: withKey(t.key),
    });
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json().error).toMatchObject({ param: 'format', code: 'invalid_request' });
    expect(badFormat.json().error.message).toContain('bibtex, ris, csl');

    const missing = await t.app.inject({
      method: 'GET',
      url: '/api/projects/nope/export',
      headers: withKey(t.key),
    });
    expect(missing.statusCode).toBe(404);

    const garbage = await importFile('Reading', 'hello world', 'text/plain');
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().error.param).toBe('format');

    const empty = await importFile('Reading', '@comment{nothing}', 'application/x-bibtex');
    expect(empty.statusCode).toBe(422);
  });

  it("keeps tenants apart: another tenant cannot export this tenant's project", async () => {
    const other = await t.newKey('tenant-z');
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/projects/Reading/export',
      headers: withKey(other),
    });
    expect(response.statusCode).toBe(404);
  });
});

describe('hostile imports (issue 13)', () => {
  async function paperCount(project: string): Promise<number> {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/projects/${project}`,
      headers: withKey(t.key),
    });
    return response.json().paper_count;
  }

  it('expansion bomb: a 600-byte nested-@string BibTeX import is a quick 413 naming file, nothing stored', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/create_project?project_name=Bombed',
      headers: withKey(t.key),
    });
    const bomb = nestedMacroBomb(9, 'author = {Doe, Jane}, year = 2020');
    expect(bomb.length).toBeLessThan(650);
    const started = performance.now();
    const response = await importFile('Bombed', bomb, 'application/x-bibtex');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'payload_too_large', param: 'file' });
    expect(response.json().error.message).toContain('expands to 1073741824 characters');
    expect(await paperCount('Bombed')).toBe(0);
  });

  it('an over-long entry is refused whole: no entry of the file is filed', async () => {
    const file = `@article{fine, title = {A Fine Title}, year = 2020}
@article{long, title = {${'word '.repeat(1000)}}, year = 2020}`;
    const response = await importFile('Bombed', file, 'application/x-bibtex');
    expect(response.statusCode).toBe(413);
    expect(response.json().error.message).toContain(
      'Entry 2 is too large to store: title is 4999 characters',
    );
    expect(await paperCount('Bombed')).toBe(0);
  });

  it('deeply nested CSL-JSON is a 422 naming file, not a 500 (as a JSON or a CSL body)', async () => {
    const deep = `[{"title":"Deep","note":${'['.repeat(50_000)}${']'.repeat(50_000)}}]`;
    for (const contentType of ['application/json', 'application/vnd.citationstyles.csl+json']) {
      const response = await importFile('Bombed', deep, contentType, '?format=csl');
      expect(response.statusCode, contentType).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'unprocessable', param: 'file' });
    }
    const detected = await importFile('Bombed', deep, 'application/json');
    expect(detected.statusCode).toBe(422);
    expect(await paperCount('Bombed')).toBe(0);
  });
});
