import type OpenAI from 'openai';
import { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCitations } from '../../src/agent/citation-audit.js';
import { SourceLedger } from '../../src/agent/source-ledger.js';
import { FakeFullTextReader, FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { acinetobacterChunks, researchPapers } from '../fakes/research-corpus.js';
import { type ChatTestApp, startChatApp } from '../helpers/chat-app.js';

/**
 * The details OpenAI clients rely on (issue 15 item 7, docs/decisions/0030-chat-details.md), through
 * the official `openai` client against a listening server: content parts, `developer`, max_tokens,
 * `n`, client tools.
 */

const question =
  'Acinetobacter lwoffii has been evolved in the lab to be resistant to which of these antibiotics?';
const keyPassage =
  'A. baumannii readily evolved resistance to meropenem, ciprofloxacin, and gentamicin, but A. lwoffii only evolved resistance to ciprofloxacin.';

let t: ChatTestApp;
let search: FakePaperSearch;
let reader: FakeFullTextReader;
beforeAll(async () => {
  search = new FakePaperSearch(researchPapers);
  reader = new FakeFullTextReader({ 'PROJ:gpt/doc_msphere': acinetobacterChunks });
  t = await startChatApp({ tools: () => ({ search, fullText: reader }) });
});
afterAll(async () => {
  await t.close();
});

async function rejection(request: Promise<unknown>): Promise<BadRequestError> {
  const error = await request.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(BadRequestError);
  return error as BadRequestError;
}

describe('content as an array of parts', () => {
  it('joins the text parts (LibreChat, vision-capable clients) and answers the question they make', async () => {
    const before = search.calls.length;
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are helpful.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Acinetobacter lwoffii has been evolved in the lab' },
            { type: 'text', text: 'to be resistant to which of these antibiotics?' },
          ],
        },
      ],
    });
    expect(search.calls[before]?.request.query).toBe(
      'Acinetobacter lwoffii has been evolved in the lab\nto be resistant to which of these antibiotics?',
    );
    expect(completion.choices[0]?.message.content).toContain(keyPassage);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('refuses an image part with a 400 naming it, in the OpenAI envelope', async () => {
    const before = search.calls.length;
    const error = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Which antibiotic is shown in this figure?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.param).toBe('messages[0].content[1]');
    expect(error.message).toContain('image_url parts are not supported');
    expect(error.code).toBe('invalid_request');
    expect(search.calls.length).toBe(before);

    const badText = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        // A client bug: a text part without its text.
        messages: [
          { role: 'user', content: [{ type: 'text' } as unknown as OpenAI.ChatCompletionContentPartText] },
        ],
      }),
    );
    expect(badText.param).toBe('messages[0].content[0].text');
  });
});

describe('role developer', () => {
  it('is read as system: context, never the question', async () => {
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [
        { role: 'developer', content: 'Answer briefly.' },
        { role: 'user', content: question },
      ],
    });
    expect(completion.choices[0]?.message.content).toContain(keyPassage);

    const onlyDeveloper = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        messages: [{ role: 'developer', content: question }],
      }),
    );
    expect(onlyDeveloper.param).toBe('messages');
  });
});

describe('max_tokens and max_completion_tokens', () => {
  it('cut a non-streamed answer at the limit, with finish_reason "length" and usage within it', async () => {
    const readsBefore = reader.calls.length;
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      max_tokens: 20,
    });
    const content = completion.choices[0]?.message.content ?? '';
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(content.length).toBeGreaterThan(40);
    expect(content.length).toBeLessThanOrEqual(80);
    expect(completion.usage?.completion_tokens).toBe(Math.ceil(content.length / 4));
    expect(completion.usage?.completion_tokens).toBeLessThanOrEqual(20);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
    // The answer was complete at the limit: the run stopped before reading any full text.
    expect(reader.calls.length).toBe(readsBefore);
  });

  it('cut a streamed answer too (max_completion_tokens), usage chunk included', async () => {
    const stream = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      max_completion_tokens: 30,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(content.length).toBeLessThanOrEqual(120);
    expect(content.length).toBeGreaterThan(60);
    const finishes = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
      .filter(Boolean);
    expect(finishes).toEqual(['length']);
    const usage = chunks.at(-1)?.usage;
    expect(usage?.completion_tokens).toBe(Math.ceil(content.length / 4));
    expect(usage?.completion_tokens).toBeLessThanOrEqual(30);
  });

  it('leave an answer that fits whole, finish_reason "stop", and the smaller of the two applies', async () => {
    const whole = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      max_tokens: 100_000,
    });
    const content = whole.choices[0]?.message.content ?? '';
    expect(whole.choices[0]?.finish_reason).toBe('stop');
    expect(content).toContain('**References**');
    expect(whole.usage?.completion_tokens).toBe(Math.ceil(content.length / 4));

    const both = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      max_tokens: 100_000,
      max_completion_tokens: 10,
    });
    expect(both.choices[0]?.finish_reason).toBe('length');
    expect((both.choices[0]?.message.content ?? '').length).toBeLessThanOrEqual(40);
  });

  it('never leave half a citation link: a cut link is dropped whole', async () => {
    const full = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
    });
    const answer = full.choices[0]?.message.content ?? '';
    const link = answer.indexOf('[Hartman et al., 2024](');
    expect(link).toBeGreaterThan(0);
    // A limit whose character budget ends inside the first link.
    const limit = Math.floor((link + 10) / 4);
    const cut = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      max_tokens: limit,
    });
    const content = cut.choices[0]?.message.content ?? '';
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(content).toBe(answer.slice(0, link));
    expect(auditCitations(content, new SourceLedger())).toEqual([]);
  });

  it('refuse a limit below 1 naming the parameter', async () => {
    const error = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        messages: [{ role: 'user', content: question }],
        max_tokens: 0,
      }),
    );
    expect(error.param).toBe('max_tokens');
  });
});

describe('n', () => {
  it('accepts n = 1 and refuses n > 1 with a 400 naming n', async () => {
    const one = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: question }],
      n: 1,
    });
    expect(one.choices).toHaveLength(1);
    const before = search.calls.length;
    const error = await rejection(
      t.client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: question }], n: 2 }),
    );
    expect(error.param).toBe('n');
    expect(error.message).toContain('n must be 1');
    expect(search.calls.length).toBe(before);
  });
});

describe('client tools', () => {
  const weather: OpenAI.ChatCompletionTool = {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
  };

  it('are refused with a 400 naming the parameter and saying why', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
    const tools = await rejection(
      t.client.chat.completions.create({ model: 'x', messages, tools: [weather] }),
    );
    expect(tools.param).toBe('tools');
    expect(tools.message).toContain('runs its own research agent');
    const required = await rejection(
      t.client.chat.completions.create({ model: 'x', messages, tool_choice: 'required' }),
    );
    expect(required.param).toBe('tool_choice');
    const functions = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        messages,
        functions: [{ name: 'get_weather', parameters: { type: 'object' } }],
      }),
    );
    expect(functions.param).toBe('functions');
  });

  it('are accepted when they cannot be called: empty, or tool_choice "none"', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
    const none = await t.client.chat.completions.create({
      model: 'x',
      messages,
      tools: [weather],
      tool_choice: 'none',
    });
    expect(none.choices[0]?.message.content).toContain(keyPassage);
    const empty = await t.client.chat.completions.create({
      model: 'x',
      messages,
      tools: [],
      tool_choice: 'auto',
    });
    expect(empty.choices[0]?.finish_reason).toBe('stop');
  });
});

describe('parameters the agent cannot honour', () => {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];

  it('are refused with a 400 naming the parameter, before any search', async () => {
    const before = search.calls.length;
    const json = await rejection(
      t.client.chat.completions.create({ model: 'x', messages, response_format: { type: 'json_object' } }),
    );
    expect(json.param).toBe('response_format');
    expect(json.message).toContain('response_format is not supported');
    const schema = await rejection(
      t.client.chat.completions.create({
        model: 'x',
        messages,
        response_format: { type: 'json_schema', json_schema: { name: 'quotes', schema: { type: 'object' } } },
      }),
    );
    expect(schema.param).toBe('response_format');
    expect(
      (await rejection(t.client.chat.completions.create({ model: 'x', messages, stop: ['\n'] }))).param,
    ).toBe('stop');
    expect(
      (
        await rejection(
          t.client.chat.completions.create({ model: 'x', messages, logit_bias: { '50256': -100 } }),
        )
      ).param,
    ).toBe('logit_bias');
    expect(
      (await rejection(t.client.chat.completions.create({ model: 'x', messages, logprobs: true }))).param,
    ).toBe('logprobs');
    const error = await fetch(`${t.url}/api/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
      body: JSON.stringify({ messages, stop: 'END' }),
    });
    expect(error.status).toBe(400);
    const envelope = (await error.json()) as { error: { message: string; type: string; param: string } };
    expect(envelope.error.param).toBe('stop');
    expect(envelope.error.type).toBe('invalid_request_error');
    expect(search.calls.length).toBe(before);
  });

  it('are accepted when they ask for nothing, and sampling settings are ignored; the answer has refusal null', async () => {
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages,
      response_format: { type: 'text' },
      stop: [],
      logit_bias: {},
      logprobs: false,
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      user: 'u1',
    });
    expect(completion.choices[0]?.message.content).toContain(keyPassage);
    expect(completion.choices[0]?.message.refusal).toBeNull();
    expect(Object.hasOwn(completion.choices[0]?.message ?? {}, 'refusal')).toBe(true);
  });
});

describe('an empty body', () => {
  it('is a 400 that says so, also with a JSON content type', async () => {
    const response = await fetch(`${t.url}/api/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
      body: '',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('the body is empty');
  });
});

describe('OpenAPI', () => {
  it('documents the request: content parts, developer, max_tokens, n', async () => {
    const response = await fetch(`${t.url}/openapi.json`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('"developer"');
    expect(text).toContain('max_completion_tokens');
    expect(text).toContain('ChatTextPart');
  });
});
