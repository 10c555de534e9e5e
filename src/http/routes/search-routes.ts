import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppServices } from '../../app-services.js';
import { type Paper, paperSchema } from '../../domain/paper.js';
import { type SearchRequest, type SearchResult, sortOrders } from '../../domain/search.js';
import { sourcesHeader } from '../../services/federation/source-monitor.js';
import { hintHeaderName, hintHeaderValue } from '../hint-header.js';
import { memoizedValidatorCompiler } from '../memo-validator.js';
import { blankMarker, queryBoolean, queryInt } from '../query.js';
import { type CachedResponse, ResponseCache } from '../response-cache.js';
import { errorResponses } from '../schemas.js';
import { abortOnClientClose } from './client-abort.js';
import type { RouteModule } from './route-context.js';

/** ScholarAI clients send every parameter as a string, empty ones included: "" means "not given". */
const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess(blankToUndefined, schema.optional()).meta({ [blankMarker]: true });

const searchText = (description: string) =>
  optional(z.string().trim().max(2000, 'must be at most 2000 characters')).describe(description);

/** The query parameters of the three search endpoints (names as in ScholarAI's API). */
const searchParameters = {
  keywords: searchText(
    'Words that should appear in the paper (English; 2–6 advised). Every keyword is required unless no paper has them all; a "quoted phrase" must appear as written.',
  ),
  query: searchText(
    'The question in natural language; its words rank the results (BM25). A "quoted phrase" (escaped quotes) must appear as written. At least one of keywords and query is required.',
  ),
  sort: optional(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(sortOrders, { error: `expected one of ${sortOrders.join(', ')}` })),
  ).describe('relevance (default), cited_by_count (most cited first) or publication_date (newest first).'),
  peer_reviewed_only: optional(queryBoolean).describe(
    'Keep only journal articles, conference papers and granted patents (default true).',
  ),
  start_year: optional(queryInt({ min: 1000, max: 2999 })).describe('First publication year, inclusive.'),
  end_year: optional(queryInt({ min: 1000, max: 2999 })).describe('Last publication year, inclusive.'),
  offset: optional(queryInt({ min: 0, max: 10_000 })).describe('Results to skip (default 0).'),
  limit: optional(queryInt({ min: 1, max: 100 })).describe('Page size (default 10, at most 100). Extension.'),
  generative_mode: optional(queryBoolean).describe(
    'When true, each record gets an `answer`: what that paper says about the query, with a citation.',
  ),
  format: optional(z.enum(['array', 'wrapped'])).describe(
    "array (default): the JSON array of the spec. wrapped: ScholarAI's {paper_data, next_offset, total_num_results, hint}.",
  ),
};

const paperSearchQuery = z.object(searchParameters);
const patentSearchQuery = z.object({
  ...searchParameters,
  full_user_prompt: searchText('The whole request of the user, quoted; context only, not matched.'),
});
type SearchQuery = z.infer<typeof patentSearchQuery>;

const wrappedRecordSchema = paperSchema
  .extend({
    creators: z.array(z.string()).describe('Same as authors (ScholarAI wrapped form).'),
    publicationDate: z.string().nullable().describe('Same as publication_date (ScholarAI wrapped form).'),
  })
  .meta({ id: 'WrappedPaper' });

const wrappedSchema = z
  .object({
    paper_data: z.array(wrappedRecordSchema),
    next_offset: z.number().int().nullable(),
    total_num_results: z.number().int(),
    hint: z.string(),
  })
  .meta({ id: 'WrappedSearchResult' });

const searchResponse = {
  200: z
    .union([z.array(paperSchema), wrappedSchema])
    .describe('A JSON array of paper records (or the wrapped form with format=wrapped).'),
  ...errorResponses,
};

// The headers themselves are described on the responses (src/http/openapi-search-headers.ts).
const pagingDescription =
  ' Headers: `x-total-count` and `x-next-offset` (paging), `x-alexandria-hint` (why a result is empty and what to do).';

/**
 * Paper and patent search: /api/abstracts (may add generated answers), /api/fast_paper_search (the
 * fastest path: no answers, no enrichment) and /api/patents, with ScholarAI's parameter names.
 */
export const searchRoutes: RouteModule = (app, { services, config, indexVersion }) => {
  const responses = new ResponseCache({
    ttlSeconds: config.search.cacheTtlSeconds,
    dataVersion: indexVersion,
  });

  app.get(
    '/api/abstracts',
    {
      config: { access: 'key' },
      validatorCompiler: memoizedValidatorCompiler,
      schema: {
        summary: 'Search papers, for agents',
        description: `Relevant papers with their abstracts and metadata (BM25 over the local index; federated upstream when configured). With generative_mode=true each record also gets an answer.${pagingDescription}`,
        tags: ['search'],
        querystring: paperSearchQuery,
        response: searchResponse,
      },
    },
    async (request, reply) => {
      const generative = request.query.generative_mode === true;
      const key = generative
        ? undefined
        : await responses.keyFor(`abstracts|${JSON.stringify(request.query)}`);
      const cached = key === undefined ? undefined : responses.get(key);
      if (cached) return replay(reply, cached);
      const search = toSearchRequest(request.query);
      const signal = abortOnClientClose(reply);
      const result = await services.search.searchPapers(search, { signal });
      const papers = await withAnswers(services, result.papers, search, { generative, signal });
      const body = send(reply, request.query, papers, result);
      return key === undefined ? body : remember(responses, key, reply, body);
    },
  );

  app.get(
    '/api/fast_paper_search',
    {
      config: { access: 'key' },
      validatorCompiler: memoizedValidatorCompiler,
      schema: {
        summary: 'Search papers, fastest path',
        description: `The same search as /api/abstracts with no language-model work and no per-paper enrichment (generative_mode is accepted and ignored).${pagingDescription}`,
        tags: ['search'],
        querystring: paperSearchQuery,
        response: searchResponse,
      },
    },
    async (request, reply) => {
      const key = await responses.keyFor(`fast|${JSON.stringify(request.query)}`);
      const cached = responses.get(key);
      if (cached) return replay(reply, cached);
      const result = await services.search.searchPapers(toSearchRequest(request.query), {
        signal: abortOnClientClose(reply),
      });
      return remember(responses, key, reply, send(reply, request.query, result.papers, result));
    },
  );

  app.get(
    '/api/patents',
    {
      config: { access: 'key' },
      validatorCompiler: memoizedValidatorCompiler,
      schema: {
        summary: 'Search patents',
        description: `Patents (inventors, assignees, number, kind, dates) by 2–6 keywords, or a quoted phrase in query. peer_reviewed_only=true (default) keeps granted patents.${pagingDescription}`,
        tags: ['search'],
        querystring: patentSearchQuery,
        response: searchResponse,
      },
    },
    async (request, reply) => {
      const generative = request.query.generative_mode === true;
      const key = generative ? undefined : await responses.keyFor(`patents|${JSON.stringify(request.query)}`);
      const cached = key === undefined ? undefined : responses.get(key);
      if (cached) return replay(reply, cached);
      const search = toSearchRequest(request.query);
      const signal = abortOnClientClose(reply);
      const result = await services.search.searchPatents(search, { signal });
      const papers = await withAnswers(services, result.papers, search, { generative, signal });
      const body = send(reply, request.query, papers, result);
      return key === undefined ? body : remember(responses, key, reply, body);
    },
  );
};

function toSearchRequest(query: SearchQuery): SearchRequest {
  return {
    ...(query.keywords ? { keywords: query.keywords } : {}),
    ...(query.query ? { query: query.query } : {}),
    ...(query.full_user_prompt ? { fullUserPrompt: query.full_user_prompt } : {}),
    sort: query.sort ?? 'relevance',
    peerReviewedOnly: query.peer_reviewed_only ?? true,
    ...(query.start_year === undefined ? {} : { startYear: query.start_year }),
    ...(query.end_year === undefined ? {} : { endYear: query.end_year }),
    offset: query.offset ?? 0,
    limit: query.limit ?? 10,
  };
}

/**
 * The one post-processing step of a result page: in generative mode, the `answer` of each record
 * (what that paper says about the question). Everything else is the search service's.
 */
async function withAnswers(
  services: AppServices,
  papers: Paper[],
  search: SearchRequest,
  options: { generative: boolean; signal: AbortSignal },
): Promise<Paper[]> {
  if (!options.generative || papers.length === 0) return papers;
  const question = search.query ?? search.fullUserPrompt ?? search.keywords ?? '';
  return services.answers.annotate(papers, question, { signal: options.signal });
}

function send(reply: FastifyReply, query: SearchQuery, papers: Paper[], result: SearchResult) {
  reply.header('x-total-count', String(result.total));
  if (result.nextOffset !== null) reply.header('x-next-offset', String(result.nextOffset));
  if (result.sources?.some((report) => report.source !== 'index')) {
    reply.header('x-alexandria-sources', sourcesHeader(result.sources));
  }
  // The array form has no room for the hint: an empty `[]` must still say why (decision 0045).
  reply.header(hintHeaderName, hintHeaderValue(result.hint));
  if (query.format !== 'wrapped') return papers;
  return {
    paper_data: papers.map((paper) => ({
      ...paper,
      creators: paper.authors,
      publicationDate: paper.publication_date,
    })),
    next_offset: result.nextOffset,
    total_num_results: result.total,
    hint: result.hint,
  };
}

/** Headers of a search answer that a replayed answer must carry too. */
const pagingHeaders = ['x-total-count', 'x-next-offset', 'x-alexandria-sources', hintHeaderName] as const;

/** Serialises the answer once, keeps it with its paging headers, and sends that text. */
function remember(responses: ResponseCache, key: string, reply: FastifyReply, body: unknown): FastifyReply {
  const headers: Record<string, string> = {};
  for (const name of pagingHeaders) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  const cached = { body: Buffer.from(JSON.stringify(body)), headers };
  responses.set(key, cached);
  return replay(reply, cached);
}

function replay(reply: FastifyReply, cached: CachedResponse): FastifyReply {
  reply.headers(cached.headers);
  return reply.type('application/json; charset=utf-8').send(cached.body);
}
