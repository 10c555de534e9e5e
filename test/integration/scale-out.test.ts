import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { needsRedis } from '../helpers/requirements.js';
import { testRedisUrl } from '../helpers/services.js';
import { offline, withKey } from '../helpers/test-app.js';

// Two "replicas" on one data folder and one Redis: the rate limit is shared.
let dataDir: string;
const containers: Container[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-replicas-'));
});
afterAll(async () => {
  for (const container of containers) await container.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(await needsRedis())('replicas sharing Redis', () => {
  it('charge one token bucket per key across replicas and report Redis in readiness', async () => {
    const config = loadConfig({
      ...offline,
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_LOG_LEVEL: 'silent',
      REDIS_URL: testRedisUrl,
      ALEXANDRIA_RATE_LIMIT_BURST: '4',
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1',
    });
    const apps = [];
    for (let index = 0; index < 2; index += 1) {
      const container = await createContainer(config, createLogger({ level: 'silent' }));
      containers.push(container);
      apps.push(await createHttpApp(container));
    }
    const [first, second] = apps;
    if (!first || !second) throw new Error('two apps expected');
    const { key } = await (containers[0] as Container).services.auth.createKey(`replica-${Date.now()}`);
    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const app = index % 2 === 0 ? first : second;
      statuses.push(
        (await app.inject({ method: 'GET', url: '/api/projects', headers: withKey(key) })).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const ready = await first.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json().checks.redis).toBe('ok');
    for (const app of apps) await app.close();
  });
});
