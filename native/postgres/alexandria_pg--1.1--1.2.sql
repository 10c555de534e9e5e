-- alexandria_pg 1.1 → 1.2: alexandria_slices (alexandria_inverted.c)
\echo Use "ALTER EXTENSION alexandria_pg UPDATE TO '1.2'" to load this file. \quit

CREATE FUNCTION alexandria_slices(bytea, int4[])
RETURNS bytea[]
AS 'MODULE_PATHNAME', 'alexandria_slices'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
