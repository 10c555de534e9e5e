import type { SourceModule } from '../shared/source-module.js';
import { OpenAlexSource } from './openalex-source.js';

export const openAlexModule: SourceModule = {
  name: 'openalex',
  policy: { minIntervalMs: 100, cacheTtlSeconds: 6 * 3600 },
  create: ({ client, baseUrl, settings }) => ({
    role: 'papers',
    source: new OpenAlexSource({
      client: client(),
      ...baseUrl,
      ...(settings.openAlexApiKey ? { apiKey: settings.openAlexApiKey } : {}),
      ...(settings.contactEmail ? { mailto: settings.contactEmail } : {}),
    }),
  }),
};
