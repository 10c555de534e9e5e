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

/**
 * The sources searched when ALEXANDRIA_SOURCES is not set (docs/decisions/0045): the open scholarly
 * sources that need no key and no contact address and have no tight shared rate limit, so that a
 * first search finds literature. Semantic Scholar's keyless pool (shared by every anonymous client,
 * often answering 429) is left out, as are Unpaywall (needs a contact address) and PatentsView (a key).
 */
export const defaultSourceNames = [
  'openalex',
  'crossref',
  'europepmc',
  'pubmed',
  'arxiv',
] as const satisfies readonly SourceName[];

/** ALEXANDRIA_SOURCES' word for "no upstream source": nothing leaves the machine. */
export const noSources = 'none';

const sourceList = listText
  .pipe(
    z.array(
      z
        .string()
        .toLowerCase()
        .refine(
          (name) => name === 'all' || name === noSources || (sourceNames as readonly string[]).includes(name),
          { message: `each entry must be one of ${sourceNames.join(', ')}, or all, or none` },
        ),
    ),
  )
  .refine((names) => !names.includes(noSources) || names.length === 1, {
    message: 'none cannot be combined with source names',
  })
  .transform((names) => names.filter((name) => name !== noSources));

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
 * Federated upstream sources. By default the open, keyless ones (`defaultSourceNames`), so that a
 * first search finds literature; `none` (or an empty value, how earlier versions said it) keeps every
 * request on the machine (docs/decisions/0008, 0045). Tests set `none` unless they test federation.
 */
export const sourcesSection = {
  enabled: envVar('ALEXANDRIA_SOURCES', sourceList, {
    default: defaultSourceNames.join(','),
    empty: noSources,
    description: `Upstream sources to federate, comma-separated (${sourceNames.join(', ')}), or "all", or "none": local index only, nothing leaves the machine (set but empty means none too). The default, the open sources that need no key, sends search words and identifiers to them.`,
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
