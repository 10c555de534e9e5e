import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { FakeFullTextReader, FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import {
  autocompletePrompt,
  followUpPrompt,
  queryPrompt,
  tagsPrompt,
  titlePrompt,
  titlePromptWithEmoji,
} from '../fakes/open-webui-tasks.js';
import { acinetobacterChunks, researchPapers } from '../fakes/research-corpus.js';
import { type ChatTestApp, startChatApp } from '../helpers/chat-app.js';

/**
 * Not every prompt is research (issue 15 item 5): Open WebUI's task prompts and greetings get a
 * short direct answer with no literature run — the search and full-text fakes record every call,
 * and the scripted model server every request.
 */

const question =
  'Acinetobacter lwoffii has been evolved in the lab to be resistant to which of these antibiotics?';
const turns = [
  { role: 'user' as const, content: question },
  {
    role: 'assistant' as const,
    content:
      'A. lwoffii only evolved resistance to ciprofloxacin [Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24).',
  },
];

let search: FakePaperSearch;
let reader: FakeFullTextReader;
beforeEach(() => {
  search.calls.length = 0;
  reader.calls.length = 0;
});

/** The request Open WebUI's backend makes for a task (routers/tasks.py), sent as it sends it. */
async function openWebUiTask(t: ChatTestApp, content: string, task: string) {
  const started = Date.now();
  const response = await fetch(`${t.url}/api/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'alexandria-research',
      messages: [{ role: 'user', content }],
      stream: false,
      max_completion_tokens: 1000,
      metadata: { task, task_body: { model: 'alexandria-research', chat_id: 'c1' }, chat_id: 'c1' },
    }),
  });
  const body = (await response.json()) as {
    choices: Array<{ message: { content: string }; finish_reason: string }>;
  };
  return { status: response.status, body, elapsedMs: Date.now() - started };
}

describe('extractive mode (no chat model)', () => {
  let t: ChatTestApp;
  beforeAll(async () => {
    search = new FakePaperSearch(researchPapers);
    reader = new FakeFullTextReader({ 'PROJ:gpt/doc_msphere': acinetobacterChunks });
    t = await startChatApp({ tools: () => ({ search, fullText: reader }) });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['title_generation', titlePromptWithEmoji(turns)],
    ['title_generation', titlePrompt(turns)],
  ])(
    'answers %s with the JSON title Open WebUI parses, derived from the conversation, without a search',
    async (task, prompt) => {
      const { status, body, elapsedMs } = await openWebUiTask(t, prompt, task);
      expect(status).toBe(200);
      expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({
        title: 'Acinetobacter lwoffii evolved lab resistant antibiotics',
      });
      expect(body.choices[0]?.finish_reason).toBe('stop');
      expect(search.calls).toEqual([]);
      expect(reader.calls).toEqual([]);
      // Measured: 0.1 s (no search, no reading: the counts above).
      expect(elapsedMs).toBeLessThan(1500);
    },
  );

  it('answers tags, follow-ups, queries and autocompletion in their JSON shapes, without a search', async () => {
    const answers = [];
    for (const [task, prompt] of [
      ['tags_generation', tagsPrompt(turns)],
      ['follow_up_generation', followUpPrompt(turns)],
      ['query_generation', queryPrompt(turns)],
      ['autocomplete_generation', autocompletePrompt(turns, 'Which antibiotics')],
    ] as const) {
      const { status, body } = await openWebUiTask(t, prompt, task);
      expect(status).toBe(200);
      answers.push(JSON.parse(body.choices[0]?.message.content ?? ''));
    }
    expect(answers).toEqual([
      { tags: ['Research'] },
      { follow_ups: [] },
      { queries: [question] },
      { text: '' },
    ]);
    expect(search.calls).toEqual([]);
  });

  it('answers a greeting with a quick notice, streamed, without a search', async () => {
    const stream = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'Hi!' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let reasoning = '';
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      reasoning +=
        (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    }
    expect(content).toContain("I'm Alexandria, a research assistant");
    expect(reasoning).toBe('');
    expect(search.calls).toEqual([]);

    const thanks = await t.client.chat.completions.create({
      model: 'x',
      messages: [...turns, { role: 'user', content: 'Thanks a lot!' }],
    });
    expect(thanks.choices[0]?.message.content).toBe(
      "You're welcome! Ask another research question whenever you like.",
    );
    expect(search.calls).toEqual([]);
  });

  it('still runs the literature search for a research question, even one after a greeting', async () => {
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: question },
      ],
    });
    expect(search.calls.length).toBeGreaterThan(0);
    expect(completion.choices[0]?.message.content).toContain('[Hartman et al., 2024]');
  });
});

describe('with a chat model', () => {
  let t: ChatTestApp;
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    search = new FakePaperSearch(researchPapers);
    reader = new FakeFullTextReader({ 'PROJ:gpt/doc_msphere': acinetobacterChunks });
    t = await startChatApp({
      tools: () => ({ search, fullText: reader }),
      model: new OpenAiChatModel({
        baseUrl: server.baseUrl,
        model: 'fake-model',
        timeoutMs: 5000,
        maxRetries: 0,
      }),
    });
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('gives the task prompt to the model alone (no tools, no research prompt) and returns its JSON', async () => {
    server.setScript([{ text: ['```json\n{ "title": "🧫 Acinetobacter', ' Resistance" }\n```'] }]);
    const { body } = await openWebUiTask(t, titlePromptWithEmoji(turns), 'title_generation');
    expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({
      title: '🧫 Acinetobacter Resistance',
    });
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(sent?.tools).toBeUndefined();
    expect(sent?.messages).toEqual([{ role: 'user', content: titlePromptWithEmoji(turns) }]);
    expect(search.calls).toEqual([]);
  });

  it("derives the title when the model's answer is not the JSON asked for", async () => {
    server.setScript([{ text: 'Sure! Here is a title: Antibiotic resistance' }]);
    const { body } = await openWebUiTask(t, titlePrompt(turns), 'title_generation');
    expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({
      title: 'Acinetobacter lwoffii evolved lab resistant antibiotics',
    });
    server.setScript([{ status: 500, message: 'model down' }]);
    const failed = await openWebUiTask(t, tagsPrompt(turns), 'tags_generation');
    expect(JSON.parse(failed.body.choices[0]?.message.content ?? '')).toEqual({ tags: ['Research'] });
    expect(search.calls).toEqual([]);
  });

  it("answers a greeting with the model's short reply, any link it writes removed", async () => {
    server.setScript([
      { text: ['Hello! Ask me a research question, ', 'e.g. about [CRISPR](https://example.com/crispr).'] },
    ]);
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'hello' }],
    });
    const content = completion.choices[0]?.message.content ?? '';
    expect(content).toContain('Hello! Ask me a research question');
    expect(content).not.toContain('example.com');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.tools).toBeUndefined();
    expect(server.requests[0]?.messages[0]?.role).toBe('system');
    expect(server.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'hello' });
    expect(search.calls).toEqual([]);
  });
});
