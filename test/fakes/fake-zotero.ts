import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received, as Zotero would have seen it. */
export interface RecordedZoteroRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** Fields Zotero accepts per item type (the subset our items may use). */
const validFields: Record<string, Set<string>> = {
  journalArticle: new Set(['publicationTitle']),
  conferencePaper: new Set(['proceedingsTitle']),
  preprint: new Set(['repository']),
};
const commonFields = new Set([
  'itemType',
  'title',
  'creators',
  'abstractNote',
  'date',
  'DOI',
  'url',
  'extra',
  'tags',
  'collections',
  'relations',
]);

export interface FakeZotero {
  baseUrl: string;
  requests: RecordedZoteroRequest[];
  /** Items stored per user id. */
  items: Map<string, Array<Record<string, unknown>>>;
  /** What the next POST gets instead of normal handling. */
  failNext(mode: { status: number; retryAfter?: number } | { hang: true }): void;
  close(): Promise<void>;
}

/**
 * A loopback stand-in for Zotero's web API v3 write endpoint (`POST /users/<id>/items`). It knows one
 * user and key, answers 403 for another key, 404 for another user, checks the API version header,
 * refuses fields that are invalid for the item type (as Zotero does, per item in `failed`), and
 * records every request.
 */
export async function startFakeZotero(account: { userId: string; apiKey: string }): Promise<FakeZotero> {
  const requests: RecordedZoteroRequest[] = [];
  const items = new Map<string, Array<Record<string, unknown>>>();
  let next: { status: number; retryAfter?: number } | { hang: true } | null = null;
  const hanging = new Set<ServerResponse>();

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // recorded as text
    }
    const path = request.url ?? '/';
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body });
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(typeof value === 'string' ? value : JSON.stringify(value));
    };

    if (next) {
      const mode = next;
      next = null;
      if ('hang' in mode) {
        hanging.add(response);
        return;
      }
      return send(
        mode.status,
        'Service unavailable',
        mode.retryAfter ? { 'retry-after': String(mode.retryAfter) } : {},
      );
    }
    const match = /^\/users\/([^/]+)\/items$/.exec(path);
    if (request.method !== 'POST' || !match) return send(404, 'Not found');
    if (request.headers['zotero-api-key'] !== account.apiKey) return send(403, 'Forbidden');
    if (match[1] !== account.userId) return send(404, 'Not found');
    if (request.headers['zotero-api-version'] !== '3') return send(400, 'Unsupported API version');
    if (!Array.isArray(body)) return send(400, 'Uploaded data must be a JSON array');

    const result = {
      successful: {} as Record<string, unknown>,
      success: {} as Record<string, string>,
      unchanged: {},
      failed: {} as Record<string, unknown>,
    };
    body.forEach((item: Record<string, unknown>, index) => {
      const allowed = validFields[String(item.itemType)];
      const invalidField = Object.keys(item).find(
        (field) => !commonFields.has(field) && !allowed?.has(field),
      );
      if (!allowed || invalidField) {
        result.failed[String(index)] = {
          key: '',
          code: 400,
          message: allowed
            ? `'${invalidField}' is not a valid field for type '${String(item.itemType)}'`
            : `'${String(item.itemType)}' is not a valid item type`,
        };
        return;
      }
      const key = randomBytes(4).toString('hex').toUpperCase();
      const stored = items.get(account.userId) ?? [];
      stored.push({ ...item, key });
      items.set(account.userId, stored);
      result.successful[String(index)] = { key, version: stored.length, data: { ...item, key } };
      result.success[String(index)] = key;
    });
    send(200, result);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    items,
    failNext(mode) {
      next = mode;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
