import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { LRUCache } from 'lru-cache';

/**
 * The zod validator, remembering the result for query strings it has validated before. Validation
 * is a pure function of the parsed query, and agents repeat the same searches: for a repeated
 * search served from the cache, zod's parsing of ten parameters is the largest cost left (measured
 * by `npm run bench -- http`). Only successful results are kept; errors are recomputed.
 */
export const memoizedValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  const results = new LRUCache<string, Result>({ max: 2000 });
  return (data: unknown) => {
    const key = JSON.stringify(data);
    const hit = results.get(key);
    if (hit) return hit;
    const result = validate(data) as Result;
    if (typeof result === 'object' && !('then' in result) && result.error === undefined)
      results.set(key, result);
    return result;
  };
};

type Result = ReturnType<ReturnType<FastifySchemaCompiler<unknown>>>;
