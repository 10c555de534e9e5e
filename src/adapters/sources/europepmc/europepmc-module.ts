import type { SourceModule } from '../shared/source-module.js';
import { EuropePmcSource } from './europepmc-source.js';

export const europePmcModule: SourceModule = {
  name: 'europepmc',
  policy: { minIntervalMs: 100, cacheTtlSeconds: 12 * 3600 },
  create: ({ client, baseUrl }) => ({
    role: 'papers',
    source: new EuropePmcSource({ client: client(), ...baseUrl }),
  }),
};
