import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible server on loopback. Each `POST /v1/chat/completions` plays the next
 * turn of the script: text deltas, tool calls (arguments split into fragments, as real servers send
 * them), an HTTP error, an error frame in the middle of the stream, or a hang. It records every
 * request body so tests can check what the agent sent (tools, fenced paper text, tool results).
 */
export type FakeTurn =
  | { text: string | string[]; promptTokens?: number; completionTokens?: number; pieceDelayMs?: number }
  | { toolCalls: Array<{ name: string; arguments: unknown; id?: string }>; text?: string }
  | { status: number; message?: string }
  | { streamError: string; textBefore?: string }
  | { hang: true }
  /** A streamed request answered by the stream's headers and nothing else (llama-cpp-python 0.3.16 with tools). */
  | { emptyStream: true };

export type FakeScript = FakeTurn[] | ((request: RecordedChatRequest, index: number) => FakeTurn);

export interface RecordedChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  stream?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  authorization: string | undefined;
}

export interface FakeOpenAiServer {
  /** Base URL including `/v1`, as an OpenAI client wants it. */
  baseUrl: string;
  requests: RecordedChatRequest[];
  /** Requests whose client went away before the response ended (aborts reach upstream). */
  abortedRequests: number;
  /** Most chat requests in flight at once so far. */
  maxConcurrent: number;
  /** Milliseconds every turn waits before answering (to observe concurrency). */
  delayMs: number;
  /** Replaces the script (and restarts it from the first turn). */
  setScript(script: FakeScript): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(initial: FakeScript = []): Promise<FakeOpenAiServer> {
  let script = initial;
  let turnIndex = 0;
  const requests: RecordedChatRequest[] = [];
  const open = new Set<ServerResponse>();
  const state = { abortedRequests: 0, active: 0, maxConcurrent: 0, delayMs: 0 };

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      return json(response, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model' }] });
    }
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      return json(response, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    const parsed = JSON.parse(body) as RecordedChatRequest;
    const recorded = { ...parsed, authorization: request.headers.authorization };
    requests.push(recorded);
    const turn = typeof script === 'function' ? script(recorded, turnIndex) : script[turnIndex];
    turnIndex += 1;
    open.add(response);
    state.active += 1;
    state.maxConcurrent = Math.max(state.maxConcurrent, state.active);
    response.on('close', () => {
      open.delete(response);
      state.active -= 1;
      if (!response.writableFinished) state.abortedRequests += 1;
    });
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (!turn) return json(response, 500, { error: { message: 'script exhausted', type: 'server_error' } });
    await play(turn, parsed, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get abortedRequests() {
      return state.abortedRequests;
    },
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    setScript(next) {
      script = next;
      turnIndex = 0;
    },
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function play(turn: FakeTurn, request: RecordedChatRequest, response: ServerResponse): Promise<void> {
  if ('hang' in turn) return; // never answers; the client's abort or deadline ends it
  if ('emptyStream' in turn && request.stream) {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    response.end();
    return;
  }
  if ('emptyStream' in turn)
    return json(response, 500, { error: { message: 'emptyStream asked unstreamed' } });
  if ('status' in turn) {
    return json(response, turn.status, {
      error: { message: turn.message ?? `fake error ${turn.status}`, type: 'server_error', code: null },
    });
  }
  const id = `chatcmpl-fake${Math.random().toString(36).slice(2, 8)}`;
  const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model };
  const pieces = 'text' in turn && turn.text !== undefined ? splitText(turn.text) : [];
  const usage = {
    prompt_tokens: ('promptTokens' in turn && turn.promptTokens) || 100,
    completion_tokens: ('completionTokens' in turn && turn.completionTokens) || 20,
  };
  const toolCalls =
    'toolCalls' in turn
      ? turn.toolCalls.map((call, index) => ({
          id: call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 6)}`,
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        }))
      : [];

  if (!request.stream) {
    const content = pieces.join('');
    return json(response, 200, {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: content || null,
            ...(toolCalls.length
              ? {
                  tool_calls: toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
  const delta = (value: Record<string, unknown>, finish: string | null = null) =>
    send({ ...base, choices: [{ index: 0, delta: value, finish_reason: finish }] });
  delta({ role: 'assistant', content: '' });
  if ('streamError' in turn) {
    if (turn.textBefore) delta({ content: turn.textBefore });
    send({ error: { message: turn.streamError, type: 'server_error' } });
    response.end();
    return;
  }
  const pieceDelayMs = 'pieceDelayMs' in turn ? (turn.pieceDelayMs ?? 0) : 0;
  for (const piece of pieces) {
    if (response.destroyed) return;
    delta({ content: piece });
    await (pieceDelayMs > 0 ? new Promise((resolve) => setTimeout(resolve, pieceDelayMs)) : tick());
  }
  for (const [index, call] of toolCalls.entries()) {
    // Name and id first, then the arguments in three fragments.
    delta({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    const third = Math.ceil(call.arguments.length / 3);
    for (let start = 0; start < call.arguments.length; start += third) {
      delta({ tool_calls: [{ index, function: { arguments: call.arguments.slice(start, start + third) } }] });
    }
  }
  delta({}, toolCalls.length ? 'tool_calls' : 'stop');
  send({
    ...base,
    choices: [],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
  response.write('data: [DONE]\n\n');
  response.end();
}

function splitText(text: string | string[]): string[] {
  if (Array.isArray(text)) return text;
  return text.match(/[\s\S]{1,12}/g) ?? [];
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}
