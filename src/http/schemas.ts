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

/**
 * The shape of a typed paper identifier, `<TYPE>:<value>` with a known TYPE, as a pattern without
 * flags (a JSON-Schema `pattern` has none, so the letter case is spelled out). parsePaperIdentifier
 * refuses every text outside it (a property test checks that), and also checks the value's syntax for
 * its type (a DOI, an arXiv id).
 */
export const paperIdPattern = new RegExp(
  `^\\s*(?:${identifierTypes.map(typeNamePattern).join('|')})\\s*:[\\s\\S]*\\S`,
);
