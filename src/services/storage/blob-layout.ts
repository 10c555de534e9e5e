import { createHash } from 'node:crypto';

/**
 * Where everything the service keeps in the BlobStore lives, in one place: the key builders of
 * every writer use these folders, and the sweep (`blob-sweep.ts`) and the release of a document's
 * content (`content-release.ts`) read keys back through `classifyBlobKey`. Everything derived from
 * one PDF is filed under its content hash, so it can be found and freed by that hash alone:
 *
 * - `documents/<ab>/<sha>.pdf` — the PDF (`ab` = the hash's first two hex digits);
 * - `parsed/<ab>/<sha>/<parser version>.json` — its parse (chunks, figure list, metadata);
 * - `figures/<ab>/<sha>/<figure>.<png|jpg>` — its figure images;
 * - `pages/<ab>/<sha>/<revision>/p<page>-w<width>.png` — its drawn pages;
 * - `references/<ab>/<sha>/<origin>-<version>.json` — its linked reference list;
 * - `question-vectors/<ab>/<sha>/<file>.bin` — its passage vectors.
 *
 * Texts from full-text sources are filed the same way under the hash of the source's key (no
 * document row ever has that hash, so they are caches), and the source's answer itself under
 * `sources/<source>/<ab>/<key hash>.json`. `secrets/` (per-tenant Zotero credentials) and anything
 * else belongs to no content and is never touched by the sweep.
 */

/** The folders that hold what is derived from one content hash, in the order a release empties them. */
export const derivedAreas = ['parsed', 'figures', 'pages', 'references', 'question-vectors'] as const;
export type DerivedArea = (typeof derivedAreas)[number];

/** Every folder the sweep walks: the PDFs, what is derived from them, and the full-text sources' cache. */
export const sweptAreas = ['documents', ...derivedAreas, 'sources'] as const;
export type SweptArea = (typeof sweptAreas)[number];

const sha256Pattern = /^[0-9a-f]{64}$/;

/** True for a lowercase hex SHA-256, the only hash the layout files content under. */
export function isContentHash(text: string): boolean {
  return sha256Pattern.test(text);
}

/** `documents/ab/abcdef….pdf`: PDFs are content-addressed, so the same bytes are stored once. */
export function documentBlobKey(sha256: string): string {
  return `documents/${sha256.slice(0, 2)}/${sha256}.pdf`;
}

/** The folder of `area` that holds what is derived from content `sha256` (no trailing slash). */
export function contentFolder(area: DerivedArea, sha256: string): string {
  return `${area}/${sha256.slice(0, 2)}/${sha256}`;
}

/** A key segment made of characters blob keys allow; anything else becomes `_`. */
export function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The content hash a ranker's document key names (`<origin>:<sha256>`), else a hash of the whole
 * key, so that every key lands in a folder of its own.
 */
export function contentHashOfKey(documentKey: string): string {
  const hash = documentKey.slice(documentKey.lastIndexOf(':') + 1);
  return isContentHash(hash) ? hash : createHash('sha256').update(documentKey).digest('hex');
}

/** What a stored key is, as far as the sweep is concerned. */
export type BlobKind =
  /** The PDF of content `sha256`. */
  | { kind: 'document'; sha256: string }
  /** Something derived from content `sha256`; `rest` is the path inside its folder. */
  | { kind: 'derived'; area: DerivedArea; sha256: string; rest: string }
  /** A full-text source's cached answer. */
  | { kind: 'source' }
  /** Passage vectors in the layout before this one (`question-vectors/<model>/<hash>.bin`), never read again. */
  | { kind: 'legacy' }
  /** Not ours to judge (secrets, the readiness ping, keys of an unknown shape). */
  | { kind: 'other' };

const documentKey = /^documents\/([0-9a-f]{2})\/([0-9a-f]{64})\.pdf$/;
const derivedKey = /^([a-z-]+)\/([0-9a-f]{2})\/([0-9a-f]{64})\/(.+)$/;
const legacyVectorKey = /^question-vectors\/[A-Za-z0-9._-]+\/[0-9a-f]{64}\.bin$/;
const sourceKey = /^sources\/[A-Za-z0-9._-]+\/[0-9a-f]{2}\/[0-9a-f]{64}\.json$/;

/** Classifies a blob key; a key whose folder prefix does not match its hash is `other`. */
export function classifyBlobKey(key: string): BlobKind {
  const document = documentKey.exec(key);
  if (document) {
    const [, prefix, sha256] = document as unknown as [string, string, string];
    return sha256.startsWith(prefix) ? { kind: 'document', sha256 } : { kind: 'other' };
  }
  const derived = derivedKey.exec(key);
  if (derived) {
    const [, area, prefix, sha256, rest] = derived as unknown as [string, string, string, string, string];
    if ((derivedAreas as readonly string[]).includes(area) && sha256.startsWith(prefix)) {
      return { kind: 'derived', area: area as DerivedArea, sha256, rest };
    }
  }
  if (legacyVectorKey.test(key)) return { kind: 'legacy' };
  if (sourceKey.test(key)) return { kind: 'source' };
  return { kind: 'other' };
}
