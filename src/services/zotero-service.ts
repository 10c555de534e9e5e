import { invalid } from '../domain/errors.js';
import { normalizeDoi } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ZoteroCredentials, ZoteroItem, ZoteroLibrary } from '../ports/zotero-library.js';
import { splitPersonName } from './export/csl-mapping.js';
import { SecretBox } from './secret-box.js';
import type { PaperLookup } from './services.js';

/** What the caller learns about stored credentials: never the key, only its last characters. */
export interface CredentialsStatus {
  configured: boolean;
  user_id: string | null;
  api_key_hint: string | null;
}

export interface SavedCitation {
  saved: true;
  doi: string;
  item_key: string;
  library: string;
  title: string;
  item_type: ZoteroItem['itemType'];
  /** Where the item's metadata came from: our index/sources, or only the DOI. */
  metadata: 'lookup' | 'doi_only';
  hint: string;
}

export interface ZoteroServiceDependencies {
  library: ZoteroLibrary;
  blobs: BlobStore;
  /** The service's signing secret; the credentials key is derived from it. */
  secret: string;
  /** Metadata by DOI, when a lookup service is configured. */
  lookup?: PaperLookup | undefined;
}

const userIdPattern = /^\d{1,12}$/;
const apiKeyPattern = /^[A-Za-z0-9]{8,64}$/;

const blobKeyOf = (tenantId: string) => `secrets/zotero/${tenantId}.json`;

/** Builds the Zotero item for a DOI from our metadata (or the DOI alone). */
export function zoteroItemOf(doi: string, paper: Paper | null): ZoteroItem {
  const itemType: ZoteroItem['itemType'] =
    paper?.type === 'conference-paper'
      ? 'conferencePaper'
      : paper?.type === 'preprint'
        ? 'preprint'
        : 'journalArticle';
  const item: ZoteroItem = {
    itemType,
    title: paper?.title ?? doi,
    creators: (paper?.authors ?? []).map((author) => {
      const name = splitPersonName(author);
      return name.literal
        ? { creatorType: 'author' as const, name: name.literal }
        : {
            creatorType: 'author' as const,
            firstName: name.given ?? '',
            lastName: [name.family, name.suffix].filter(Boolean).join(' '),
          };
    }),
    DOI: doi,
    tags: [],
    collections: [],
    relations: {},
  };
  if (!paper) return item;
  if (paper.abstract) item.abstractNote = paper.abstract;
  const date = paper.publication_date ?? (paper.year ? String(paper.year) : null);
  if (date) item.date = date;
  if (paper.url) item.url = paper.url;
  if (paper.venue) {
    if (itemType === 'conferencePaper') item.proceedingsTitle = paper.venue;
    else if (itemType === 'preprint') item.repository = paper.venue;
    else item.publicationTitle = paper.venue;
  }
  const extra = [
    paper.identifiers?.pmid ? `PMID: ${paper.identifiers.pmid}` : null,
    paper.identifiers?.arxiv ? `arXiv: ${paper.identifiers.arxiv}` : null,
  ].filter((line): line is string => line !== null);
  if (extra.length > 0) item.extra = extra.join('\n');
  return item;
}

/**
 * Saves citations into a user's Zotero library, and keeps per-tenant Zotero credentials encrypted at
 * rest (AES-256-GCM, key derived from the signing secret) in the blob store. Keys are never logged,
 * returned or put in error messages.
 */
export class ZoteroService {
  private readonly box: SecretBox;

  constructor(private readonly dependencies: ZoteroServiceDependencies) {
    this.box = new SecretBox(dependencies.secret, 'zotero-credentials');
  }

  async storeCredentials(tenantId: string, credentials: ZoteroCredentials): Promise<CredentialsStatus> {
    checkCredentials(credentials, { userParam: 'user_id', keyParam: 'api_key' });
    const sealed = this.box.seal(JSON.stringify(credentials));
    await this.dependencies.blobs.put(blobKeyOf(tenantId), Buffer.from(sealed, 'utf8'), {
      contentType: 'application/json',
    });
    return statusOf(credentials);
  }

  async credentialsStatus(tenantId: string): Promise<CredentialsStatus> {
    return statusOf(await this.storedCredentials(tenantId));
  }

  async deleteCredentials(tenantId: string): Promise<void> {
    await this.dependencies.blobs.delete(blobKeyOf(tenantId));
  }

  private async storedCredentials(tenantId: string): Promise<ZoteroCredentials | null> {
    const bytes = await this.dependencies.blobs.get(blobKeyOf(tenantId));
    if (!bytes) return null;
    const plain = this.box.open(Buffer.from(bytes).toString('utf8'));
    if (!plain) return null; // sealed under another signing secret: as good as absent
    return JSON.parse(plain) as ZoteroCredentials;
  }

  /**
   * Saves the DOI as an item of the user's library. Credentials given with the request win over the
   * stored ones; a user id alone (from the request) is combined with the stored key.
   */
  async saveDoi(
    tenantId: string,
    doiText: string,
    given: { userId?: string | undefined; apiKey?: string | undefined },
    options: { signal?: AbortSignal } = {},
  ): Promise<SavedCitation> {
    const doi = normalizeDoi(doiText);
    if (!doi) throw invalid('doi', `"${doiText}" is not a DOI (expected 10.<registrant>/<suffix>)`);
    const stored = given.apiKey ? null : await this.storedCredentials(tenantId);
    const apiKey = given.apiKey ?? stored?.apiKey;
    const userId = given.userId ?? stored?.userId;
    if (!apiKey) {
      throw invalid(
        'x-zotero-api-key',
        'No Zotero credentials: send the x-zotero-user-id and x-zotero-api-key headers, or store them once with PUT /api/zotero/credentials',
      );
    }
    if (!userId) {
      throw invalid(
        'zotero_user_id',
        'No Zotero user id: send the x-zotero-user-id header or zotero_user_id',
      );
    }
    const credentials = { userId, apiKey };
    checkCredentials(credentials, { userParam: 'zotero_user_id', keyParam: 'x-zotero-api-key' });

    const paper = await this.lookup(doi, options.signal);
    const item = zoteroItemOf(doi, paper);
    const { key } = await this.dependencies.library.createItem(credentials, item, options);
    return {
      saved: true,
      doi,
      item_key: key,
      library: `users/${userId}`,
      title: item.title,
      item_type: item.itemType,
      metadata: paper ? 'lookup' : 'doi_only',
      hint: paper
        ? 'Saved with its metadata.'
        : 'Only the DOI was known here; in Zotero, right-click the item and choose "Retrieve Metadata" to complete it.',
    };
  }

  /** Our metadata for the DOI; a lookup failure degrades to the DOI alone (reported in `metadata`). */
  private async lookup(doi: string, signal: AbortSignal | undefined): Promise<Paper | null> {
    if (!this.dependencies.lookup) return null;
    try {
      return await this.dependencies.lookup.findByIdentifier(
        { type: 'DOI', value: doi },
        signal ? { signal } : {},
      );
    } catch {
      return null;
    }
  }
}

function checkCredentials(
  credentials: ZoteroCredentials,
  params: { userParam: string; keyParam: string },
): void {
  if (!userIdPattern.test(credentials.userId)) {
    throw invalid(params.userParam, 'A Zotero user id is the number shown at zotero.org/settings/keys');
  }
  if (!apiKeyPattern.test(credentials.apiKey)) {
    throw invalid(params.keyParam, 'A Zotero API key is 8–64 letters and digits (zotero.org/settings/keys)');
  }
}

function statusOf(credentials: ZoteroCredentials | null): CredentialsStatus {
  return credentials
    ? { configured: true, user_id: credentials.userId, api_key_hint: `…${credentials.apiKey.slice(-4)}` }
    : { configured: false, user_id: null, api_key_hint: null };
}
