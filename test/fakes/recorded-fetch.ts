import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fixtures } from '../helpers/requirements.js';

/** One recorded upstream HTTP exchange (a flattened VCR cassette entry, see shared/data/README.md). */
export interface Interaction {
  api: string;
  cassette: string;
  method: string;
  uri: string;
  status: number;
  content_type: string | null;
  response_headers: Record<string, string[]>;
  body: string | null;
  body_encoding: string;
}

export interface CannedResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * Where the recorded upstream responses live: test/fixtures/upstream, the part of the shared data's
 * recordings the tests use (licences in test/fixtures/LICENSES.md), so they travel with the code.
 */
export const upstreamData = join(fixtures, 'upstream');

const interactionCache = new Map<string, Interaction[]>();

/** Every recorded interaction of one API (`openalex`, `semantic_scholar`, `crossref`, `unpaywall`). */
export function loadInteractions(api: string): Interaction[] {
  let interactions = interactionCache.get(api);
  if (!interactions) {
    interactions = readFileSync(join(upstreamData, api, 'interactions.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim().length > 0)
      .map((line) => JSON.parse(line) as Interaction);
    interactionCache.set(api, interactions);
  }
  return interactions;
}

/** The first recorded interaction of `api` whose request URI matches; throws when there is none. */
export function recorded(api: string, uriPart: string | RegExp, status?: number): CannedResponse {
  const found = loadInteractions(api).find(
    (item) =>
      (typeof uriPart === 'string' ? item.uri.includes(uriPart) : uriPart.test(item.uri)) &&
      (status === undefined || item.status === status),
  );
  if (!found) throw new Error(`no ${api} recording matches ${uriPart}`);
  const body =
    found.body_encoding === 'base64'
      ? Buffer.from(found.body ?? '', 'base64').toString('utf8')
      : (found.body ?? '');
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(found.response_headers ?? {})) {
    if (values[0] !== undefined) headers[name.toLowerCase()] = values[0];
  }
  return { status: found.status, body, headers };
}

/** A recorded raw response file under `upstream/<path>` (gunzipped when it ends in .gz). */
export function recordedFile(path: string, status = 200, contentType?: string): CannedResponse {
  const bytes = readFileSync(join(upstreamData, path));
  const body = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return { status, body, headers: contentType ? { 'content-type': contentType } : {} };
}

/** An arXiv recording of arxiv.py's `{url, status_code, body}` wrapper format. */
export function recordedArxiv(name: string): CannedResponse & { url: string } {
  const wrapper = JSON.parse(
    readFileSync(join(upstreamData, 'arxiv/responses/arxiv.py_2026', name), 'utf8'),
  ) as {
    url: string;
    status_code: number;
    body: string;
  };
  return {
    url: wrapper.url,
    status: wrapper.status_code,
    body: wrapper.body,
    headers: { 'content-type': 'application/atom+xml' },
  };
}

export interface Route {
  match: RegExp | ((url: URL) => boolean);
  respond: CannedResponse | ((url: URL) => CannedResponse | Promise<CannedResponse>);
}

export type ReplayFetch = ((input: string, init?: RequestInit) => Promise<Response>) & {
  /** Every URL requested, in order. */
  calls: string[];
  /** Headers of every request, in order. */
  headers: Array<Record<string, string>>;
};

/**
 * A fetch that answers from recordings and never touches the network: the first route whose
 * pattern matches the URL answers; an unmatched URL throws (like undici's disableNetConnect).
 */
export function replayFetch(routes: Route[]): ReplayFetch {
  const calls: string[] = [];
  const headers: Array<Record<string, string>> = [];
  const fake = async (input: string, init?: RequestInit): Promise<Response> => {
    calls.push(input);
    headers.push(Object.fromEntries(new Headers(init?.headers).entries()));
    if (init?.signal?.aborted) throw init.signal.reason;
    const url = new URL(input);
    const route = routes.find((candidate) =>
      candidate.match instanceof RegExp
        ? candidate.match.test(decodeURIComponent(input))
        : candidate.match(url),
    );
    if (!route) throw new TypeError(`fetch failed: no recording for ${input}`);
    const canned = typeof route.respond === 'function' ? await route.respond(url) : route.respond;
    return new Response(canned.status === 204 ? null : canned.body, {
      status: canned.status,
      headers: canned.headers ?? {},
    });
  };
  return Object.assign(fake, { calls, headers });
}
