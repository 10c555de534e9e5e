import { ZoteroWebApi } from '../adapters/zotero/zotero-web-api.js';
import type { Config } from '../config/load-config.js';
import { packageVersion } from '../platform/version.js';

/** The Zotero web API that save-citation writes to (ALEXANDRIA_ZOTERO_*). */
export function createZoteroLibrary(settings: Config['zotero']): ZoteroWebApi {
  return new ZoteroWebApi({
    baseUrl: settings.apiUrl,
    timeoutMs: settings.timeoutMs,
    userAgent: `Alexandria/${packageVersion()}`,
  });
}
