import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat request as it crossed the wire between the adapter and the server. */
export interface WireExchange {
  streamed: boolean;
  offeredTools: boolean;
  status: number;
  /** The response carried tool calls (a delta's or a message's `tool_calls`). */
  toolCalls: boolean;
  /** The response carried a `usage` object with numbers. */
  usage: boolean;
  /** `data:` frames of a streamed response. */
  frames: number;
  ms: number;
}

export interface ChatWireRecorder {
  /** Base URL (with `/v1`) to give the adapter in place of the server's. */
  baseUrl: string;
  exchanges: WireExchange[];
  close(): Promise<void>;
}

/**
 * A loopback pass-through in front of an OpenAI-compatible server that notes, per chat request, what
 * the server did with it: streamed or not, tools offered, status, tool calls and usage in the answer
 * (decision 0060's figures). Bodies pass unchanged; responses are forwarded as they arrive.
 */
export async function startChatWireRecorder(
  upstreamBaseUrl: string,
  logFile?: string,
): Promise<ChatWireRecorder> {
  const upstream = new URL(upstreamBaseUrl.endsWith('/') ? upstreamBaseUrl : `${upstreamBaseUrl}/`);
  const exchanges: WireExchange[] = [];
  const server = createServer((request, response) => {
    // A connection the server or the client cuts ends this exchange, never the process.
    relay(request, response).catch(() => response.destroy());
  });
  const relay = async (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    // The adapter's abort (a deadline) reaches the server as a closed connection.
    const upstreamAbort = new AbortController();
    response.on('close', () => upstreamAbort.abort());
    const body = await readBody(request);
    let sent: { stream?: boolean; tools?: unknown[] } = {};
    try {
      sent = body.length ? (JSON.parse(body.toString('utf8')) as typeof sent) : {};
    } catch {
      // not JSON: forwarded as is
    }
    const path = (request.url ?? '/').replace(/^\/v1\//, '');
    const answer = await fetch(new URL(path, upstream), {
      method: request.method ?? 'GET',
      headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
      ...(body.length ? { body: new Uint8Array(body) } : {}),
      signal: upstreamAbort.signal,
    }).catch((error: unknown) => error as Error);
    if (answer instanceof Error) {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: answer.message } }));
      return;
    }
    response.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    let text = '';
    let status = answer.status;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of answer.body ?? []) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        response.write(chunk);
      }
      response.end();
    } catch {
      // Cut mid-answer (the adapter's deadline, or the server closed): recorded as status 0.
      status = 0;
      response.destroy();
    }
    if (!request.url?.endsWith('/chat/completions')) return;
    const exchange: WireExchange = {
      streamed: sent.stream === true,
      offeredTools: Array.isArray(sent.tools) && sent.tools.length > 0,
      status,
      toolCalls: /"tool_calls"\s*:\s*\[\s*\{/.test(text),
      usage: /"usage"\s*:\s*\{[^}]*"prompt_tokens"\s*:\s*\d/.test(text),
      frames: (text.match(/^data: /gm) ?? []).length,
      ms: performance.now() - started,
    };
    exchanges.push(exchange);
    if (logFile) appendFileSync(logFile, `${JSON.stringify(exchange)}\n`);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    exchanges,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** "12 requests: 8 streamed (8 with usage), …": what the wire carried, in one line. */
export function wireLine(exchanges: WireExchange[]): string {
  const count = (test: (exchange: WireExchange) => boolean) => exchanges.filter(test).length;
  const streamed = exchanges.filter((exchange) => exchange.streamed);
  const whole = exchanges.filter((exchange) => !exchange.streamed);
  return [
    `${exchanges.length} chat requests`,
    `streamed ${streamed.length} (HTTP 200 ${count((e) => e.streamed && e.status === 200)}, with tools offered ${count((e) => e.streamed && e.offeredTools)}, refused ${count((e) => e.streamed && e.status >= 400)}, usage in the stream ${count((e) => e.streamed && e.usage)}, tool calls in the stream ${count((e) => e.streamed && e.toolCalls)}, median ${median(streamed.map((e) => e.frames))} frames)`,
    `cut mid-answer ${count((e) => e.status === 0)}`,
    `unstreamed ${whole.length} (HTTP 200 ${count((e) => !e.streamed && e.status === 200)}, with tools offered ${count((e) => !e.streamed && e.offeredTools)}, tool calls ${count((e) => !e.streamed && e.toolCalls)}, usage ${count((e) => !e.streamed && e.usage)})`,
  ].join('; ');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts)));
    request.on('error', reject);
  });
}
