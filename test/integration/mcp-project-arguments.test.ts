import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, toolText } from '../helpers/mcp-client.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 37 item 5 (decision 0049): every MCP tool that takes a project answers for the project it
 * is given. get_project_graph took only `project_name`, so the `project_id` clients send was dropped
 * and the graph of the default project came back; an argument a tool does not know is now refused,
 * naming it, instead of being dropped.
 */

let t: TestApp;
let client: Client;
let readingId: string;

beforeAll(async () => {
  t = await createTestApp();
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  client = await connectMcp(baseUrl, t.key, 'mcp-project-arguments-test');
  const created = await call('create_project', { project_name: 'Reading' });
  expect(created.isError, toolText(created)).toBeFalsy();
  readingId = JSON.parse(toolText(created)).result.id;
});

afterAll(async () => {
  await client?.close();
  await t?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('MCP tools honour the project they are given', () => {
  it('get_project_graph answers for project_id, project_name and project (it answered for "gpt")', async () => {
    for (const args of [{ project_id: readingId }, { project_id: 'Reading' }, { project_name: 'Reading' }]) {
      const result = await call('get_project_graph', args);
      expect(result.isError, toolText(result)).toBeFalsy();
      const { project } = JSON.parse(toolText(result)).result;
      expect(project, JSON.stringify(args)).toMatchObject({ id: readingId, name: 'Reading' });
    }
    const fallback = JSON.parse(toolText(await call('get_project_graph', {}))).result;
    expect(fallback.project.id).toBe('gpt');
  });

  it('get_project_graph names a project that does not exist instead of answering for the default', async () => {
    const result = await call('get_project_graph', { project_id: 'Nowhere' });
    expect(result.isError).toBe(true);
    expect(toolText(result)).toContain('Nowhere');
    expect(result._meta).toMatchObject({ code: 'not_found', param: 'project_id' });
  });

  it('refuses, naming it, an argument a project tool does not know (it fell back to "gpt")', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_project_graph', { projectId: readingId }],
      ['get_project', { projectId: readingId }],
      ['export_project', { project_ids: readingId }],
      ['analyze_project', { question: 'What data?', projectId: readingId }],
      ['add_to_project', { paper_id: 'DOI:10.1000/x', project: 'Reading' }],
      ['create_project', { project_name: 'Other', projectId: 'x' }],
    ];
    for (const [name, args] of calls) {
      const result = await call(name, args);
      const unknown = Object.keys(args).find(
        (key) => !['question', 'paper_id', 'project_name'].includes(key),
      );
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(toolText(result)).toContain(`unknown argument "${unknown}"`);
    }
    // Nothing was filed or created by the refused calls.
    const projects = JSON.parse(toolText(await call('list_projects', {}))).result as Array<{ name: string }>;
    expect(projects.map((project) => project.name).sort()).toEqual(['Reading', 'gpt']);
  });

  it('lists the project tools with closed argument lists', async () => {
    const { tools } = await client.listTools();
    for (const name of [
      'get_project_graph',
      'get_project',
      'export_project',
      'analyze_project',
      'add_to_project',
    ]) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(tool?.inputSchema.additionalProperties, name).toBe(false);
    }
    const graph = tools.find((candidate) => candidate.name === 'get_project_graph');
    expect(Object.keys(graph?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['project_id', 'project_name']),
    );
  });
});
