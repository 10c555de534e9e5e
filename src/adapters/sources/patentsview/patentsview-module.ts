import type { SourceModule } from '../shared/source-module.js';
import { PatentsViewSource } from './patentsview-source.js';

export const patentsViewModule: SourceModule = {
  name: 'patentsview',
  policy: { minIntervalMs: 1400, cacheTtlSeconds: 24 * 3600 },
  // The PatentSearch API answers only with a key.
  missing: (settings) => (settings.patentsViewApiKey ? undefined : 'ALEXANDRIA_PATENTSVIEW_API_KEY'),
  create: ({ client, baseUrl, settings }) =>
    settings.patentsViewApiKey
      ? {
          role: 'patents',
          source: new PatentsViewSource({
            client: client({ headers: { 'x-api-key': settings.patentsViewApiKey } }),
            ...baseUrl,
          }),
        }
      : undefined,
};
