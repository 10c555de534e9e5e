import type { SourceModule } from '../shared/source-module.js';
import { SemanticScholarSource } from './semantic-scholar-source.js';

export const semanticScholarModule: SourceModule = {
  name: 'semantic_scholar',
  policy: { minIntervalMs: 1000, cacheTtlSeconds: 6 * 3600 },
  create: ({ client, baseUrl, settings }) => ({
    role: 'papers',
    source: new SemanticScholarSource({
      client: client({
        headers: settings.semanticScholarApiKey ? { 'x-api-key': settings.semanticScholarApiKey } : {},
        minIntervalMs: Math.round(1000 / settings.semanticScholarRequestsPerSecond),
      }),
      ...baseUrl,
    }),
  }),
};
