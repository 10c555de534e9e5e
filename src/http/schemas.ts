import { z } from 'zod';
import { errorCodes } from '../domain/errors.js';

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
};
