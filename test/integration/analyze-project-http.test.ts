import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/requirements.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

let t: TestApp;

/** Three real ACL Anthology records with abstracts, as CSL-JSON. */
function aclRecords(): string {
  const lines = readFileSync(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8').split('\n');
  const records = lines.slice(0, 3).map((line) => JSON.parse(line) as Record<string, unknown>);
  return JSON.stringify(
    records.map((record, index) => ({
      id: `r${index}`,
      type: 'paper-conference',
      title: record.title,
      author: (record.authors as string[]).map((name) => ({ literal: name })),
      issued: { 'date-parts': [[record.year]] },
      abstract: record.abstract,
      URL: record.url,
    })),
  );
}

beforeAll(async () => {
  t = await createTestApp();
  await t.app.inject({
    method: 'POST',
    url: '/api/create_project?project_name=ACL%20demos',
    headers: withKey(t.key),
  });
  const imported = await t.app.inject({
    method: 'POST',
    url: '/api/projects/ACL%20demos/import',
    headers: { ...withKey(t.key), 'content-type': 'application/json' },
    payload: aclRecords(),
  });
  expect(imported.json().imported).toBe(3);
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/analyze_project', () => {
  it('answers comma-joined questions as a paper × question markdown table', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/analyze_project?project_name=ACL%20demos&question=${encodeURIComponent('How much annotation time is saved?,Which dataset is used in the experiments?')}`,
      headers: withKey(t.key),
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.analysis_mode).toBe('tabular');
    expect(body.questions).toEqual([
      'How much annotation time is saved?',
      'Which dataset is used in the experiments?',
    ]);
    expect(body.papers[0].title).toBe('DoTAT: A Domain-oriented Text Annotation Tool');
    // DoTAT's abstract: "…reduce the event annotation time by 19.7%…" and "Experiments on the ACE2005 dataset…".
    expect(body.cells[0][0]).toMatchObject({ source: 'abstract' });
    expect(body.cells[0][0].answer).toContain('19.7%');
    expect(body.cells[0][1].answer).toContain('ACE2005');
    const lines = body.markdown.split('\n');
    expect(lines[0]).toBe(
      '| Paper | How much annotation time is saved? | Which dataset is used in the experiments? |',
    );
    expect(lines).toHaveLength(2 + 3);
    expect(lines[2]).toContain(
      '[DoTAT: A Domain-oriented Text Annotation Tool](https://aclanthology.org/2022.acl-demo.1) (2022)',
    );
  });

  it('writes a synthesis in comprehensive mode', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/analyze_project?project_name=ACL%20demos&analysis_mode=comprehensive&question=annotation%20time',
      headers: withKey(t.key),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().markdown).toMatch(/^### annotation time\n\n\d of 3 papers? address/);
  });

  it('names the parameter at fault', async () => {
    const badMode = await t.app.inject({
      method: 'GET',
      url: '/api/analyze_project?question=x&analysis_mode=pie',
      headers: withKey(t.key),
    });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json().error).toMatchObject({ param: 'analysis_mode' });
    const noQuestion = await t.app.inject({
      method: 'GET',
      url: '/api/analyze_project',
      headers: withKey(t.key),
    });
    expect(noQuestion.json().error.param).toBe('question');
    const empty = await t.app.inject({
      method: 'GET',
      url: '/api/analyze_project?question=x',
      headers: withKey(t.key),
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().error.message).toContain('has no papers to analyze');
  });
});
