/*
 * alexandria_pg, inverted layout (docs/decisions/0024, 0039): BM25 top-k over Alexandria's own
 * posting blocks instead of per-record tsvectors. This file: the search's entry points, its
 * arguments checked, and the index's tables found in one named schema.
 *
 * Tables (written by src/adapters/postgres/postgres-inverted-writes.ts):
 *   paper_words       (word text, id int8, records int4, tail_docs bytea, tail_positions bytea)
 *   paper_postings    (word int8, seq int8, docs bytea, positions bytea)   -- sealed blocks, by seq
 *   paper_docs        (block int4, core bytea, keys bytea)                  -- 1024 documents a row
 *   paper_index_stats (data_version int8, …)                                -- one row
 *
 * A posting list is the word's sealed blocks in `seq` order, then its tail; documents increase
 * along it (a changed record gets a new document number, its old one becomes a tombstone).
 *
 * docs: per posting, varint(doc − previous doc; the first from 0), then its term frequencies per
 * field: one byte A:2 B:3 C:3 bits (title, abstract, other fields) when they fit, else a 0 byte
 * and three varints. positions: per posting, in the same order, its tfA + tfB + tfC token
 * positions, delta-encoded varints (first from 0); the first tfA are in the title, the next tfB
 * in the abstract, the rest in the other fields (fields come in that order).
 *
 * core: per document 8 bytes, little-endian: int32 length in tokens, int16 year (−32768: none),
 * uint8 flags (1 live, 2 patent, 4 peer reviewed), one spare byte.
 * keys: per document 8 bytes: int32 citations (−1: none), int32 publication date as YYYYMMDD
 * (month and day 0 when unknown; −1: none).
 *
 *   alexandria_inverted_search(index regnamespace, clause_words int8[], clause_lengths int4[],
 *       required int4[], candidates int4[], scored int4[], idf float8[], weights float8[3],
 *       avgdl float8, kind int4 (−1: any), reviewed_only bool, start_year int4, end_year int4,
 *       sort int4 (0 relevance, 1 citations, 2 date), lim int4, off int4)
 *     → TABLE (doc int8, score float8, total int8)
 *
 * `index` is the schema of the index's tables (1.3). The form without it (1.0–1.2, kept until the
 * callers pass the schema) finds the schema holding paper_index_stats through the caller's
 * search_path, and refuses a temporary schema.
 *
 * Clauses are word-id sequences (a phrase, or one word): clause c is the next clause_lengths[c]
 * ≥ 1 words, and the lengths add up to the words given. A document matches when it holds every
 * `required` clause, or (none required) any `candidates` clause, is live, and passes the filters.
 * Its score is FTS5's BM25 summed over `scored` (clause indexes, a clause may appear twice), the
 * frequency of a clause being its occurrences weighted by the field they start in. Rows: the page
 * (`off`, `lim`, both ≥ 0) in the sort's order (key desc, nulls last; then score desc; then
 * document), each with the total; a page past the end is one row with a NULL document and the total.
 */
#include "alexandria_inverted.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#define FUNCTION "alexandria_inverted_search"

static void
invalid(const char *message, int64 value)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg(FUNCTION ": %s (got %lld)", message, (long long) value)));
}

static void
in_range(const char *name, const int32 *indexes, int n, int n_clauses)
{
	for (int i = 0; i < n; i++)
		if (indexes[i] < 0 || indexes[i] >= n_clauses)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg(FUNCTION ": %s clause index %d is outside 0..%d", name, indexes[i], n_clauses - 1)));
}

static int
compare_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Sorts a set of clause indexes and drops repeats: a clause required or a candidate twice is so once. */
static int
distinct_indexes(int32 *indexes, int n)
{
	int			kept = 0;

	qsort(indexes, n, sizeof(int32), compare_int32);
	for (int i = 0; i < n; i++)
		if (kept == 0 || indexes[kept - 1] != indexes[i])
			indexes[kept++] = indexes[i];
	return kept;
}

static void
weights_in_range(const char *name, const double *values, int n)
{
	for (int i = 0; i < n; i++)
		if (values[i] < 0 || values[i] > MAX_WEIGHT)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg(FUNCTION ": %s must lie in 0..%g, got %g", name, MAX_WEIGHT, values[i])));
}

/* The arguments from position `a` on (0, or 1 after the schema), every one checked. */
static void
read_request(FunctionCallInfo fcinfo, int a, SearchRequest *r)
{
	int			n_idf;
	int			n_weights;
	double	   *weights;
	int64		sum = 0;

	for (int i = 0; i <= 7; i++)
		if (PG_ARGISNULL(a + i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg(FUNCTION ": argument %d is null", a + i + 1)));
	r->clause_words = argument_bigints(FUNCTION, "clause_words", PG_GETARG_ARRAYTYPE_P(a), &r->n_words);
	r->clause_lengths = argument_ints(FUNCTION, "clause_lengths", PG_GETARG_ARRAYTYPE_P(a + 1), &r->n_clauses);
	r->required = argument_ints(FUNCTION, "required", PG_GETARG_ARRAYTYPE_P(a + 2), &r->n_required);
	r->candidates = argument_ints(FUNCTION, "candidates", PG_GETARG_ARRAYTYPE_P(a + 3), &r->n_candidates);
	r->scored = argument_ints(FUNCTION, "scored", PG_GETARG_ARRAYTYPE_P(a + 4), &r->n_scored);
	r->idf = argument_floats(FUNCTION, "idf", PG_GETARG_ARRAYTYPE_P(a + 5), &n_idf);
	weights = argument_floats(FUNCTION, "weights", PG_GETARG_ARRAYTYPE_P(a + 6), &n_weights);
	r->avgdl = PG_GETARG_FLOAT8(a + 7);
	r->kind = PG_ARGISNULL(a + 8) ? -1 : PG_GETARG_INT32(a + 8);
	r->reviewed_only = PG_ARGISNULL(a + 9) ? false : PG_GETARG_BOOL(a + 9);
	r->has_start = !PG_ARGISNULL(a + 10);
	r->start_year = r->has_start ? PG_GETARG_INT32(a + 10) : 0;
	r->has_end = !PG_ARGISNULL(a + 11);
	r->end_year = r->has_end ? PG_GETARG_INT32(a + 11) : 0;
	r->sort = PG_ARGISNULL(a + 12) ? 0 : PG_GETARG_INT32(a + 12);
	r->limit = PG_ARGISNULL(a + 13) ? 10 : PG_GETARG_INT32(a + 13);
	r->offset = PG_ARGISNULL(a + 14) ? 0 : PG_GETARG_INT32(a + 14);

	if (n_weights != 3)
		invalid("3 field weights expected", n_weights);
	weights_in_range("a field weight", weights, 3);
	memcpy(r->weights, weights, sizeof(r->weights));
	if (n_idf != r->n_scored)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg(FUNCTION ": %d scored clauses but %d IDFs", r->n_scored, n_idf)));
	weights_in_range("an IDF", r->idf, n_idf);
	require_finite(FUNCTION, "avgdl", r->avgdl);
	if (r->avgdl <= 0)
		r->avgdl = 1;
	if (r->kind < -1 || r->kind > 1)
		invalid("kind must be -1 (any), 0 (papers) or 1 (patents)", r->kind);
	if (r->sort < 0 || r->sort > 2)
		invalid("sort must be 0 (relevance), 1 (citations) or 2 (date)", r->sort);
	if (r->limit < 0)
		invalid("the limit must not be negative", r->limit);
	if (r->offset < 0)
		invalid("the offset must not be negative", r->offset);

	/* Every clause holds at least one word, and the clauses hold exactly the words given. */
	r->clause_start = palloc(sizeof(int) * (r->n_clauses + 1));
	r->clause_start[0] = 0;
	for (int c = 0; c < r->n_clauses; c++)
	{
		if (r->clause_lengths[c] < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg(FUNCTION ": clause %d has length %d; a clause holds at least one word",
								   c, r->clause_lengths[c])));
		sum += r->clause_lengths[c];
		if (sum > r->n_words)
			break;
		r->clause_start[c + 1] = (int) sum;
	}
	if (sum != r->n_words)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg(FUNCTION ": clause lengths add up to %s%lld, %d words given",
							   sum > r->n_words ? "more than " : "", (long long) sum, r->n_words)));
	in_range("a required", r->required, r->n_required, r->n_clauses);
	in_range("a candidate", r->candidates, r->n_candidates, r->n_clauses);
	in_range("a scored", r->scored, r->n_scored, r->n_clauses);
	r->n_required = distinct_indexes(r->required, r->n_required);
	r->n_candidates = distinct_indexes(r->candidates, r->n_candidates);
}

/* The relation `name` of the index's schema: it must exist and be a table. */
static char *
index_table(Oid namespace, const char *schema, const char *name, Oid *relid_out)
{
	Oid			relid = get_relname_relid(name, namespace);
	char		kind;

	if (!OidIsValid(relid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg(FUNCTION ": relation \"%s.%s\" does not exist", schema, name)));
	kind = get_rel_relkind(relid);
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
						errmsg(FUNCTION ": \"%s.%s\" is not a table", schema, name)));
	if (relid_out)
		*relid_out = relid;
	return quote_qualified_identifier(schema, name);
}

void
index_tables(Oid namespace, IndexTables *tables)
{
	char	   *schema = get_namespace_name(namespace);

	if (schema == NULL)
		ereport(ERROR, (errcode(ERRCODE_INVALID_SCHEMA_NAME),
						errmsg(FUNCTION ": no schema has OID %u", namespace)));
	if (isAnyTempNamespace(namespace))
		ereport(ERROR, (errcode(ERRCODE_INVALID_SCHEMA_NAME),
						errmsg(FUNCTION ": a temporary schema cannot hold the index")));
	tables->namespace = namespace;
	tables->words = index_table(namespace, schema, "paper_words", NULL);
	tables->postings = index_table(namespace, schema, "paper_postings", NULL);
	tables->docs = index_table(namespace, schema, "paper_docs", &tables->docs_relid);
	tables->stats = index_table(namespace, schema, "paper_index_stats", NULL);
}

/* The 1.0–1.2 form: the schema of the first paper_index_stats on the caller's search_path. */
static Oid
search_path_namespace(void)
{
	Oid			relid = RangeVarGetRelid(makeRangeVar(NULL, "paper_index_stats", -1), NoLock, true);

	if (!OidIsValid(relid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg(FUNCTION ": no paper_index_stats on the search_path; pass the index's schema first (alexandria_pg 1.3)")));
	return get_rel_namespace(relid);
}

/*
 * Whether a search is running in this backend. A search reads tables through SPI, and reading a
 * table can run code (a row-level security policy, a view put where a table was): a search
 * started from there would reuse the metadata cache of the search under way.
 */
static bool searching = false;

static Datum
search(FunctionCallInfo fcinfo, bool named_schema)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SearchRequest request;
	IndexTables tables;
	Oid			namespace;

	if (named_schema && PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg(FUNCTION ": the index's schema (argument 1) is null")));
	read_request(fcinfo, named_schema ? 1 : 0, &request);
	namespace = named_schema ? PG_GETARG_OID(0) : search_path_namespace();
	index_tables(namespace, &tables);
	InitMaterializedSRF(fcinfo, 0);
	if (searching)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg(FUNCTION ": cannot run inside another search (from code run by reading the index's tables)")));
	searching = true;
	PG_TRY();
	{
		run_search(&request, &tables, rsinfo);
	}
	PG_FINALLY();
	{
		searching = false;
	}
	PG_END_TRY();
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(alexandria_inverted_search_in);

Datum
alexandria_inverted_search_in(PG_FUNCTION_ARGS)
{
	return search(fcinfo, true);
}

PG_FUNCTION_INFO_V1(alexandria_inverted_search);

Datum
alexandria_inverted_search(PG_FUNCTION_ARGS)
{
	return search(fcinfo, false);
}
