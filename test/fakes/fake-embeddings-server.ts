import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible `POST /v1/embeddings` on loopback. Vectors are hashed bags of words and word
 * pairs (so texts sharing words are close), deliberately NOT unit length and sent in reverse order
 * with their `index`, as a real server may. Scripted failures (`failNext`) and a delay exercise
 * retries and timeouts; every request is recorded.
 */
export interface FakeEmbeddingsServer {
  /** Base URL including `/v1`. */
  baseUrl: string;
  requests: RecordedEmbeddingsRequest[];
  /** Milliseconds every answer waits (to trigger client timeouts). */
  delayMs: number;
  /** The next `times` requests answer `status` with `headers` (e.g. retry-after) instead of vectors. */
  failNext(status: number, times?: number, headers?: Record<string, string>): void;
  /** The next request gets this raw JSON body with status 200 (malformed responses). */
  replyNextWith(body: unknown): void;
  close(): Promise<void>;
}

export interface RecordedEmbeddingsRequest {
  model: string;
  input: string[];
  dimensions: number | undefined;
  encodingFormat: string | undefined;
  authorization: string | undefined;
}

/** Vector length when the request asks for none. */
export const fakeEmbeddingDimensions = 64;

/** The fake's vector for `text` (length `dimensions`), not normalised. */
export function fakeEmbedding(text: string, dimensions = fakeEmbeddingDimensions): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const features = [...words, ...words.slice(1).map((word, index) => `${words[index]} ${word}`)];
  for (const feature of features) {
    const digest = createHash('sha256').update(feature).digest();
    const slot = digest.readUInt32LE(0) % dimensions;
    const sign = (digest[4] as number) % 2 === 0 ? 3 : -3;
    vector[slot] = (vector[slot] as number) + sign;
  }
  if (features.length === 0) vector[0] = 1;
  return vector;
}

export async function startFakeEmbeddingsServer(): Promise<FakeEmbeddingsServer> {
  const requests: RecordedEmbeddingsRequest[] = [];
  const failures: Array<{ status: number; headers: Record<string, string> }> = [];
  const replies: unknown[] = [];
  const state = { delayMs: 0 };

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !request.url?.endsWith('/embeddings')) {
      return send(response, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model: string;
      input: string | string[];
      dimensions?: number;
      encoding_format?: string;
    };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({
      model: body.model,
      input,
      dimensions: body.dimensions,
      encodingFormat: body.encoding_format,
      authorization: request.headers.authorization,
    });
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (response.destroyed) return;
    const failure = failures.shift();
    if (failure) {
      return send(
        response,
        failure.status,
        { error: { message: `scripted ${failure.status}` } },
        failure.headers,
      );
    }
    if (replies.length > 0) return send(response, 200, replies.shift());
    if (input.some((text) => text.length === 0)) {
      return send(response, 400, { error: { message: "'$.input' is invalid: empty string" } });
    }
    const data = input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: fakeEmbedding(text, body.dimensions ?? fakeEmbeddingDimensions),
    }));
    send(response, 200, {
      object: 'list',
      model: body.model,
      data: data.reverse(),
      usage: { prompt_tokens: input.length, total_tokens: input.length },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    failNext(status, times = 1, headers = {}) {
      for (let index = 0; index < times; index += 1) failures.push({ status, headers });
    },
    replyNextWith(body) {
      replies.push(body);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
