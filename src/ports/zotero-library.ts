/**
 * A user's Zotero library, reached through Zotero's web API (https://www.zotero.org/support/dev/web_api/v3/write_requests).
 * Adapter: `src/adapters/zotero/zotero-web-api.ts`.
 *
 * Failures are AppErrors: `forbidden` (403, the Zotero key is invalid or may not write), `not_found`
 * (no such user library), `unprocessable` (Zotero refused the item), `upstream_unavailable` (Zotero
 * down or rate limiting; retryable, with `retryAfterSeconds` when Zotero said), `timeout`.
 * Implementations never log or echo the key.
 */
export interface ZoteroLibrary {
  /** Creates one item in `users/<userId>`; returns the new item's key. */
  createItem(
    credentials: ZoteroCredentials,
    item: ZoteroItem,
    options?: { signal?: AbortSignal },
  ): Promise<{ key: string; version: number | null }>;
}

/** Who writes: a Zotero user id (digits) and an API key with write access to that library. */
export interface ZoteroCredentials {
  userId: string;
  apiKey: string;
}

/** A Zotero creator: split name, or a single-field name for organisations. */
export type ZoteroCreator =
  | { creatorType: 'author'; firstName: string; lastName: string }
  | { creatorType: 'author'; name: string };

/**
 * A Zotero item in the API's JSON form. Only fields valid for the item types we write
 * (journalArticle, conferencePaper, preprint) appear; Zotero refuses unknown ones.
 */
export interface ZoteroItem {
  itemType: 'journalArticle' | 'conferencePaper' | 'preprint';
  title: string;
  creators: ZoteroCreator[];
  abstractNote?: string;
  date?: string;
  DOI: string;
  url?: string;
  publicationTitle?: string;
  proceedingsTitle?: string;
  repository?: string;
  extra?: string;
  tags: Array<{ tag: string }>;
  collections: string[];
  relations: Record<string, never>;
}
