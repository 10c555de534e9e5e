import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { varyByOrigin } from '../public-origin.js';
import type { RouteModule } from './route-context.js';

/** web/dist of this installation: three levels up from src/http/routes or dist/http/routes. */
const bundledWebDir = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/**
 * The page's Content-Security-Policy: scripts, styles and API calls from this origin only; images
 * also from the public URL the page was requested at (figure links are absolute and name it) and
 * data: URLs. No inline script exists.
 */
function contentSecurityPolicy(publicUrl: string): string {
  const publicOrigin = new URL(publicUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob: ${publicOrigin}`,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the built web UI at `/`: hashed assets cached for a year, the page itself revalidated on
 * every load. Without a build, `/` explains how to make one (the API works either way).
 */
export const webRoutes: RouteModule = async (app, { config, withPolicy }) => {
  if (!config.web.enabled) return;
  const root = config.web.dir ?? bundledWebDir;
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/', { schema: { hide: true }, config: { access: 'public' } }, async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>Alexandria</title><p>The web UI is not built: run <code>npm run build</code>. The API is documented at <a href="/docs">/docs</a>.</p>',
        ),
    );
    return;
  }
  // The page and its assets are what a browser loads before anyone signs in: public.
  await withPolicy('public', () =>
    app.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      decorateReply: false,
      index: ['index.html'],
      schemaHide: true,
      cacheControl: false,
      setHeaders(reply, path) {
        if (path.includes('/assets/')) {
          reply.header('cache-control', 'public, max-age=31536000, immutable');
        } else {
          reply.header('cache-control', 'no-cache');
          reply.header('content-security-policy', contentSecurityPolicy(reply.request.publicUrl));
          varyByOrigin(reply);
          reply.header('x-content-type-options', 'nosniff');
          reply.header('referrer-policy', 'no-referrer');
        }
      },
    }),
  );
};
