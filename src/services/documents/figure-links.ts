import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { type FigureFormat, figureFormats } from '../../ports/pdf-extractor.js';

/** The parts of a figure link, as the figure route receives them. */
export interface FigureLinkParts {
  sha256: string;
  figureId: string;
  /** From the link's file extension (`.png`, `.jpg`); not signed: another one only finds nothing. */
  format?: FigureFormat;
  expires: number;
  /**
   * The link's `sig`: the HMAC (43 base64url characters), followed on a link tied to a tenant by the
   * sealed tenant id. One opaque token, so tied and untied links have the same shape.
   */
  signature: string;
}

/** What a valid link grants: a figure, and the tenant whose stored document it must belong to. */
export interface FigureGrant {
  /** Set for a tied link: the route serves the figure only while this tenant stores the document. */
  tenantId?: string;
}

const shaPattern = /^[0-9a-f]{64}$/;
const figureIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const tenantPattern = /^[A-Za-z0-9_.-]{1,64}$/;
const ivBytes = 16;
/** Length of an HMAC-SHA256 in base64url without padding. */
const signatureLength = 43;

/**
 * Signed, expiring figure URLs. Markdown image links are opened by browsers and chat clients that
 * do not send our API key, so a figure is reachable by an unguessable link instead: an HMAC of the
 * path and expiry under the service's signing secret. The expiry is rounded to a bucket so the same
 * chunk read twice within a bucket carries the same links (clients can cache them).
 *
 * A link to a figure of a tenant's stored document is tied to that tenant: its `sig` carries, after
 * the HMAC, the tenant id sealed (AES-256-CTR under a key derived from the secret, with an IV derived
 * from the tenant, so the same tenant always seals to the same text and links stay cacheable), and
 * the HMAC covers the seal. The
 * link names no tenant in clear, and the figure route serves it only while that tenant still stores
 * a document with this content hash. Figures of a document read by url are not tied: anyone may read
 * that url.
 */
export class FigureLinks {
  constructor(
    private readonly options: {
      secret: string;
      /**
       * Absolute base URL of the service, or a function asked at each link (the public origin of the
       * request being served: a link must point where its reader reached the service).
       */
      publicUrl: string | (() => string);
      /** A link stays valid at least this long (and at most twice as long). */
      ttlSeconds: number;
      now?: () => number;
    },
  ) {}

  /** Path of a figure below the base URL; the route is registered on the same pattern. */
  static path(sha256: string, figureId: string, format: FigureFormat = 'png'): string {
    return `/files/figures/${sha256}/${figureId}.${figureFormats[format].extension}`;
  }

  /**
   * The absolute, signed URL of a figure of the document with content hash `sha256`; tied to
   * `tenantId` when given (a figure of that tenant's stored document).
   */
  url(sha256: string, figureId: string, format: FigureFormat = 'png', tenantId?: string): string {
    const now = Math.floor((this.options.now?.() ?? Date.now()) / 1000);
    const ttl = this.options.ttlSeconds;
    const expires = (Math.floor(now / ttl) + 2) * ttl;
    const owner = tenantId === undefined ? undefined : this.seal(tenantId);
    const signature = this.sign(sha256, figureId, expires, owner);
    return `${this.baseUrl()}${FigureLinks.path(sha256, figureId, format)}?exp=${expires}&sig=${signature}${owner ?? ''}`;
  }

  private baseUrl(): string {
    const { publicUrl } = this.options;
    return (typeof publicUrl === 'string' ? publicUrl : publicUrl()).replace(/\/+$/, '');
  }

  /**
   * What the link grants when its parts are well-formed, unexpired and signed with our secret (with
   * the tenant of a tied link); null otherwise.
   */
  verify(parts: FigureLinkParts): FigureGrant | null {
    if (!shaPattern.test(parts.sha256) || !figureIdPattern.test(parts.figureId)) return null;
    const now = Math.floor((this.options.now?.() ?? Date.now()) / 1000);
    if (!Number.isSafeInteger(parts.expires) || parts.expires < now) return null;
    const sealed = parts.signature.slice(signatureLength);
    const owner = sealed === '' ? undefined : sealed;
    const expected = Buffer.from(this.sign(parts.sha256, parts.figureId, parts.expires, owner));
    const given = Buffer.from(parts.signature.slice(0, signatureLength));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if (owner === undefined) return {};
    const tenantId = this.unseal(owner);
    return tenantId === null ? null : { tenantId };
  }

  private sign(sha256: string, figureId: string, expires: number, owner: string | undefined): string {
    // Untied links keep the payload they always had, so links handed out before stay valid.
    const payload =
      owner === undefined
        ? `figure:${sha256}/${figureId}:${expires}`
        : `figure-tenant:${owner}:${sha256}/${figureId}:${expires}`;
    return createHmac('sha256', this.options.secret).update(payload).digest('base64url');
  }

  private derive(label: string): Buffer {
    return createHmac('sha256', this.options.secret).update(label).digest();
  }

  /** The tenant id encrypted deterministically (synthetic IV), base64url. */
  private seal(tenantId: string): string {
    const iv = this.derive(`figure-tenant-iv:${tenantId}`).subarray(0, ivBytes);
    const cipher = createCipheriv('aes-256-ctr', this.derive('figure-tenant-key'), iv);
    return Buffer.concat([iv, cipher.update(tenantId, 'utf8'), cipher.final()]).toString('base64url');
  }

  private unseal(owner: string): string | null {
    const sealed = Buffer.from(owner, 'base64url');
    if (sealed.length <= ivBytes || sealed.length > ivBytes + 64) return null;
    const iv = sealed.subarray(0, ivBytes);
    const decipher = createDecipheriv('aes-256-ctr', this.derive('figure-tenant-key'), iv);
    const tenantId = Buffer.concat([decipher.update(sealed.subarray(ivBytes)), decipher.final()]).toString(
      'utf8',
    );
    if (!tenantPattern.test(tenantId)) return null;
    const expectedIv = this.derive(`figure-tenant-iv:${tenantId}`).subarray(0, ivBytes);
    return timingSafeEqual(iv, expectedIv) ? tenantId : null;
  }
}
