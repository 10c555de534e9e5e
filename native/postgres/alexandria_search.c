/*
 * alexandria_pg, inverted layout: one search (decisions 0024, 0039, 0067). The words' blocks are
 * read in order through cursors over the named schema's tables and decoded a window of documents
 * at a time (alexandria_stream.c), merged into the matching documents, whose metadata rows are read (alexandria_docmeta.c), filtered and scored
 * with FTS5's BM25, the best `offset + limit` kept in a heap (alexandria_rank.c). Every loop checks for interrupts, so a cancel or a statement_timeout ends even a
 * search of the most common words within milliseconds.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
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

/* The distinct words, each with its (empty) postings, positions wanted for words in a phrase. */
static Postings *
distinct_words(const SearchRequest *r, int64 **distinct_out, int *n_distinct_out)
{
	int64	   *distinct = palloc(sizeof(int64) * Max(r->n_words, 1));
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

		/* Documents are distinct within a window: no more than it holds. */
		for (int c = 0; c < r->n_candidates; c++)
			capacity += lists[r->candidates[c]].count;
		capacity = Min(capacity, (int64) alexandria_search_window_docs);
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

/*
 * The memory the search holds: its SPI memory (windows, rows read, the page's heap), what it uses
 * of the kept scratch buffer, and the metadata cache (which it may grow). Counted over these
 * contexts only: walking all of the backend's contexts at every window cost more than the window.
 */
static int64
search_bytes(MemoryContext search_context)
{
	return (int64) MemoryContextMemAllocated(search_context, true) + (int64) scratch_used() + doc_cache_size();
}

/*
 * One search, a window of documents at a time (decision 0067): the window starts at the smallest
 * document any word has left and spans alexandria.search_window_docs document numbers, so each
 * word's decoded postings, the matches and the metadata rows of one window are bounded, however
 * common the words. Per window: the words' postings below its end decoded, the clauses' lists,
 * the matches, their metadata rows, then the matches scored into the page's heap (kept across
 * windows with the total). MaxScore's bounds are the window's own (a clause's largest frequency
 * in the window), never looser than the whole list's: the same pages as a whole-list search.
 */
void
run_search(const SearchRequest *r, const IndexTables *tables, ReturnSetInfo *rsinfo)
{
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext search_context;
	MemoryContext window;
	int64	   *distinct;
	int			n_distinct;
	Postings   *postings;
	WordStream *streams;
	Postings ***clause_words;
	RankState	state;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "alexandria_inverted_search: SPI_connect failed");
	search_context = CurrentMemoryContext;
	alexandria_search_base_bytes = doc_cache_size();
	alexandria_search_peak_bytes = search_bytes(search_context);
	scratch_begin();
	postings = distinct_words(r, &distinct, &n_distinct);
	streams = palloc(sizeof(WordStream) * Max(n_distinct, 1));
	clause_words = palloc(sizeof(Postings **) * Max(r->n_clauses, 1));
	for (int c = 0; c < r->n_clauses; c++)
	{
		int			length = r->clause_lengths[c];

		clause_words[c] = palloc(sizeof(Postings *) * length);
		for (int j = 0; j < length; j++)
		{
			int64	   *found = bsearch(&r->clause_words[r->clause_start[c] + j], distinct, n_distinct,
										sizeof(int64), compare_int64);

			clause_words[c][j] = &postings[found - distinct];
		}
	}
	doc_cache_prepare(tables);
	MemoryContextSwitchTo(search_context);
	streams_open(streams, postings, n_distinct, tables);
	MemoryContextSwitchTo(search_context);
	rank_start(&state, r, search_context);
	window = AllocSetContextCreate(search_context, "alexandria_pg search window", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		int64		low = -1;
		int64		high;
		ClauseList *lists;
		int64	   *matched;
		int			n_matched;
		DocBlocks	blocks;

		CHECK_FOR_INTERRUPTS();
		scratch_window(window);
		for (int i = 0; i < n_distinct; i++)
		{
			int64		next = stream_peek(&streams[i], window, r->weights);

			if (next >= 0 && (low < 0 || next < low))
				low = next;
		}
		if (low < 0)
			break;
		high = Min(low + (int64) alexandria_search_window_docs, MAX_DOC + 1);
		for (int i = 0; i < n_distinct; i++)
			stream_fill(&streams[i], high, window, r->weights);
		MemoryContextSwitchTo(window);
		lists = palloc0(sizeof(ClauseList) * Max(r->n_clauses, 1));
		for (int c = 0; c < r->n_clauses; c++)
			clause_list(&lists[c], clause_words[c], r->clause_lengths[c], r->weights);
		matched = matching(r, lists, &n_matched);
		doc_blocks_read(&blocks, tables, matched, n_matched, r->sort != 0);
		MemoryContextSwitchTo(window);
		rank(r, lists, matched, n_matched, &blocks, &state);
		alexandria_search_peak_bytes = Max(alexandria_search_peak_bytes, search_bytes(search_context));
		doc_blocks_free(&blocks);
		/* The next window's memory: the rows being decoded move there, the rest is freed. */
		{
			MemoryContext next = AllocSetContextCreate(search_context, "alexandria_pg search window",
													   ALLOCSET_DEFAULT_SIZES);

			for (int i = 0; i < n_distinct; i++)
				stream_carry(&streams[i], next);
			MemoryContextSwitchTo(search_context);
			MemoryContextDelete(window);
			window = next;
		}
	}
	MemoryContextSwitchTo(search_context);
	streams_close(streams, n_distinct);
	MemoryContextSwitchTo(search_context);
	rank_finish(&state);

	/* Rows go out after SPI ends (the tuplestore lives in the caller's memory). */
	{
		Hit		   *page = MemoryContextAlloc(outer, sizeof(Hit) * Max(state.n_heap, 1));
		int			n_page = 0;
		int64		total = state.total;

		for (int64 i = r->offset; i < state.n_heap; i++)
			page[n_page++] = state.heap[i];
		alexandria_search_peak_bytes = Max(alexandria_search_peak_bytes, search_bytes(search_context));
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
