import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a fresh loopback connection: the request target goes
 * on the request line exactly as given (percent-encoding, dot segments, `//`, absolute form), which
 * no HTTP client library leaves alone. Reads until the server closes (the request says
 * `Connection: close`) or `timeoutMs` passes.
 */
export function rawRequest(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    ...options.headers,
  };
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${method} ${target} within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    socket.on('connect', () => socket.write(head + (options.body ?? '')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parseResponse(Buffer.concat(chunks).toString('latin1'));
      if (parsed) resolve(parsed);
      else reject(new Error(`no HTTP response to ${method} ${target}`));
    });
  });
}

/** The status, headers and (undecoded) body of the first response in `text`. */
export function parseResponse(text: string): RawResponse | undefined {
  const headEnd = text.indexOf('\r\n\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (!match?.[1] || headEnd === -1) return undefined;
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, headEnd).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers, body: text.slice(headEnd + 4) };
}
