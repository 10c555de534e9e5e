import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/load-config.js';
import { localUrlOf, publicUrlOf, withRequestOrigin } from '../config/public-url.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The base URL this request reached the service at, without a trailing slash (see publicOriginOf). */
    publicUrl: string;
  }
}

/**
 * A syntactically valid `host[:port]`: DNS labels (letters, digits, `-`, `_`), an IPv4 address or a
 * bracketed IPv6 address, then an optional port. Anything else (spaces, `/`, `@`, quotes, markdown)
 * never reaches a link.
 */
const hostPattern = /^(?:\[[0-9a-f:.]{2,45}\]|[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*)(?::\d{1,5})?$/i;

/**
 * `proto://host` as a normalised origin (lower case, default port dropped), or undefined when the
 * scheme is not http(s) or the host is not a valid `host[:port]`.
 */
export function originFrom(proto: string | undefined, host: string | undefined): string | undefined {
  if (proto === undefined || host === undefined) return undefined;
  // Clients send the same few hosts all day: each pair is checked and normalised once (decision 0053).
  const id = `${proto}\u0000${host}`;
  const known = recentOrigins.get(id);
  if (known !== undefined) return known === '' ? undefined : known;
  const origin = checkedOrigin(proto, host);
  if (id.length > 300) return origin;
  if (recentOrigins.size >= recentOriginsLimit) recentOrigins.clear();
  recentOrigins.set(id, origin ?? '');
  return origin;
}

/** Origins already worked out, by scheme and Host ('' for a pair that is none); cleared when full. */
const recentOrigins = new Map<string, string>();
const recentOriginsLimit = 256;

function checkedOrigin(proto: string, host: string): string | undefined {
  const scheme = proto.trim().toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const authority = host.trim();
  if (authority.length > 261 || !hostPattern.test(authority)) return undefined;
  try {
    return new URL(`${scheme}://${authority}/`).origin;
  } catch {
    return undefined;
  }
}

/**
 * The `host` and `proto` of the last element of an RFC 7239 `Forwarded` header: the one the proxy
 * nearest to us wrote (earlier elements may come from the client). Values may be quoted strings.
 */
export function forwardedHeaderParts(header: string | undefined): { host?: string; proto?: string } {
  if (header === undefined) return {};
  const last = splitOutsideQuotes(header, ',').at(-1) ?? '';
  const parts: { host?: string; proto?: string } = {};
  for (const pair of splitOutsideQuotes(last, ';')) {
    const equals = pair.indexOf('=');
    if (equals === -1) continue;
    const name = pair.slice(0, equals).trim().toLowerCase();
    const value = unquote(pair.slice(equals + 1).trim());
    if (name === 'host' || name === 'proto') parts[name] = value;
  }
  return parts;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (quoted && character === '\\') {
      current += character + (text[index + 1] ?? '');
      index++;
      continue;
    }
    if (character === '"') quoted = !quoted;
    if (character === separator && !quoted) {
      pieces.push(current);
      current = '';
    } else current += character;
  }
  pieces.push(current);
  return pieces;
}

function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The base URL a request reached the service at: `ALEXANDRIA_PUBLIC_URL` when configured; else its
 * scheme and Host; behind a trusted proxy (`ALEXANDRIA_TRUST_PROXY`), the proxy's `Forwarded`
 * host/proto, else its `X-Forwarded-Host`/`X-Forwarded-Proto` (Fastify's `request.host` and
 * `request.protocol` read those only when the proxy is trusted). A host that is not a valid
 * `host[:port]` falls back to `http://localhost:<port>`, so a hostile Host never reaches a link.
 */
export function publicOriginOf(request: FastifyRequest, config: Config): string {
  if (config.server.publicUrl !== undefined) return publicUrlOf(config);
  const forwarded = config.server.trustProxy
    ? forwardedHeaderParts(headerText(request.headers.forwarded))
    : {};
  const origin = originFrom(forwarded.proto ?? request.protocol, forwarded.host ?? request.host);
  return origin ?? localUrlOf(config);
}

/**
 * Gives every request its `publicUrl`, and runs its handler with that origin in scope, so links
 * built by services while serving it (figure links, chunk links) point where the client came from.
 * The scope is entered in `preHandler`, whose `done` runs the handler: entered right before it, it
 * does not depend on how the body was read (stream events may run in another async context).
 */
export function installPublicOrigin(app: FastifyInstance, config: Config): void {
  app.decorateRequest('publicUrl', '');
  app.addHook('onRequest', (request, _reply, done) => {
    request.publicUrl = publicOriginOf(request, config);
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => withRequestOrigin(request.publicUrl, done));
}

/** Headers a public origin is read from: a response that names it varies by them. */
const originHeaders = ['host', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded'];

/** Adds the origin headers to `Vary` (keeping what CORS put there), so no cache serves one host's links to another. */
export function varyByOrigin(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const listed = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const known = new Set(listed.map((name) => name.toLowerCase()));
  reply.header('vary', [...listed, ...originHeaders.filter((name) => !known.has(name))].join(', '));
}
