import type { SourceModule } from '../shared/source-module.js';
import { CrossrefSource } from './crossref-source.js';

export const crossrefModule: SourceModule = {
  name: 'crossref',
  // Crossref records rarely change, so they are kept longer.
  policy: { minIntervalMs: 100, cacheTtlSeconds: 24 * 3600 },
  create: ({ client, baseUrl, settings }) => ({
    role: 'papers',
    source: new CrossrefSource({
      client: client(),
      ...baseUrl,
      ...(settings.contactEmail ? { mailto: settings.contactEmail } : {}),
    }),
  }),
};
