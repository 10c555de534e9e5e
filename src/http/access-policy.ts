import type { FastifyInstance } from 'fastify';

/**
 * Who may call a route. Every route declares one in its options, `config: { access }`, and the
 * API-key hook (src/http/auth.ts) decides on the route the router matched, never on the URL text:
 * however a path is spelled, it either reaches a route and that route's policy, or no route (404).
 *
 * - `key`: an API key (our header, a configured alias header, or `Authorization: Bearer`); the
 *   request is charged to the key's rate limit. The whole API and /mcp.
 * - `signed-link`: no key; the handler serves only a link whose signature and expiry it verifies
 *   (figure images, opened by browsers and chat clients that cannot send our header). Charged to the
 *   per-address budget of keyless requests.
 * - `public`: no key: the web page and its assets, the API docs and OpenAPI document, the CORS
 *   preflight route. Charged to the per-address budget.
 * - `probe`: no key and not metered: liveness, readiness and metrics, polled from one address all day.
 */
export const accessPolicies = ['key', 'signed-link', 'public', 'probe'] as const;
export type AccessPolicy = (typeof accessPolicies)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route (see AccessPolicy); required: a route without one stops the start. */
    access?: AccessPolicy;
  }
  interface FastifyInstance {
    /** Every route registered, with its access policy, in registration order (HEAD routes included). */
    readonly routeAccess: readonly RegisteredRoute[];
  }
}

/** One method of one registered route and its policy. */
export interface RegisteredRoute {
  method: string;
  /** The route's path template as registered, e.g. `/api/projects/:id`. */
  url: string;
  access: AccessPolicy;
}

/** Thrown while routes are registered, so `buildApp` fails: a route that declares no policy never serves. */
export class RouteWithoutPolicyError extends Error {
  constructor(methods: readonly string[], url: string, found: unknown) {
    super(
      `Route ${methods.join(',')} ${url} declares no access policy (config.access is ${JSON.stringify(found) ?? 'missing'}): ` +
        `give it config: { access: ${accessPolicies.map((policy) => `'${policy}'`).join(' | ')} }`,
    );
    this.name = 'RouteWithoutPolicyError';
  }
}

function isAccessPolicy(value: unknown): value is AccessPolicy {
  return (accessPolicies as readonly unknown[]).includes(value);
}

/** Registers third-party routes (a plugin's, which cannot declare ours) under one policy. */
export type WithPolicy = <T>(access: AccessPolicy, register: () => PromiseLike<T>) => Promise<T>;

/**
 * Makes every route declare its policy: an `onRoute` hook that records each route with its policy
 * (`app.routeAccess`) and throws RouteWithoutPolicyError for one without. Install it before any
 * route or plugin is registered (hooks reach only the scopes created after them). Routes of a
 * plugin we do not own (Swagger UI, static files, CORS preflight) get theirs by being registered
 * inside `withPolicy(access, () => app.register(plugin))`: the policy is given at the call that
 * registers them, still never guessed from a path.
 */
export function installRoutePolicies(app: FastifyInstance): { withPolicy: WithPolicy } {
  const routes: RegisteredRoute[] = [];
  let pluginPolicy: AccessPolicy | undefined;
  app.decorate('routeAccess', {
    getter: () => routes,
  });
  app.addHook('onRoute', (route) => {
    if (route.config?.access === undefined && pluginPolicy !== undefined) {
      route.config = { ...route.config, access: pluginPolicy };
    }
    const methods = [route.method].flat();
    const access = route.config?.access;
    if (!isAccessPolicy(access)) throw new RouteWithoutPolicyError(methods, route.url, access);
    for (const method of methods) routes.push({ method, url: route.url, access });
  });
  return {
    async withPolicy(access, register) {
      pluginPolicy = access;
      try {
        return await register();
      } finally {
        pluginPolicy = undefined;
      }
    },
  };
}
