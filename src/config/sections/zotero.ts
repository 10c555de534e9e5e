import { booleanText, envVar, positiveInt, urlText } from '../env-var.js';

/** Saving citations into a user's Zotero library (`GET /api/save-citation`). */
export const zoteroSection = {
  apiUrl: envVar('ALEXANDRIA_ZOTERO_API_URL', urlText, {
    default: 'https://api.zotero.org',
    description:
      "Base URL of Zotero's web API. Configuration only (never taken from a request); tests point it at a loopback fake.",
  }),
  timeoutMs: envVar('ALEXANDRIA_ZOTERO_TIMEOUT_MS', positiveInt, {
    default: '15000',
    description: 'Deadline for one call to the Zotero API, in ms.',
  }),
  acceptQueryKey: envVar('ALEXANDRIA_ZOTERO_ACCEPT_QUERY_KEY', booleanText, {
    default: 'false',
    description:
      'Accept a Zotero key in the query string (zotero_api_key, as ScholarAI clients send it; redacted from logs). Off: such requests are refused with 400 and the key must come in the x-zotero-api-key header or be stored with PUT /api/zotero/credentials.',
  }),
};
