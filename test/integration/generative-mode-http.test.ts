import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { resolveInputs } from '../../src/ingest/ingest-inputs.js';
import { ingest } from '../../src/ingest/ingest-pipeline.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { type ChatTestApp, startChatApp } from '../helpers/chat-app.js';
import { fixtures } from '../helpers/requirements.js';

/** generative_mode on /api/abstracts over the real search service and ACL Anthology records. */

const corpus = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');
const dotat = 'https://aclanthology.org/2022.acl-demo.1';
const query = 'How much does DoTAT reduce the event annotation time?';

async function search(app: ChatTestApp, parameters: Record<string, string>) {
  const response = await fetch(`${app.url}/api/abstracts?${new URLSearchParams(parameters)}`, {
    headers: { authorization: `Bearer ${app.key}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Array<{ title: string; url: string; answer?: string }>;
}

describe('generative_mode without a chat model (extractive answers)', () => {
  let app: ChatTestApp;
  beforeAll(async () => {
    app = await startChatApp();
    await ingest(app.container.stores.index, await resolveInputs(corpus, process.stdin));
  });
  afterAll(async () => {
    await app.close();
  });

  it('adds to each record the abstract sentences that answer the query, cited to its url', async () => {
    const records = await search(app, { query, generative_mode: 'true' });
    const first = records.find((record) => record.url === dotat);
    expect(first?.answer).toContain(
      'Experiments on the ACE2005 dataset show that DoTAT can reduce the event annotation time by 19.7% compared with existing annotation tools.',
    );
    expect(first?.answer?.endsWith(` [Lin et al., 2022](${dotat})`)).toBe(true);
    expect(
      records.every(
        (record) => typeof record.answer === 'string' && record.answer.includes(`](${record.url})`),
      ),
    ).toBe(true);
  });

  it('adds nothing when generative_mode is false or absent', async () => {
    for (const parameters of [{ query }, { query, generative_mode: 'false' }] as Array<
      Record<string, string>
    >) {
      const records = await search(app, parameters);
      expect(records.length).toBeGreaterThan(0);
      expect(records.some((record) => 'answer' in record)).toBe(false);
    }
  });
});

describe('generative_mode with a chat model', () => {
  let app: ChatTestApp;
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    server.setScript(() => ({ text: 'It reports a 19.7% shorter event annotation time.' }));
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    app = await startChatApp({ model });
    await ingest(app.container.stores.index, await resolveInputs(corpus, process.stdin));
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('asks the model once per record and cites the record', async () => {
    const records = await search(app, { query, generative_mode: 'true', limit: '3' });
    expect(records).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    expect(records[0]?.answer).toBe(
      `It reports a 19.7% shorter event annotation time. [Lin et al., 2022](${dotat})`,
    );
  });

  it('does no model work when generative_mode is off', async () => {
    const before = server.requests.length;
    const records = await search(app, { query: 'event annotation tool', limit: '5' });
    expect(records.length).toBeGreaterThan(0);
    expect(records.some((record) => 'answer' in record)).toBe(false);
    expect(server.requests.length).toBe(before);
  });
});
