import { z } from 'zod';
import { envVar, listText, positiveInt } from '../env-var.js';

/** Upstream sources Alexandria knows; `all` in ALEXANDRIA_SOURCES means every one whose requirements are met. */
export const sourceNames = [
  'openalex',
  'semantic_scholar',
  'arxiv',
  'crossref',
  'europepmc',
  'pubmed',
  'unpaywall',
  'patentsview',
] as const;
export type SourceName = (typeof sourceNames)[number];

const sourceList = listText.pipe(
  z.array(
    z
      .string()
      .toLowerCase()
      .refine((name) => name === 'all' || (sourceNames as readonly string[]).includes(name), {
        message: `each entry must be one of ${sourceNames.join(', ')} or all`,
      }),
  ),
);

const sourceUrls = listText.pipe(
  z.array(
    z
      .string()
      .regex(/^[a-z_]+=https?:\/\/\S+$/, 'each entry must be name=url, e.g. openalex=http://127.0.0.1:8081')
      .transform((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)] as const;
      }),
  ),
);

const secretText = z.string().trim().min(1).optional();

/**
 * Federated upstream sources. OFF by default: with ALEXANDRIA_SOURCES empty the service never leaves
 * the machine (tests and CI stay offline); set it to enable sources (docs/decisions/0005).
 */
export const sourcesSection = {
  enabled: envVar('ALEXANDRIA_SOURCES', sourceList, {
    default: '',
    description: `Upstream sources to federate, comma-separated (${sourceNames.join(', ')}), or "all". Empty: local index only, no network.`,
  }),
  contactEmail: envVar(
    'ALEXANDRIA_CONTACT_EMAIL',
    z.email({ error: 'expected an e-mail address' }).optional(),
    {
      description:
        'Contact address sent to OpenAlex and Crossref (polite pool mailto), NCBI (email) and Unpaywall (required for unpaywall).',
    },
  ),
  openAlexApiKey: envVar('ALEXANDRIA_OPENALEX_API_KEY', secretText, {
    secret: true,
    description: 'OpenAlex API key (api_key parameter), if you have one.',
  }),
  semanticScholarApiKey: envVar('ALEXANDRIA_SEMANTIC_SCHOLAR_API_KEY', secretText, {
    secret: true,
    description: 'Semantic Scholar API key (x-api-key header); without one the shared public pool is used.',
  }),
  semanticScholarRequestsPerSecond: envVar(
    'ALEXANDRIA_SEMANTIC_SCHOLAR_RPS',
    z.coerce.number().positive().max(100),
    {
      default: '1',
      description: 'Requests per second to Semantic Scholar (1 is what a standard key allows).',
    },
  ),
  ncbiApiKey: envVar('ALEXANDRIA_NCBI_API_KEY', secretText, {
    secret: true,
    description: 'NCBI E-utilities API key (10 requests/s instead of 3) for PubMed lookups.',
  }),
  patentsViewApiKey: envVar('ALEXANDRIA_PATENTSVIEW_API_KEY', secretText, {
    secret: true,
    description: 'PatentsView PatentSearch API key (X-Api-Key); required for the patentsview source.',
  }),
  sourceTimeoutMs: envVar('ALEXANDRIA_SOURCE_TIMEOUT_MS', positiveInt, {
    default: '4000',
    description: 'Time limit of one upstream source within a federated search or lookup, in ms.',
  }),
  deadlineMs: envVar('ALEXANDRIA_FEDERATION_DEADLINE_MS', positiveInt, {
    default: '6000',
    description:
      'Overall deadline of a federated search or lookup; late sources are reported as timeout, in ms.',
  }),
  depth: envVar('ALEXANDRIA_FEDERATION_DEPTH', z.coerce.number().int().min(1).max(100), {
    default: '40',
    description:
      'Results asked from the local index and from each source per federated query (merged, then paged).',
  }),
  breakerCooldownMs: envVar('ALEXANDRIA_SOURCE_BREAKER_COOLDOWN_MS', positiveInt, {
    default: '30000',
    description: 'How long a source that failed 3 calls in a row is skipped before one trial call, in ms.',
  }),
  sourceUrls: envVar('ALEXANDRIA_SOURCE_URLS', sourceUrls, {
    default: '',
    description:
      'Base URL overrides, name=url comma-separated (mirrors, proxies, loopback fakes in benchmarks).',
  }),
};
