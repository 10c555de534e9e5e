import { envVar, positiveInt } from '../env-var.js';

/**
 * The price of heavy requests — reference checks (`verify_references`, `/api/references`,
 * `project_graph`), citation contexts, project analyses and PDF parses: how many one tenant may run
 * at once, how many this process runs at once, how long one may wait and run, and how long their
 * results are kept (docs/decisions/0042-heavy-work-budgets.md).
 */
export const heavySection = {
  perTenant: envVar('ALEXANDRIA_HEAVY_PER_TENANT', positiveInt, {
    default: '2',
    description:
      'Heavy requests (reference checks, /api/references, citation contexts, project graphs, analyses) one tenant may have running or waiting at once, across every replica when REDIS_URL is set; one more is answered 429 with Retry-After.',
  }),
  slots: envVar('ALEXANDRIA_HEAVY_SLOTS', positiveInt, {
    default: '2',
    description:
      'Heavy requests this process runs at once; more wait in their tenant’s lane and tenants take turns. Per process (each replica has its own cores).',
  }),
  queueMs: envVar('ALEXANDRIA_HEAVY_QUEUE_MS', positiveInt, {
    default: '15000',
    description:
      'Longest a heavy request waits for one of the ALEXANDRIA_HEAVY_SLOTS, in milliseconds; past it the service is busy: 503 with Retry-After.',
  }),
  timeoutMs: envVar('ALEXANDRIA_HEAVY_TIMEOUT_MS', positiveInt, {
    default: '120000',
    description:
      'Time budget of one heavy request once it runs, in milliseconds: past it the work is stopped and the request fails with 504. A reference check keeps the entries it has done, so asking again goes on from there.',
  }),
  parsesPerTenant: envVar('ALEXANDRIA_PARSE_PER_TENANT', positiveInt, {
    default: '4',
    description:
      'PDF parses (uploads, fetched PDFs) one tenant may have running or waiting at once, across replicas with REDIS_URL; one more is answered 429 with Retry-After. Each parse is bounded by ALEXANDRIA_PDF_TIMEOUT_MS.',
  }),
  cacheTtlSeconds: envVar('ALEXANDRIA_HEAVY_CACHE_TTL_SECONDS', positiveInt, {
    default: '86400',
    description:
      'How long the results of reference checks and citation contexts are kept in the cache (shared by replicas with REDIS_URL), in seconds. A change to the paper index makes them stale at once.',
  }),
};
