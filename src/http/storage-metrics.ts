import { Gauge, type Registry } from 'prom-client';
import type { TenantStorage } from '../ports/project-store.js';
import type { StorageService } from '../services/storage/storage-service.js';

/**
 * Storage figures (decision 0041), read at scrape time but cheap:
 *
 * - `alexandria_storage_bytes{tenant}` and `alexandria_storage_documents{tenant}`: each tenant's
 *   stored PDFs, from one grouped query of the project store at most once a minute (scrapes in
 *   between reuse it; every replica reports the same figures). With `perTenant` false the tenant
 *   ids stay off the open /metrics and one `tenant="all"` sum is shown.
 * - `alexandria_blob_store_bytes{area}` and `alexandria_blob_store_objects{area}`: what each area
 *   of the blob store holds (documents, parsed, figures, pages, references, question-vectors,
 *   sources), counted by this process's last sweep (absent until one finished; only `serve` sweeps).
 *
 * A failed query keeps the figures of the last one rather than failing the scrape.
 */
export function installStorageMetrics(
  registry: Registry,
  storage: Pick<StorageService, 'tenantUsage' | 'blobAreas'>,
  options: { perTenant: boolean },
): void {
  let last: TenantStorage[] = [];
  const usage = async () => {
    last = await storage.tenantUsage().catch(() => last);
    if (options.perTenant) return last;
    const sum = (key: 'documents' | 'bytes') => last.reduce((total, tenant) => total + tenant[key], 0);
    return [{ tenantId: 'all', documents: sum('documents'), bytes: sum('bytes') }];
  };
  new Gauge({
    name: 'alexandria_storage_bytes',
    help: 'Bytes of the PDFs each tenant stores (shared content counted for each tenant storing it).',
    labelNames: ['tenant'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const tenant of await usage()) this.set({ tenant: tenant.tenantId }, tenant.bytes);
    },
  });
  new Gauge({
    name: 'alexandria_storage_documents',
    help: 'PDFs each tenant stores.',
    labelNames: ['tenant'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const tenant of await usage()) this.set({ tenant: tenant.tenantId }, tenant.documents);
    },
  });
  const areaGauge = (name: string, help: string, key: 'bytes' | 'objects') =>
    new Gauge({
      name,
      help,
      labelNames: ['area'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [area, figures] of Object.entries(storage.blobAreas() ?? {}))
          this.set({ area }, figures[key]);
      },
    });
  areaGauge(
    'alexandria_blob_store_bytes',
    'Bytes in each area of the blob store, as the last sweep of this process counted them.',
    'bytes',
  );
  areaGauge(
    'alexandria_blob_store_objects',
    'Blobs in each area of the blob store, as the last sweep of this process counted them.',
    'objects',
  );
}
