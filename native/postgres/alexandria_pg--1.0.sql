-- alexandria_pg 1.0: see alexandria_pg.c
\echo Use "CREATE EXTENSION alexandria_pg" to load this file. \quit

CREATE FUNCTION alexandria_bm25(tsvector, text[], float8[], float8[], int4, float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'alexandria_bm25'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
