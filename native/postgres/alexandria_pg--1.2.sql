-- alexandria_pg 1.2: see alexandria_pg.c and alexandria_inverted.c
\echo Use "CREATE EXTENSION alexandria_pg" to load this file. \quit

CREATE FUNCTION alexandria_bm25(tsvector, text[], float8[], float8[], int4, float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'alexandria_bm25'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
