import type { Redis } from 'ioredis';
import { MemoryConcurrencyLimiter } from '../adapters/memory/memory-concurrency-limiter.js';
import { RedisConcurrencyLimiter } from '../adapters/redis/redis-concurrency-limiter.js';
import type { Config } from '../config/load-config.js';
import type { Logger } from '../platform/logger.js';
import type { Clock } from '../ports/clock.js';
import type { ConcurrencyLimiter } from '../ports/concurrency-limiter.js';
import { HeavyWork } from '../services/heavy-work.js';
import { TenantShare } from '../services/tenant-share.js';

/** The budgets of heavy work: reference checks and citation graphs (`heavy`), PDF parses (`parseShare`). */
export interface HeavyWorkBudgets {
  heavy: HeavyWork;
  parseShare: TenantShare;
  close(): Promise<void>;
}

/**
 * Heavy work has a price (docs/decisions/0042-heavy-work-budgets.md): tenants' places are counted
 * where every replica sees them (Redis when there is one); slots and time budgets are this process's.
 */
export function createHeavyWork(
  settings: Config['heavy'],
  redis: Redis | undefined,
  clock: Clock,
  logger: Logger,
): HeavyWorkBudgets {
  const places: ConcurrencyLimiter = redis
    ? new RedisConcurrencyLimiter(redis, clock)
    : new MemoryConcurrencyLimiter(clock);
  const onPlacesError = (error: unknown) =>
    logger.warn({ err: error }, 'tenant places unavailable: heavy work goes ahead unmetered');
  const heavy = new HeavyWork({
    slots: settings.slots,
    perTenant: settings.perTenant,
    queueMs: settings.queueMs,
    timeoutMs: settings.timeoutMs,
    places,
    name: 'heavy',
    settings: {
      perTenant: 'ALEXANDRIA_HEAVY_PER_TENANT',
      queueMs: 'ALEXANDRIA_HEAVY_QUEUE_MS',
      timeoutMs: 'ALEXANDRIA_HEAVY_TIMEOUT_MS',
    },
    onPlacesError,
  });
  const parseShare = new TenantShare({
    places,
    perTenant: settings.parsesPerTenant,
    name: 'parse',
    what: 'PDF parses',
    setting: 'ALEXANDRIA_PARSE_PER_TENANT',
    onError: onPlacesError,
  });
  return { heavy, parseShare, close: () => places.close() };
}
