import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { ApiKeyRecord } from '../domain/project.js';
import { newId, sha256Hex } from '../platform/ids.js';
import type { ProjectStore } from '../ports/project-store.js';

/** Who is calling: the tenant the key belongs to, and the key's id (for rate limits and logs). */
export interface Principal {
  tenantId: string;
  keyId: string;
}

const keyAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new API key: `alx_` + 40 base62 characters (~238 bits). */
export function generateApiKey(): string {
  const bytes = randomBytes(40);
  let key = 'alx_';
  for (const byte of bytes) key += keyAlphabet[byte % keyAlphabet.length];
  return key;
}

/** Keys are long random strings, so an unsalted SHA-256 is enough to store them safely. */
export const hashApiKey = (key: string) => sha256Hex(key);

/**
 * API keys: issue, list, revoke and authenticate. Keys are stored only as hashes. Successful lookups
 * are remembered for `cacheTtlMs` (default 5 s) so a request costs no store read; a revocation in this
 * process takes effect at once, one made elsewhere (CLI, another replica) within that time.
 */
export class AuthService {
  private readonly recent = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(
    private readonly store: ProjectStore,
    private readonly options: { cacheTtlMs?: number; now?: () => number } = {},
  ) {}

  /** Creates a key for the tenant (created if new). Returns the key text once; it is not stored. */
  async createKey(tenantId: string, name = 'default'): Promise<{ key: string; record: ApiKeyRecord }> {
    assertTenantId(tenantId);
    await this.store.ensureTenant(tenantId);
    const key = generateApiKey();
    const record = await this.store.createApiKey({
      id: newId('key', 12),
      tenantId,
      name,
      prefix: key.slice(0, 10),
      keyHash: hashApiKey(key),
    });
    return { key, record };
  }

  /** Accepts a key given by configuration (`tenant:key`); idempotent across restarts. */
  async importKey(tenantId: string, key: string, name = 'config'): Promise<ApiKeyRecord> {
    assertTenantId(tenantId);
    const keyHash = hashApiKey(key);
    const existing = await this.store.findApiKeyByHash(keyHash);
    if (existing) {
      if (existing.tenantId !== tenantId) {
        throw new AppError('conflict', 'A configured API key is already registered to another tenant');
      }
      return existing;
    }
    await this.store.ensureTenant(tenantId);
    return this.store.createApiKey({
      id: newId('key', 12),
      tenantId,
      name,
      prefix: key.slice(0, Math.min(10, Math.floor(key.length / 3))),
      keyHash,
    });
  }

  listKeys(tenantId?: string): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys(tenantId);
  }

  async revokeKey(id: string): Promise<void> {
    for (const [hash, entry] of this.recent) if (entry.principal.keyId === id) this.recent.delete(hash);
    if (!(await this.store.revokeApiKey(id))) {
      throw new AppError('not_found', `No active API key with id ${id}`, { param: 'id' });
    }
  }

  hasActiveKeys(): Promise<boolean> {
    return this.store.countActiveApiKeys().then((count) => count > 0);
  }

  /** The principal of a presented key; 401 when it is missing, unknown or revoked. */
  async authenticate(presented: string | undefined): Promise<Principal> {
    if (!presented) {
      throw new AppError(
        'unauthorized',
        'Missing API key: send it in the x-alexandria-api-key header or as Authorization: Bearer <key>',
      );
    }
    const presentedHash = hashApiKey(presented);
    const now = (this.options.now ?? Date.now)();
    const remembered = this.recent.get(presentedHash);
    if (remembered && remembered.expiresAt > now) return remembered.principal;
    const record = await this.store.findApiKeyByHash(presentedHash);
    const matches =
      record !== null &&
      timingSafeEqual(Buffer.from(record.keyHash, 'hex'), Buffer.from(presentedHash, 'hex'));
    if (!record || !matches || record.revokedAt !== null) {
      throw new AppError('unauthorized', 'Invalid or revoked API key');
    }
    const principal = { tenantId: record.tenantId, keyId: record.id };
    if (this.recent.size > 10_000) this.recent.clear();
    this.recent.set(presentedHash, { principal, expiresAt: now + (this.options.cacheTtlMs ?? 5000) });
    return principal;
  }
}

function assertTenantId(tenantId: string): void {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tenantId)) {
    throw new AppError('invalid_request', 'Tenant ids use letters, digits, "_", "." and "-" (1–64)', {
      param: 'tenant',
    });
  }
}
