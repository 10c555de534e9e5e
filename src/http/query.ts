import { z } from 'zod';

/**
 * Query-string building blocks. Query values arrive as strings ("true", "2019"); these accept both
 * the string and the typed form and give messages that name what was expected.
 */
export const queryBoolean = z.union([z.boolean(), z.string()]).transform((value, context) => {
  if (typeof value === 'boolean') return value;
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === '1' || text === 'yes') return true;
  if (text === 'false' || text === '0' || text === 'no' || text === '') return false;
  context.addIssue({ code: 'custom', message: `expected true or false, got "${value}"` });
  return z.NEVER;
});

/**
 * Marks a schema the OpenAPI document declares as `{type: integer, minimum, maximum}` instead of
 * the number-or-string union the validator reads (src/http/openapi.ts replaces it), so the
 * document carries the bounds the server enforces.
 */
export const integerMarker = 'x-alexandria-integer';

/**
 * Marks a parameter where a blank value means "not given" (ScholarAI clients send every parameter,
 * empty ones included): the document admits a blank string beside the integer.
 */
export const blankMarker = 'x-alexandria-blank';

/** An integer in [min, max], from a number or a numeric string. */
export function queryInt(options: { min?: number; max?: number } = {}) {
  const bounds = {
    ...(options.min === undefined ? {} : { minimum: options.min }),
    ...(options.max === undefined ? {} : { maximum: options.max }),
  };
  return integerBetween(options).meta({ [integerMarker]: bounds });
}

function integerBetween(options: { min?: number; max?: number }) {
  return z.union([z.number(), z.string()]).transform((value, context) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!/^-?\d+$/.test(text)) {
      context.addIssue({ code: 'custom', message: `expected an integer, got "${value}"` });
      return z.NEVER;
    }
    const number = Number.parseInt(text, 10);
    if (options.min !== undefined && number < options.min) {
      context.addIssue({ code: 'custom', message: `must be ≥ ${options.min}, got ${number}` });
      return z.NEVER;
    }
    if (options.max !== undefined && number > options.max) {
      context.addIssue({ code: 'custom', message: `must be ≤ ${options.max}, got ${number}` });
      return z.NEVER;
    }
    return number;
  });
}

/** A non-empty trimmed string of at most `max` characters. */
export function queryText(max = 2000) {
  return z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
}
