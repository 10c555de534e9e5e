import type { SourceModule } from '../shared/source-module.js';
import { OpenAlexSource } from './openalex-source.js';

export const openAlexModule: SourceModule = {
  name: 'openalex',
  policy: { minIntervalMs: 100, cacheTtlSeconds: 6 * 3600 },
  create: ({ client, baseUrl, settings }) => ({
    role: 'papers',
    source: new OpenAlexSource({
      // The key goes in the Authorization header, never in the URL, so it cannot reach a log line,
      // an error or a cache key (OpenAlex takes `Authorization: Bearer` as well as `api_key`).
      client: client(
        settings.openAlexApiKey ? { headers: { authorization: `Bearer ${settings.openAlexApiKey}` } } : {},
      ),
      ...baseUrl,
      ...(settings.contactEmail ? { mailto: settings.contactEmail } : {}),
    }),
  }),
};
