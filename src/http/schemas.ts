import { z } from 'zod';
import { errorCodes } from '../domain/errors.js';
import { identifierTypes } from '../domain/identifiers.js';

/** The OpenAI error envelope, for the OpenAPI document. */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      code: z.enum(errorCodes),
      param: z.string().nullable(),
    }),
  })
  .meta({ id: 'Error' });

/** The error responses every keyed route can give. */
export const errorResponses = {
  400: errorEnvelopeSchema.describe('Invalid parameter (named in error.param).'),
  401: errorEnvelopeSchema.describe('Missing, unknown or revoked API key.'),
  404: errorEnvelopeSchema.describe('Not found.'),
  429: errorEnvelopeSchema.describe('Rate limit exceeded; see Retry-After.'),
  503: errorEnvelopeSchema.describe(
    'A dependency (the database, the blob store) is out for now; retry after Retry-After seconds.',
  ),
};

/**
 * What a heavy request (reference checks, citation contexts, project graphs, analyses) can also
 * answer: it runs within the tenant's share, the service's slots and a time budget
 * (docs/decisions/0042-heavy-work-budgets.md). 429 and 503 carry Retry-After.
 */
export const heavyErrorResponses = {
  429: errorEnvelopeSchema.describe(
    'Rate limit exceeded, or you already have ALEXANDRIA_HEAVY_PER_TENANT heavy requests running or waiting; retry after Retry-After seconds.',
  ),
  503: errorEnvelopeSchema.describe(
    'The service is busy with other tenants’ heavy requests (no slot came free within ALEXANDRIA_HEAVY_QUEUE_MS); retry after Retry-After seconds.',
  ),
  504: errorEnvelopeSchema.describe(
    'The request ran past its time budget (ALEXANDRIA_HEAVY_TIMEOUT_MS) and was stopped; a reference check keeps what it did and goes on when asked again.',
  ),
};

/** What a request that may parse a PDF can also answer: 429 past the tenant's share of parses. */
export const parseErrorResponses = {
  429: errorEnvelopeSchema.describe(
    'Rate limit exceeded, or you already have ALEXANDRIA_PARSE_PER_TENANT PDF parses running or waiting; retry after Retry-After seconds.',
  ),
};

/**
 * What a route that reads a request body can also answer: any POST, PUT or DELETE, because the
 * framework reads the body of those methods (by its content type) before the route runs.
 */
export const bodyErrorResponses = {
  413: errorEnvelopeSchema.describe('The request body is larger than the limit.'),
  415: errorEnvelopeSchema.describe('The request body has a content type this route does not read.'),
};

/**
 * The characters whose upper case is each letter A–Z: parsePaperIdentifier upper-cases the type
 * with toUpperCase, which also maps `ı` to I and `ſ` to S. One pass over the BMP, at load.
 */
const lettersByUpperCase = (() => {
  const letters = new Map<string, string[]>();
  for (let code = 0; code <= 0xffff; code += 1) {
    const char = String.fromCharCode(code);
    const upper = char.toUpperCase();
    if (upper.length === 1 && upper >= 'A' && upper <= 'Z')
      letters.set(upper, [...(letters.get(upper) ?? []), char]);
  }
  return letters;
})();

const letterClass = (letter: string) => `[${(lettersByUpperCase.get(letter) ?? [letter]).join('')}]`;

/** A type name as parsePaperIdentifier reads it: any case, `ß` for SS, `-` for `_`. */
function typeNamePattern(name: string): string {
  return name
    .split(/(SS|_)/)
    .filter((part) => part !== '')
    .map((part) => {
      if (part === '_') return '[-_]';
      const letters = [...part].map(letterClass).join('');
      return part === 'SS' ? `(?:${letters}|ß)` : letters;
    })
    .join('');
}

/** `word` in any ASCII letter case, as a regular expression's `i` flag reads it (no flags in JSON Schema). */
function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (letter) => `[${letter.toUpperCase()}${letter.toLowerCase()}]`);
}

/**
 * What normalizeIdentifier (src/domain/identifiers.ts) accepts as the value of each type, before its
 * trim: the prefixes it strips, then the syntax it checks. `[0-9]`, never `\d`: JavaScript's `\d`
 * is ASCII only, other engines' is not.
 */
const identifierValues: Record<(typeof identifierTypes)[number], string> = {
  DOI: `(?:(?:${anyCase('http')}[Ss]?://)?(?:${anyCase('dx')}\\.)?${anyCase('doi')}\\.${anyCase('org')}/)?(?:${anyCase('doi')}:\\s*)?10\\.[0-9]{4,9}/\\S+`,
  ARXIV: `(?:(?:${anyCase('http')}[Ss]?://)?(?:${anyCase('www')}\\.)?${anyCase('arxiv')}\\.${anyCase('org')}/(?:${anyCase('abs')}|${anyCase('pdf')})/)?(?:${anyCase('arxiv')}:)?(?:[0-9]{4}\\.[0-9]{4,5}|[A-Za-z-]+(?:\\.[A-Za-z]{2})?/[0-9]{7})(?:[Vv][0-9]+)?(?:\\.${anyCase('pdf')})?`,
  PMCID: `(?:${anyCase('pmc')})?[0-9]+`,
  PMID: '[0-9]+',
  MAG: '[0-9]+',
  SS_ID: `(?:[0-9A-Fa-f]{40}|${anyCase('corpusid')}:[0-9]+)`,
  ACL: '[A-Za-z0-9][A-Za-z0-9.-]{2,40}',
};

/**
 * A typed paper identifier, `<TYPE>:<value>`, exactly as parsePaperIdentifier accepts it: a known
 * TYPE in any case, then a value of that type's syntax (a DOI, an arXiv id, digits, …), as a pattern
 * without flags (a JSON-Schema `pattern` has none, so the letter case is spelled out). The document
 * declares it; parsePaperIdentifier enforces it, with its own messages (decision 0052).
 */
export const paperIdPattern = new RegExp(
  `^\\s*(?:${identifierTypes
    .map((type) => `${typeNamePattern(type)}\\s*:\\s*${identifierValues[type]}`)
    .join('|')})\\s*$`,
);
