-- alexandria_pg 1.3: see alexandria_pg.c and alexandria_inverted.c; decision 0039 (hardening)
\echo Use "CREATE EXTENSION alexandria_pg" to load this file. \quit

CREATE FUNCTION alexandria_bm25(tsvector, text[], float8[], float8[], int4, float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'alexandria_bm25'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The index's schema comes first: the function never looks its tables up through the caller's
-- search_path, and runs with a search_path of pg_catalog only.
CREATE FUNCTION alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[], float8[],
                                           float8, int4, bool, int4, int4, int4, int4, int4)
RETURNS TABLE (doc int8, score float8, total int8)
AS 'MODULE_PATHNAME', 'alexandria_inverted_search_in'
LANGUAGE C STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

-- The form of 1.1 and 1.2 (finds the index through the caller's search_path), kept for callers
-- that do not pass the schema yet; to be dropped by a later version.
CREATE FUNCTION alexandria_inverted_search(int8[], int4[], int4[], int4[], int4[], float8[], float8[], float8,
                                           int4, bool, int4, int4, int4, int4, int4)
RETURNS TABLE (doc int8, score float8, total int8)
AS 'MODULE_PATHNAME', 'alexandria_inverted_search'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE FUNCTION alexandria_docs_append(bytea, bytea)
RETURNS bytea
AS 'MODULE_PATHNAME', 'alexandria_docs_append'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION alexandria_slices(bytea, int4[])
RETURNS bytea[]
AS 'MODULE_PATHNAME', 'alexandria_slices'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Only the roles granted EXECUTE run C code on their arguments: the role that creates an index
-- (the paper index grants itself when it may), or roles an administrator grants.
REVOKE EXECUTE ON FUNCTION alexandria_bm25(tsvector, text[], float8[], float8[], int4, float8) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[],
                                                      float8[], float8, int4, bool, int4, int4, int4, int4, int4)
  FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_inverted_search(int8[], int4[], int4[], int4[], int4[], float8[], float8[], float8,
                                                      int4, bool, int4, int4, int4, int4, int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_docs_append(bytea, bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION alexandria_slices(bytea, int4[]) FROM PUBLIC;
