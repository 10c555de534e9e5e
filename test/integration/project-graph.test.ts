import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paper } from '../../src/domain/paper.js';
import { aclRecords } from '../helpers/acl-records.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

const pdfs = join(sharedData, 'pdfs');
const aclIds = new Set([
  'D19-1371',
  '2020.acl-main.207',
  '2020.acl-main.447',
  '2020.findings-emnlp.428',
  'D19-1410',
  'N18-3011',
  'N19-1361',
  '2022.in2writing-1.12',
  '2020.nlpcovid19-acl.1',
]);

// Real papers citing each other is the point here: the file runs where the shared data is.
describe.skipIf(
  needsSharedData(
    'pdfs/beyond_summarization_2304.02623v1.pdf',
    'pdfs/citesee_2302.07302v1.pdf',
    'pdfs/papermage_emnlp2023_demo.pdf',
  ),
)('project graphs of real papers', () => {
  let t: TestApp;
  const added: Record<string, Paper> = {};

  beforeAll(async () => {
    t = await createTestApp();
    await t.container.stores.index.upsert(aclRecords(aclIds));
    for (const [name, file] of [
      ['beyond', 'beyond_summarization_2304.02623v1.pdf'],
      ['citesee', 'citesee_2302.07302v1.pdf'],
      ['papermage', 'papermage_emnlp2023_demo.pdf'],
    ] as const) {
      const response = await uploadPdf(
        t,
        t.key,
        file,
        readFileSync(join(pdfs, file)),
        'project_name=Reading',
      );
      expect(response.statusCode, response.body).toBe(200);
      added[name] = response.json()[0];
    }
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, key = t.key) => t.app.inject({ method: 'GET', url, headers: withKey(key) });

  interface Graph {
    project: { id: string; name: string };
    nodes: Array<{ id: string; paper: Paper; references: number; linked: number }>;
    edges: Array<{ source: string; target: string; reference: string; contexts: number }>;
    missing: Array<{
      title: string;
      paper: Paper | null;
      paper_id: string | null;
      count: number;
      cited_by: string[];
      reference: string;
    }>;
    hint: string;
  }

  const entry = (name: string) => added[name]?.entry_id ?? '';

  describe('GET /api/project_graph', () => {
    it('draws which papers of the project cite each other, from their reference lists', async () => {
      const response = await get('/api/project_graph?project_name=Reading');
      expect(response.statusCode, response.body).toBe(200);
      const graph = response.json() as Graph;
      expect(graph.project.name).toBe('Reading');
      expect(graph.nodes.map((node) => node.id).sort()).toEqual(
        ['beyond', 'citesee', 'papermage'].map(entry).sort(),
      );
      for (const node of graph.nodes) {
        expect(node.references).toBeGreaterThan(30);
        expect(node.paper.pdf_id).toMatch(/^PROJ:/);
      }
      // Beyond Summarization and PaperMage cite CiteSee; CiteSee (the oldest) cites neither.
      expect(graph.edges.map((edge) => `${edge.source}>${edge.target}`).sort()).toEqual(
        [`${entry('beyond')}>${entry('citesee')}`, `${entry('papermage')}>${entry('citesee')}`].sort(),
      );
      for (const edge of graph.edges) {
        expect(edge.reference).toMatch(/CiteSee/i);
        expect(edge.contexts).toBeGreaterThan(0);
      }
      expect(graph.hint).toContain('2 citations between them');
    });

    it('ranks the works the project lacks by how many of its papers cite them', async () => {
      const graph = (await get('/api/project_graph?project_name=Reading')).json() as Graph;
      const counts = graph.missing.map((work) => work.count);
      expect(counts.length).toBeGreaterThanOrEqual(5);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      expect(Math.min(...counts)).toBeGreaterThanOrEqual(2);
      // Cited by all three.
      const citeRead = graph.missing.find((work) => /^CiteRead/.test(work.title));
      expect(citeRead?.count).toBe(3);
      expect(graph.missing[0]?.count).toBe(3);
      // Brown et al. is cited by Beyond Summarization and PaperMage, not by CiteSee.
      const brown = graph.missing.find((work) => /^Language Models are Few-Shot Learners$/i.test(work.title));
      expect(brown?.cited_by.sort()).toEqual([entry('beyond'), entry('papermage')].sort());
      expect(brown?.paper).toBeNull();
      // A paper of the project is an edge, never a missing work.
      expect(graph.missing.some((work) => /CiteSee|PaperMage|Beyond Summarization/i.test(work.title))).toBe(
        false,
      );
      // Works cited once or more, with their linked records: SciBERT is in the index, and both
      // CiteSee and PaperMage list it among their references (both link since decision 0050).
      const once = (
        await get('/api/project_graph?project_name=Reading&min_citing=1&limit=200')
      ).json() as Graph;
      const scibert = once.missing.find((work) => work.paper_id === 'DOI:10.18653/v1/D19-1371');
      expect(scibert?.count).toBe(2);
      expect(scibert?.cited_by.sort()).toEqual([entry('citesee'), entry('papermage')].sort());
      expect(scibert?.paper?.title).toBe('SciBERT: A Pretrained Language Model for Scientific Text');
      expect(once.missing.length).toBeGreaterThan(graph.missing.length);
    });

    it('answers an empty default project, and names the parameter of a bad request', async () => {
      const empty = await get('/api/project_graph');
      expect(empty.statusCode).toBe(200);
      expect(empty.json()).toMatchObject({ project: { id: 'gpt' }, nodes: [], edges: [], missing: [] });
      const unknown = await get('/api/project_graph?project_id=nope');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.param).toBe('project_id');
      const bad = await get('/api/project_graph?project_name=Reading&min_citing=0');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.param).toBe('min_citing');
    });
  });

  describe('offline literature_map from the stored PDFs', () => {
    it('maps a stored PDF: its parsed references (linked records first) and the stored PDFs citing it', async () => {
      const response = await get('/api/literature_map?paper_id=ARXIV:2302.07302&limit=20');
      expect(response.statusCode, response.body).toBe(200);
      const map = response.json() as {
        paper: Paper;
        references: Paper[];
        citations: Paper[];
        hint: string;
        sources: Array<{ source: string }>;
      };
      expect(map.paper.title).toMatch(/^CiteSee/);
      expect(map.references.length).toBe(20);
      const linked = map.references.filter((paper) => paper.identifiers?.acl);
      expect(linked.map((paper) => paper.identifiers?.acl).sort()).toEqual(
        // SPECTER is printed "Citationinformed" (the hyphen lost at a line end) and still links.
        ['2020.acl-main.207', '2020.findings-emnlp.428', 'D19-1371', 'N19-1361'].sort(),
      );
      expect(map.references.slice(0, linked.length)).toEqual(linked);
      expect(map.citations.map((paper) => paper.entry_id).sort()).toEqual(
        [entry('beyond'), entry('papermage')].sort(),
      );
      expect(map.citations.every((paper) => paper.pdf_id?.startsWith('PROJ:'))).toBe(true);
      expect(map.hint).toContain('reference list of your stored PDF');
      expect(map.sources.map((report) => report.source)).toContain('library');
    });

    it('maps an index record by the stored PDFs that cite it', async () => {
      const map = (await get('/api/literature_map?paper_id=ACL:D19-1371')).json() as {
        paper: Paper;
        citations: Paper[];
        hint: string;
      };
      expect(map.paper.title).toMatch(/^SciBERT/);
      expect(map.citations.map((paper) => paper.entry_id).sort()).toEqual(
        [entry('citesee'), entry('papermage')].sort(),
      );
      expect(map.hint).toContain('/api/citation_contexts?paper_id=ACL:D19-1371');
    });
  });

  describe('tenants', () => {
    it("never shows another tenant's PDFs, projects or links", async () => {
      const other = await t.newKey('tenant-graph-other');
      const graph = await get('/api/project_graph?project_name=Reading', other);
      expect(graph.statusCode).toBe(404);
      expect(graph.json().error.param).toBe('project_name');
      expect(
        (await get(`/api/project_graph?project_id=${added.citesee?.pdf_id?.slice(5, 19)}`, other)).statusCode,
      ).toBe(404);
      // CiteSee is only in the first tenant's PDFs: unknown to the other.
      expect((await get('/api/literature_map?paper_id=ARXIV:2302.07302', other)).statusCode).toBe(404);
      const scibert = (await get('/api/literature_map?paper_id=ACL:D19-1371', other)).json() as {
        citations: Paper[];
        sources: Array<{ source: string }>;
      };
      expect(scibert.citations).toEqual([]);
      expect(scibert.sources.map((report) => report.source)).not.toContain('library');
    });
  });

  describe('MCP get_project_graph (real SDK client)', () => {
    it('returns the edges and missing works, with a hint in tool terms', async () => {
      const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const client = new Client({ name: 'project-graph-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
          requestInit: { headers: withKey(t.key) },
        }),
      );
      try {
        const result = (await client.callTool({
          name: 'get_project_graph',
          arguments: { project_name: 'Reading' },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const content = result.content[0];
        if (content?.type !== 'text') throw new Error('expected text');
        const { hint, result: value } = JSON.parse(content.text);
        expect(value.edges).toHaveLength(2);
        expect(value.missing[0].count).toBe(3);
        expect(hint).not.toContain('/api/');
      } finally {
        await client.close();
      }
    });
  });
});
