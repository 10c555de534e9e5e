/*
 * alexandria_pg, inverted layout: one search (decisions 0024, 0039). The words' blocks are read
 * with one SPI query over the named schema's tables, decoded (alexandria_postings.c), merged into
 * the matching documents, whose metadata rows are read (alexandria_docmeta.c), filtered and scored
 * with FTS5's BM25, the best `offset + limit` kept in a heap (alexandria_rank.c). Every loop checks for interrupts, so a cancel or a statement_timeout ends even a
 * search of the most common words within milliseconds.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"


void
require_column_type(const char *table, int column, Oid type)
{
	if (SPI_gettypeid(SPI_tuptable->tupdesc, column) != type)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
						errmsg("alexandria_inverted_search: column %d read from %s has type %s, not %s", column,
							   table, format_type_be(SPI_gettypeid(SPI_tuptable->tupdesc, column)),
							   format_type_be(type))));
}

static int
compare_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static ArrayType *
make_bigint_array(const int64 *values, int n)
{
	Datum	   *datums = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		datums[i] = Int64GetDatum(values[i]);
	return construct_array(datums, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/* The distinct words' postings (positions for words in a phrase), read and decoded. */
static Postings *
read_postings(const SearchRequest *r, const IndexTables *tables, int64 **distinct_out, int *n_distinct_out)
{
	int64	   *distinct = alloc_array(r->n_words, sizeof(int64));
	int			n_distinct = 0;
	Postings   *postings;

	memcpy(distinct, r->clause_words, sizeof(int64) * r->n_words);
	qsort(distinct, r->n_words, sizeof(int64), compare_int64);
	for (int i = 0; i < r->n_words; i++)
		if (n_distinct == 0 || distinct[n_distinct - 1] != distinct[i])
			distinct[n_distinct++] = distinct[i];
	postings = palloc0(sizeof(Postings) * Max(n_distinct, 1));
	for (int i = 0; i < n_distinct; i++)
	{
		postings[i].word = distinct[i];
		postings[i].last_doc = -1;
	}
	for (int c = 0; c < r->n_clauses; c++)
		if (r->clause_lengths[c] > 1)
			for (int j = r->clause_start[c]; j < r->clause_start[c + 1]; j++)
			{
				int64	   *found = bsearch(&r->clause_words[j], distinct, n_distinct, sizeof(int64), compare_int64);

				postings[found - distinct].need_positions = true;
			}
	*distinct_out = distinct;
	*n_distinct_out = n_distinct;
	if (n_distinct == 0)
		return postings;
	{
		int64	   *positional = palloc(sizeof(int64) * n_distinct);
		int			n_positional = 0;
		Oid			types[2] = {INT8ARRAYOID, INT8ARRAYOID};
		Datum		values[2];
		char	   *query;
		uint64		rows;
		int		   *row_word;
		bytea	  **row_docs;
		bytea	  **row_positions;
		int64	   *reserve = palloc0(sizeof(int64) * n_distinct);

		for (int i = 0; i < n_distinct; i++)
			if (postings[i].need_positions)
				positional[n_positional++] = distinct[i];
		values[0] = PointerGetDatum(make_bigint_array(distinct, n_distinct));
		values[1] = PointerGetDatum(make_bigint_array(positional, n_positional));
		query = psprintf("SELECT word, docs, CASE WHEN word OPERATOR(pg_catalog.=) ANY ($2) THEN positions END FROM ("
						 " SELECT word, seq, docs, positions FROM %s WHERE word OPERATOR(pg_catalog.=) ANY ($1)"
						 " UNION ALL SELECT id, 9223372036854775807, tail_docs, tail_positions FROM %s"
						 " WHERE id OPERATOR(pg_catalog.=) ANY ($1) AND tail_docs IS NOT NULL) b ORDER BY word, seq",
						 tables->postings, tables->words);
		if (SPI_execute_with_args(query, 2, types, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "alexandria_inverted_search: reading postings failed");
		require_column_type(tables->postings, 1, INT8OID);
		require_column_type(tables->postings, 2, BYTEAOID);
		require_column_type(tables->postings, 3, BYTEAOID);
		rows = SPI_processed;
		row_word = alloc_array(rows, sizeof(int));
		row_docs = alloc_array(rows, sizeof(bytea *));
		row_positions = alloc_array(rows, sizeof(bytea *));

		/* Inflate the blocks first, so that each word's arrays are sized once (a posting is ≥ 2 bytes). */
		for (uint64 at = 0; at < rows; at++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[at];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		null;
			int64		word = DatumGetInt64(SPI_getbinval(tuple, desc, 1, &null));
			Datum		docs;
			int64	   *found;
			Datum		positions;
			bool		positions_null;

			CHECK_FOR_INTERRUPTS();
			row_word[at] = -1;
			if (null)
				continue;
			docs = SPI_getbinval(tuple, desc, 2, &null);
			if (null)
				continue;
			found = bsearch(&word, distinct, n_distinct, sizeof(int64), compare_int64);
			if (!found)
				continue;
			row_word[at] = (int) (found - distinct);
			row_docs[at] = DatumGetByteaPP(docs);
			positions = SPI_getbinval(tuple, desc, 3, &positions_null);
			row_positions[at] = positions_null ? NULL : DatumGetByteaPP(positions);
			reserve[row_word[at]] += VARSIZE_ANY_EXHDR(row_docs[at]) / 2 + 1;
		}
		for (int i = 0; i < n_distinct; i++)
			postings_reserve(&postings[i], reserve[i]);
		for (uint64 at = 0; at < rows; at++)
			if (row_word[at] >= 0)
				postings_add_block(&postings[row_word[at]], row_docs[at], row_positions[at], r->weights);
	}
	return postings;
}

/* The documents holding every required clause, or (none required) any candidate clause: ascending. */
static int64 *
matching(const SearchRequest *r, const ClauseList *lists, int *n_matched)
{
	int64	   *matched;

	*n_matched = 0;
	if (r->n_required > 0)
	{
		const ClauseList *base;
		int		   *at = palloc0(sizeof(int) * r->n_required);
		int			shortest = 0;

		/* The intersection walks the shortest required list and seeks in the others. */
		for (int q = 1; q < r->n_required; q++)
			if (lists[r->required[q]].count < lists[r->required[shortest]].count)
				shortest = q;
		base = &lists[r->required[shortest]];
		matched = alloc_array(base->count, sizeof(int64));
		for (int i = 0; i < base->count; i++)
		{
			int64		doc = base->doc[i];
			bool		all = true;

			CHECK_FOR_INTERRUPTS();
			for (int q = 0; q < r->n_required && all; q++)
			{
				const ClauseList *l = &lists[r->required[q]];

				if (q == shortest)
					continue;
				while (at[q] < l->count && l->doc[at[q]] < doc)
					at[q]++;
				all = at[q] < l->count && l->doc[at[q]] == doc;
			}
			if (all)
				matched[(*n_matched)++] = doc;
		}
		return matched;
	}
	{
		int64		capacity = 0;
		int		   *at = palloc0(sizeof(int) * Max(r->n_candidates, 1));

		for (int c = 0; c < r->n_candidates; c++)
			capacity += lists[r->candidates[c]].count;
		matched = alloc_array(capacity, sizeof(int64));
		for (;;)
		{
			int64		next = PG_INT64_MAX;

			CHECK_FOR_INTERRUPTS();
			for (int c = 0; c < r->n_candidates; c++)
			{
				const ClauseList *l = &lists[r->candidates[c]];

				if (at[c] < l->count && l->doc[at[c]] < next)
					next = l->doc[at[c]];
			}
			if (next == PG_INT64_MAX)
				break;
			matched[(*n_matched)++] = next;
			for (int c = 0; c < r->n_candidates; c++)
			{
				const ClauseList *l = &lists[r->candidates[c]];

				if (at[c] < l->count && l->doc[at[c]] == next)
					at[c]++;
			}
		}
	}
	return matched;
}

void
run_search(const SearchRequest *r, const IndexTables *tables, ReturnSetInfo *rsinfo)
{
	MemoryContext outer = CurrentMemoryContext;
	int64	   *distinct;
	int			n_distinct;
	Postings   *postings;
	ClauseList *lists;
	int64	   *matched;
	int			n_matched;
	DocBlocks	blocks;
	Hit		   *heap;
	int			n_heap;
	int64		total;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "alexandria_inverted_search: SPI_connect failed");
	scratch_begin();
	postings = read_postings(r, tables, &distinct, &n_distinct);

	/* Each clause's (doc, frequency) list. */
	lists = palloc0(sizeof(ClauseList) * Max(r->n_clauses, 1));
	for (int c = 0; c < r->n_clauses; c++)
	{
		int			length = r->clause_lengths[c];
		Postings  **words = palloc(sizeof(Postings *) * length);

		for (int j = 0; j < length; j++)
		{
			int64	   *found = bsearch(&r->clause_words[r->clause_start[c] + j], distinct, n_distinct,
										sizeof(int64), compare_int64);

			words[j] = &postings[found - distinct];
		}
		clause_list(&lists[c], words, length, r->weights);
	}
	matched = matching(r, lists, &n_matched);
	doc_blocks_read(&blocks, tables, matched, n_matched, r->sort != 0);

	heap = rank(r, lists, matched, n_matched, &blocks, &total, &n_heap);

	/* Rows go out after SPI ends (the tuplestore lives in the caller's memory). */
	{
		Hit		   *page = MemoryContextAlloc(outer, sizeof(Hit) * Max(n_heap, 1));
		int			n_page = 0;

		for (int64 i = r->offset; i < n_heap; i++)
			page[n_page++] = heap[i];
		SPI_finish();
		if (n_page == 0)
		{
			Datum		values[3] = {0, Float8GetDatum(0), Int64GetDatum(total)};
			bool		nulls[3] = {true, true, false};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		for (int i = 0; i < n_page; i++)
		{
			Datum		values[3] = {Int64GetDatum(page[i].doc), Float8GetDatum(page[i].score), Int64GetDatum(total)};
			bool		nulls[3] = {false, false, false};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	scratch_end();
}
