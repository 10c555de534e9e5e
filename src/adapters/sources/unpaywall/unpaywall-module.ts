import type { SourceModule } from '../shared/source-module.js';
import { UnpaywallSource } from './unpaywall-source.js';

export const unpaywallModule: SourceModule = {
  name: 'unpaywall',
  policy: { minIntervalMs: 100, cacheTtlSeconds: 24 * 3600 },
  // Unpaywall requires a contact address on every request.
  missing: (settings) => (settings.contactEmail ? undefined : 'ALEXANDRIA_CONTACT_EMAIL'),
  create: ({ client, baseUrl, settings }) =>
    settings.contactEmail
      ? {
          role: 'open-access',
          source: new UnpaywallSource({ client: client(), email: settings.contactEmail, ...baseUrl }),
        }
      : undefined,
};
