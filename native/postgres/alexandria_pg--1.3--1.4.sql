-- alexandria_pg 1.3 → 1.4 (decision 0067): the search reads and scores posting lists a window of
-- documents at a time (the C behind alexandria_inverted_search, nothing to change in SQL); the
-- compaction of tombstones, and what a backend reports of its last search's memory and its cache.
\echo Use "ALTER EXTENSION alexandria_pg UPDATE TO '1.4'" to load this file. \quit

CREATE FUNCTION alexandria_compact(index regnamespace, first_word int8, last_word int8, OUT words int8,
                                   OUT rows_rewritten int8, OUT postings_removed int8, OUT postings_kept int8)
AS 'MODULE_PATHNAME', 'alexandria_compact'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION alexandria_memory(index regnamespace, OUT search_base_bytes int8, OUT search_peak_bytes int8,
                                  OUT cache_entries int8, OUT cache_bytes int8)
AS 'MODULE_PATHNAME', 'alexandria_memory'
LANGUAGE C VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

REVOKE EXECUTE ON FUNCTION alexandria_compact(regnamespace, int8, int8) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_memory(regnamespace) FROM PUBLIC;
