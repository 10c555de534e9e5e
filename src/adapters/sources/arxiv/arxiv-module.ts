import type { SourceModule } from '../shared/source-module.js';
import { ArxivSource } from './arxiv-source.js';

export const arxivModule: SourceModule = {
  name: 'arxiv',
  policy: { minIntervalMs: 3000, cacheTtlSeconds: 6 * 3600 },
  create: ({ client, baseUrl }) => ({
    role: 'papers',
    source: new ArxivSource({ client: client(), ...baseUrl }),
  }),
};
