/**
 * The response headers of the three search operations, for the OpenAPI document (route schemas
 * declare bodies only). Clients of the array form read paging, sources and the hint from these.
 */
export const searchOperations = new Set([
  'GET /api/abstracts',
  'GET /api/fast_paper_search',
  'GET /api/patents',
]);

const integer = { type: 'integer' };
const text = { type: 'string' };

export const searchResponseHeaders = {
  'x-total-count': {
    description: 'How many results the search has (a lower bound past 10 000).',
    schema: integer,
  },
  'x-next-offset': {
    description: 'The offset of the next page; absent on the last page.',
    schema: integer,
  },
  'x-alexandria-sources': {
    description:
      'What each upstream source did, when sources are on: `name=status` joined by `;` (status ok, failed, timeout or skipped), e.g. `index=ok;openalex=ok;arxiv=timeout`.',
    schema: text,
  },
  'x-alexandria-hint': {
    description:
      'The hint of the wrapped form, percent-encoded as UTF-8 outside printable ASCII (decodeURIComponent gives the text). On an empty result it says which case it is and what to do: the local index is empty (fill it with `alexandria ingest`, or turn sources on), upstream sources are off or unreachable (named), or nothing matched (other words, `query` rather than `keywords`, wider years).',
    schema: text,
  },
};
