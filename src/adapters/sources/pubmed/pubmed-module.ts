import type { SourceModule } from '../shared/source-module.js';
import { PubmedSource } from './pubmed-source.js';

export const pubmedModule: SourceModule = {
  name: 'pubmed',
  // NCBI allows 3 requests/s without a key and 10 with one; PubMed records rarely change.
  policy: { minIntervalMs: 334, cacheTtlSeconds: 7 * 24 * 3600 },
  create: ({ client, baseUrl, settings }) => ({
    role: 'papers',
    source: new PubmedSource({
      client: client(settings.ncbiApiKey ? { minIntervalMs: 100 } : {}),
      ...baseUrl,
      ...(settings.contactEmail ? { email: settings.contactEmail } : {}),
      ...(settings.ncbiApiKey ? { apiKey: settings.ncbiApiKey } : {}),
    }),
  }),
};
