import { describe, expect, it } from 'vitest';
import { StorageService } from './storage-service.js';

describe('StorageService.tenantUsage', () => {
  it('asks the store at most once per minute, whatever the scrape rate, and again after a failure', async () => {
    let calls = 0;
    let fail = false;
    const service = new StorageService({
      store: {
        findProject: async () => null,
        listEntries: async () => [],
        deleteDocument: async () => null,
        storageByTenant: async () => {
          calls += 1;
          if (fail) throw new Error('database down');
          return [{ tenantId: 't1', documents: calls, bytes: 100 * calls }];
        },
      },
      release: { release: async () => [] },
    });
    const start = 1_000_000;
    // Concurrent scrapes share one query.
    const [a, b] = await Promise.all([service.tenantUsage(start), service.tenantUsage(start + 10)]);
    expect(a).toEqual([{ tenantId: 't1', documents: 1, bytes: 100 }]);
    expect(b).toBe(a);
    for (let at = start; at < start + 60_000; at += 5_000) await service.tenantUsage(at);
    expect(calls).toBe(1);
    expect(await service.tenantUsage(start + 60_000)).toEqual([{ tenantId: 't1', documents: 2, bytes: 200 }]);
    expect(calls).toBe(2);
    fail = true;
    await expect(service.tenantUsage(start + 120_000)).rejects.toThrow('database down');
    fail = false;
    expect(await service.tenantUsage(start + 120_001)).toEqual([
      { tenantId: 't1', documents: 4, bytes: 400 },
    ]);
  });
});
