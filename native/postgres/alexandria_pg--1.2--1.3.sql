-- alexandria_pg 1.2 → 1.3 (decision 0039): the search that takes the index's schema, and EXECUTE
-- revoked from PUBLIC on every function. The C behind every function is the hardened one as soon
-- as the new library is installed; this script changes what SQL can reach.
\echo Use "ALTER EXTENSION alexandria_pg UPDATE TO '1.3'" to load this file. \quit

CREATE FUNCTION alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[], float8[],
                                           float8, int4, bool, int4, int4, int4, int4, int4)
RETURNS TABLE (doc int8, score float8, total int8)
AS 'MODULE_PATHNAME', 'alexandria_inverted_search_in'
LANGUAGE C STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

REVOKE EXECUTE ON FUNCTION alexandria_bm25(tsvector, text[], float8[], float8[], int4, float8) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[],
                                                      float8[], float8, int4, bool, int4, int4, int4, int4, int4)
  FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_inverted_search(int8[], int4[], int4[], int4[], int4[], float8[], float8[], float8,
                                                      int4, bool, int4, int4, int4, int4, int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_docs_append(bytea, bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_slices(bytea, int4[]) FROM PUBLIC;
