import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KeyProxy {
  /** `http://127.0.0.1:<port>` of the proxy. */
  url: string;
  /** Requests forwarded so far. */
  forwarded: number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy that adds one header (the API key) to every request and forwards it to
 * `target` otherwise unchanged: method, path, body and every header, Host and Origin included, so a
 * tool that knows nothing of API keys (the MCP conformance suite) can test what the server does with
 * the headers it chose. Responses, streamed ones too, come back as they are.
 */
export async function startKeyProxy(
  target: string,
  header: { name: string; value: string },
): Promise<KeyProxy> {
  const upstream = new URL(target);
  const state = { forwarded: 0 };
  const server: Server = createServer((incoming, outgoing) => {
    state.forwarded++;
    const upstreamRequest = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, [header.name]: header.value },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstreamRequest.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstreamRequest);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get forwarded() {
      return state.forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
