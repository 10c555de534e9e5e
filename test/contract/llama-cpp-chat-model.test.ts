import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actionSchema, parseAction, toHistory } from '../../src/adapters/chat/llama-cpp-actions.js';
import { LlamaCppChatModel } from '../../src/adapters/chat/llama-cpp-chat-model.js';
import { chatModelDir, localChatModelFiles } from '../../src/config/sections/chat.js';
import type {
  ChatModel,
  ChatStreamEvent,
  ChatToolDefinition,
  ChatTurnRequest,
} from '../../src/ports/chat-model.js';

/**
 * The local chat model adapter on a real GGUF model: SmolLM2-135M-Instruct, which
 * `node scripts/setup-model.mjs` (run by `npm test`) always installs. The model is too small to
 * answer well; these tests hold the adapter's contract: streaming, constrained actions that parse
 * and fit the tool's schema, aborts and deadlines, the queue of turns.
 */
const modelPath = join(chatModelDir(), localChatModelFiles['smollm2-135m']);

const searchArguments = z
  .object({
    keywords: z.string().min(1).max(300).describe('2-6 specific English keywords.').optional(),
    start_year: z.number().int().optional().describe('First publication year, inclusive.'),
    sort: z.enum(['relevance', 'cited_by_count', 'publication_date']).optional(),
  })
  .strict();
const askArguments = z
  .object({
    pdf_id: z.string().min(1).max(2000).describe('The pdf_id of a record.'),
    question: z.string().min(1).max(1000).describe('The question, in English.'),
  })
  .strict();
const schemas: Record<string, z.ZodObject> = { search_papers: searchArguments, ask_pdf: askArguments };
const tools: ChatToolDefinition[] = Object.entries(schemas).map(([name, schema]) => {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
  return { name, description: `The ${name.replace('_', ' ')} tool.`, parameters };
});

async function collect(model: ChatModel, request: ChatTurnRequest): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of model.stream(request)) events.push(event);
  return events;
}

/** The text a turn streamed. */
function replyText(events: ChatStreamEvent[]): string {
  return events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');
}

describe('the local chat model (llama.cpp, SmolLM2-135M)', () => {
  let model: LlamaCppChatModel;
  beforeAll(async () => {
    expect(existsSync(modelPath), `${modelPath} (run node scripts/setup-model.mjs)`).toBe(true);
    model = new LlamaCppChatModel({
      modelPath,
      threads: 1,
      contextTokens: 2048,
      timeoutMs: 30_000,
      temperature: 0,
    });
    await model.load();
  });
  afterAll(async () => {
    await model.close();
  });

  it('streams text in several pieces, then one finish with counted (not estimated) tokens', async () => {
    const events = await collect(model, {
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Name three planets of the solar system.' },
      ],
      maxTokens: 24,
    });
    const texts = events.filter((event) => event.type === 'text');
    expect(texts.length).toBeGreaterThan(2);
    expect(
      texts
        .map((event) => event.text)
        .join('')
        .trim().length,
    ).toBeGreaterThan(5);
    const finishes = events.filter((event) => event.type === 'finish');
    expect(finishes).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', usageEstimated: false });
    const finish = events.at(-1) as Extract<ChatStreamEvent, { type: 'finish' }>;
    expect(['stop', 'length']).toContain(finish.reason);
    expect(finish.usage.promptTokens).toBeGreaterThan(10);
    expect(finish.usage.completionTokens).toBeGreaterThan(2);
    expect(finish.usage.completionTokens).toBeLessThanOrEqual(24);
  });

  it('replies with exactly one of the choices under a grammar, after tool steps too', async () => {
    const steps = [
      { role: 'system' as const, content: 'You are a research assistant.' },
      { role: 'user' as const, content: 'Does smoking cause lung cancer?' },
      {
        role: 'assistant' as const,
        content: null,
        toolCalls: [{ id: 'c1', name: 'search_papers', arguments: '{"keywords":"smoking lung cancer"}' }],
      },
      {
        role: 'tool' as const,
        toolCallId: 'c1',
        content: 'Smoking raised lung cancer risk 20-fold in a cohort.',
      },
    ];
    for (const messages of [
      steps.slice(0, 2),
      [...steps, { role: 'system' as const, content: 'Reply with one word: yes, no or maybe.' }],
    ]) {
      const events = await collect(model, { messages, choices: ['yes', 'no', 'maybe'], maxTokens: 8 });
      const reply = replyText(events);
      expect(['yes', 'no', 'maybe']).toContain(reply);
      const finish = events.at(-1);
      expect(finish).toMatchObject({ type: 'finish', reason: 'stop' });
      // The choices' probabilities: one per choice, adding up to 1, the reply the most probable.
      const probabilities = finish?.type === 'finish' ? finish.choiceProbabilities : undefined;
      expect(Object.keys(probabilities ?? {}).sort()).toEqual(['maybe', 'no', 'yes']);
      const values = Object.values(probabilities ?? {});
      expect(values.reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 6);
      expect(probabilities?.[reply]).toBe(Math.max(...values));
    }
  });

  it('writes on after a choice turn from the state it left, and samples under the grammar when choices share a first token', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are a research assistant.' },
      { role: 'user' as const, content: 'Is the sky blue? Reply with one word: yes, no or maybe.' },
    ];
    const choice = await collect(model, { messages, choices: ['yes', 'no', 'maybe'], maxTokens: 8 });
    const word = replyText(choice);
    // The next turn extends the exchange: the sequence evaluated by the choice turn is reused or
    // realigned, and the model writes text.
    const next = await collect(model, {
      messages: [
        ...messages,
        { role: 'assistant', content: word },
        { role: 'user', content: 'Why? One sentence.' },
      ],
      maxTokens: 24,
    });
    const text = replyText(next);
    expect(text.trim().length).toBeGreaterThan(0);
    expect(next.at(-1)).toMatchObject({ type: 'finish' });
    // "yes" and "yes indeed" start with the same token: no probabilities, one of them under the grammar.
    const shared = await collect(model, { messages, choices: ['yes', 'yes indeed'], maxTokens: 8 });
    const sharedReply = replyText(shared);
    expect(['yes', 'yes indeed']).toContain(sharedReply);
    const sharedFinish = shared.at(-1);
    expect(sharedFinish?.type === 'finish' ? sharedFinish.choiceProbabilities : 'none').toBeUndefined();
  });

  it('runs an isolated turn on a sequence of its own: the conversation keeps what it evaluated', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are a research assistant.' },
      { role: 'user' as const, content: 'Name one planet of the solar system.' },
    ];
    await collect(model, { messages, maxTokens: 12, temperature: 0 });
    const before = await model.heldTokens();
    expect(before.conversation).toBeGreaterThan(10);
    const side = [
      { role: 'system' as const, content: 'Classify the statement.' },
      { role: 'user' as const, content: 'Statement: water is wet. Reply yes, no or maybe.' },
    ];
    const isolated = await collect(model, {
      messages: side,
      choices: ['yes', 'no', 'maybe'],
      maxTokens: 4,
      isolated: true,
    });
    const finish = isolated.at(-1);
    const probabilities = finish?.type === 'finish' ? finish.choiceProbabilities : undefined;
    expect(Object.keys(probabilities ?? {}).sort()).toEqual(['maybe', 'no', 'yes']);
    const after = await model.heldTokens();
    // The conversation's sequence is untouched; the side turn's tokens are in the other one.
    expect(after.conversation).toBe(before.conversation);
    expect(after.isolated).toBeGreaterThan(10);
    // The same side turn in the conversation's sequence gives the same probabilities.
    const inline = await collect(model, { messages: side, choices: ['yes', 'no', 'maybe'], maxTokens: 4 });
    const inlineFinish = inline.at(-1);
    const inlineProbabilities =
      inlineFinish?.type === 'finish' ? inlineFinish.choiceProbabilities : undefined;
    for (const word of ['yes', 'no', 'maybe'])
      expect(inlineProbabilities?.[word]).toBeCloseTo(probabilities?.[word] ?? Number.NaN, 2);
    expect((await model.heldTokens()).conversation).not.toBe(before.conversation);
  });

  it('never opens an answer after tool steps with a JSON object (the action protocol echoed)', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are a research assistant.' },
      { role: 'user' as const, content: 'How many people took part in the manikin study?' },
      {
        role: 'assistant' as const,
        content: null,
        toolCalls: [{ id: 'c1', name: 'search_papers', arguments: '{"keywords":"manikin laypersons"}' }],
      },
      {
        role: 'tool' as const,
        toolCallId: 'c1',
        content: '150 laypersons inserted the device in a manikin.',
      },
      {
        role: 'assistant' as const,
        content: null,
        toolCalls: [{ id: 'c2', name: 'ask_pdf', arguments: '{"pdf_id":"S1","question":"How many?"}' }],
      },
      { role: 'tool' as const, toolCallId: 'c2', content: 'No full text here. Answer the question now.' },
      { role: 'system' as const, content: 'The research budget is used up. Answer now. Do not call tools.' },
    ];
    // First a step with tools, so that the adapter's protocol is the one of this conversation.
    await collect(model, { messages: messages.slice(0, 2), tools, maxTokens: 40 });
    for (const maxTokens of [6, 30]) {
      const events = await collect(model, { messages, maxTokens });
      const reply = replyText(events);
      expect(reply.trimStart().startsWith('{')).toBe(false);
      expect(reply.trimStart().startsWith('```')).toBe(false);
    }
  });

  it('honours maxTokens with finish reason "length"', async () => {
    const events = await collect(model, {
      messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper and the sea.' }],
      maxTokens: 8,
    });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'length', usage: { completionTokens: 8 } });
  });

  it('answers a step with tools by one constrained action: a tool call whose arguments fit its schema', async () => {
    const questions = [
      'Find papers about transformer models for protein structure prediction.',
      'Search for recent studies on CRISPR off-target effects.',
      'Look up publications on glucokinase activators in type 2 diabetes.',
    ];
    let calls = 0;
    for (const question of questions) {
      const events = await collect(model, {
        messages: [
          {
            role: 'system',
            content: 'You are a research assistant. Always search the literature before answering.',
          },
          { role: 'user', content: question },
        ],
        tools,
        maxTokens: 300,
      });
      const call = events.find((event) => event.type === 'tool_call');
      const finish = events.at(-1);
      if (call?.type === 'tool_call') {
        calls += 1;
        // Exactly one call, nothing written, and arguments the agent's tool accepts as they are.
        expect(events.filter((event) => event.type === 'tool_call')).toHaveLength(1);
        expect(events.some((event) => event.type === 'text')).toBe(false);
        expect(finish).toMatchObject({ type: 'finish', reason: 'tool_calls' });
        const schema = schemas[call.call.name];
        expect(schema, call.call.name).toBeDefined();
        expect(() => schema?.parse(JSON.parse(call.call.arguments))).not.toThrow();
        expect(call.call.id).toMatch(/^call_/);
      } else {
        // The model chose "answer": its answer follows as text in the same turn.
        expect(finish).toMatchObject({ type: 'finish' });
        expect(events.some((event) => event.type === 'text')).toBe(true);
      }
    }
    expect(calls).toBeGreaterThan(0);
  });

  it('stops generating when the caller aborts, throws the reason, and serves the next turn', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    const seen: string[] = [];
    const started = Date.now();
    const failure = await (async () => {
      for await (const event of model.stream({
        messages: [{ role: 'user', content: 'Write a very long story about a lighthouse keeper.' }],
        maxTokens: 1500,
        signal: controller.signal,
      })) {
        if (event.type === 'text') {
          seen.push(event.text);
          if (seen.length === 3) controller.abort(reason);
        }
      }
    })().catch((error) => error);
    expect(failure).toBe(reason);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThan(40);
    expect(Date.now() - started).toBeLessThan(20_000);
    const next = await collect(model, { messages: [{ role: 'user', content: 'Say hello.' }], maxTokens: 4 });
    expect(next.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('fails with a timeout when the deadline falls mid-generation', async () => {
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of model.stream({
        messages: [{ role: 'user', content: 'Write a very long story about a lighthouse keeper.' }],
        maxTokens: 1500,
        timeoutMs: 400,
      })) {
        if (event.type === 'text') seen.push(event.text);
      }
    })().catch((error) => error);
    expect(failure).toMatchObject({ code: 'timeout' });
  });

  it('runs turns one at a time and releases the model when a reader stops early', async () => {
    const long = {
      messages: [{ role: 'user' as const, content: 'Count from one to fifty in words.' }],
      maxTokens: 200,
    };
    for await (const event of model.stream(long)) {
      if (event.type === 'text') break; // the reader leaves after the first piece
    }
    const [a, b] = await Promise.all([
      collect(model, { messages: [{ role: 'user', content: 'Say yes.' }], maxTokens: 3 }),
      collect(model, { messages: [{ role: 'user', content: 'Say no.' }], maxTokens: 3 }),
    ]);
    expect(a.at(-1)).toMatchObject({ type: 'finish' });
    expect(b.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('fails a missing model file as upstream_unavailable, not a crash', async () => {
    const missing = new LlamaCppChatModel({
      modelPath: join(modelPath, '..', 'no-such-model.gguf'),
      threads: 1,
      contextTokens: 512,
      timeoutMs: 5000,
    });
    const failure = await collect(missing, { messages: [{ role: 'user', content: 'Q' }] }).catch(
      (error) => error,
    );
    expect(failure).toMatchObject({ code: 'upstream_unavailable' });
    await missing.close();
  });
});

describe('constrained actions', () => {
  it('offers each tool with its arguments (optional ones nullable) and "answer"', () => {
    const schema = actionSchema(tools) as { oneOf: Array<{ properties: Record<string, unknown> }> };
    expect(schema.oneOf.map((variant) => variant.properties.action)).toEqual([
      { const: 'search_papers' },
      { const: 'ask_pdf' },
      { const: 'answer' },
    ]);
    expect(schema.oneOf[0]?.properties.keywords).toEqual({
      oneOf: [{ type: 'string', maxLength: 300, minLength: 1 }, { type: 'null' }],
    });
    expect(schema.oneOf[0]?.properties.sort).toEqual({
      oneOf: [{ enum: ['relevance', 'cited_by_count', 'publication_date'] }, { type: 'null' }],
    });
    expect(schema.oneOf[1]?.properties.pdf_id).toEqual({ type: 'string', maxLength: 300, minLength: 1 });
  });

  it('maps an action to a tool call without its null arguments, and rejects what it cannot map', () => {
    const parsed = parseAction(
      '{"action":"search_papers","keywords":"crispr","start_year":null,"sort":null}',
      tools,
    );
    expect(parsed).toMatchObject({
      kind: 'call',
      call: { name: 'search_papers', arguments: '{"keywords":"crispr"}' },
    });
    expect(parseAction('{"action":"answer"}', tools)).toEqual({ kind: 'answer' });
    expect(parseAction('{"action":"delete_everything"}', tools)).toBeUndefined();
    expect(parseAction('{"action":"search_papers","keywords":"cut', tools)).toBeUndefined();
  });

  it('renders a run as chat history: tool results as user turns naming the tool, calls as JSON actions', () => {
    const history = toHistory(
      [
        { role: 'system', content: 'Be careful.' },
        { role: 'user', content: 'Q?' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'c1', name: 'search_papers', arguments: '{"keywords":"x"}' }],
        },
        { role: 'tool', toolCallId: 'c1', content: 'three records' },
        { role: 'system', content: 'Answer now.' },
      ],
      tools,
    );
    expect(history.map((item) => item.type)).toEqual(['system', 'user', 'model', 'user', 'model']);
    expect(history[0]).toMatchObject({ type: 'system' });
    // The protocol first (the same in every run), the agent's instructions (ending with the run's
    // fence nonce) after it: a new run reuses the evaluated protocol.
    expect((history[0] as { text: string }).text).toMatch(/^## Actions\n[\s\S]*\n\nBe careful\.$/);
    expect(history[2]).toEqual({ type: 'model', response: ['{"action":"search_papers","keywords":"x"}'] });
    expect(history[3]).toEqual({
      type: 'user',
      text: 'Result of search_papers:\nthree records\n\nAnswer now.',
    });
    expect(history[4]).toEqual({ type: 'model', response: [] });
  });

  it('renders an answer turn after tool steps with the answer action right after the last result', () => {
    const history = toHistory(
      [
        { role: 'user', content: 'Q?' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'c1', name: 'search_papers', arguments: '{"keywords":"x"}' }],
        },
        { role: 'tool', toolCallId: 'c1', content: 'three records' },
        { role: 'system', content: 'Decide: yes, no or maybe?' },
        { role: 'assistant', content: 'yes' },
        { role: 'system', content: 'Now explain.' },
      ],
      tools,
      { answerAfterCalls: true },
    );
    expect(history.slice(1)).toEqual([
      { type: 'user', text: 'Q?' },
      { type: 'model', response: ['{"action":"search_papers","keywords":"x"}'] },
      { type: 'user', text: 'Result of search_papers:\nthree records' },
      { type: 'model', response: ['{"action": "answer"}'] },
      { type: 'user', text: 'Decide: yes, no or maybe?' },
      { type: 'model', response: ['yes'] },
      { type: 'user', text: 'Now explain.' },
      { type: 'model', response: [] },
    ]);
  });
});
