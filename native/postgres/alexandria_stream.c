/*
 * alexandria_pg, inverted layout: a word's stored posting list read in order, a few rows at a time
 * (decision 0067). One query reads every word's first FIRST_ROWS sealed blocks (paper_postings by
 * (word, seq): the primary key's order) and one every word's tail (paper_words); a word with more
 * sealed blocks reads the rest through a cursor, FETCH_ROWS rows a fetch (closed once read).
 * Each row is copied into the current window's memory and decoded up to the window's end. What a
 * word costs in memory is therefore one fetch of rows and one window of decoded postings, whatever
 * its frequency.
 *
 * Stored bytes are not trusted (decision 0039): every read is bounded by the bytes' end, documents
 * must ascend within the allowed range (across rows and windows) and frequencies fit int4;
 * anything else ends the statement with ERRCODE_DATA_CORRUPTED naming the word.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * Sealed blocks read per word with the search's first query (most words have no more), then per
 * fetch (sealed blocks hold ~384 bytes of docs each).
 */
#define FIRST_ROWS 8
#define FETCH_ROWS 64

/* The queries, prepared once per index schema and kept (PostgreSQL replans them when tables change). */
static Oid	plans_namespace = InvalidOid;
static char plans_tables[2 * NAMEDATALEN * 4 + 16];	/* the quoted names they were written with */
static SPIPlanPtr first_plan;
static SPIPlanPtr next_plan;
static SPIPlanPtr tail_plan;

/* This search's first fetch and tails (kept until SPI ends), and its tables. */
static SPITupleTable *first_rows;
static SPITupleTable *tail_rows;
static const IndexTables *stream_tables;

static SPIPlanPtr
kept_plan(const char *query, int n, Oid *types)
{
	SPIPlanPtr	plan = SPI_prepare(query, n, types);

	if (plan == NULL || SPI_keepplan(plan) != 0)
		elog(ERROR, "alexandria_inverted_search: preparing a postings query failed");
	return plan;
}

static void
prepare_plans(const IndexTables *tables)
{
	Oid			arrays[2] = {INT8ARRAYOID, INT8ARRAYOID};
	Oid			next_types[3] = {INT8OID, INT8OID, BOOLOID};
	char	   *names = psprintf("%s %s", tables->postings, tables->words);

	/* The same schema under the same name (a renamed schema gets plans naming it anew). */
	if (plans_namespace == tables->namespace && first_plan != NULL && strcmp(names, plans_tables) == 0)
		return;
	if (first_plan)
		SPI_freeplan(first_plan);
	if (next_plan)
		SPI_freeplan(next_plan);
	if (tail_plan)
		SPI_freeplan(tail_plan);
	first_plan = next_plan = tail_plan = NULL;
	plans_namespace = InvalidOid;
	first_plan = kept_plan(psprintf("SELECT w.word, p.seq, p.docs, CASE WHEN w.word OPERATOR(pg_catalog.=) ANY ($2)"
									" THEN p.positions END FROM pg_catalog.unnest($1) AS w(word) CROSS JOIN LATERAL"
									" (SELECT seq, docs, positions FROM %s WHERE word OPERATOR(pg_catalog.=) w.word"
									" ORDER BY seq LIMIT %d) p ORDER BY w.word, p.seq",
									tables->postings, FIRST_ROWS), 2, arrays);
	/*
	 * A cursor, read FETCH_ROWS rows at a time: one scan of the word's remaining blocks (a query
	 * per fetch, LIMIT after the last seq, was planned as a scan and sort of all of them each time).
	 */
	next_plan = SPI_prepare_cursor(psprintf("SELECT seq, docs, CASE WHEN $3 THEN positions END FROM %s"
											" WHERE word OPERATOR(pg_catalog.=) $1 AND seq OPERATOR(pg_catalog.>) $2"
											" ORDER BY seq", tables->postings), 3, next_types, CURSOR_OPT_FAST_PLAN);
	if (next_plan == NULL || SPI_keepplan(next_plan) != 0)
		elog(ERROR, "alexandria_inverted_search: preparing a postings query failed");
	tail_plan = kept_plan(psprintf("SELECT id, tail_docs, CASE WHEN id OPERATOR(pg_catalog.=) ANY ($2)"
								   " THEN tail_positions END FROM %s WHERE id OPERATOR(pg_catalog.=) ANY ($1)"
								   " AND tail_docs IS NOT NULL ORDER BY id", tables->words), 2, arrays);
	strlcpy(plans_tables, names, sizeof(plans_tables));
	plans_namespace = tables->namespace;
}

static ArrayType *
bigint_array(const int64 *values, int n)
{
	Datum	   *datums = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		datums[i] = Int64GetDatum(values[i]);
	return construct_array(datums, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/* The stream of `word` (streams ascend by word), or NULL. */
static WordStream *
stream_of(WordStream *streams, int n, int64 word)
{
	int			low = 0;
	int			high = n - 1;

	while (low <= high)
	{
		int			mid = low + (high - low) / 2;

		if (streams[mid].postings->word == word)
			return &streams[mid];
		if (streams[mid].postings->word < word)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return NULL;
}

void
streams_open(WordStream *streams, Postings *postings, int n, const IndexTables *tables)
{
	int64	   *words = palloc(sizeof(int64) * Max(n, 1));
	int64	   *positional = palloc(sizeof(int64) * Max(n, 1));
	int			n_positional = 0;
	Datum		values[2];
	MemoryContext old = CurrentMemoryContext;

	stream_tables = tables;
	first_rows = NULL;
	tail_rows = NULL;
	memset(streams, 0, sizeof(WordStream) * n);
	for (int i = 0; i < n; i++)
	{
		streams[i].postings = &postings[i];
		streams[i].tail_row = -1;
		words[i] = postings[i].word;
		if (postings[i].need_positions)
			positional[n_positional++] = postings[i].word;
	}
	if (n == 0)
		return;
	prepare_plans(tables);
	MemoryContextSwitchTo(old);
	values[0] = PointerGetDatum(bigint_array(words, n));
	values[1] = PointerGetDatum(bigint_array(positional, n_positional));
	if (SPI_execute_plan(first_plan, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "alexandria_inverted_search: reading postings failed");
	MemoryContextSwitchTo(old);
	require_column_type(tables->postings, 1, INT8OID);
	require_column_type(tables->postings, 2, INT8OID);
	require_column_type(tables->postings, 3, BYTEAOID);
	require_column_type(tables->postings, 4, BYTEAOID);
	first_rows = SPI_tuptable;
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		null;
		int64		word = DatumGetInt64(SPI_getbinval(first_rows->vals[r], first_rows->tupdesc, 1, &null));
		WordStream *s = null ? NULL : stream_of(streams, n, word);

		if (s == NULL)
			continue;
		/* Rows come by word: a word's rows are one run. */
		if (s->first_end == 0)
			s->first_at = r;
		s->first_end = r + 1;
	}
	for (int i = 0; i < n; i++)
		streams[i].more_sealed = streams[i].first_end - streams[i].first_at == FIRST_ROWS;
	if (SPI_execute_plan(tail_plan, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "alexandria_inverted_search: reading tails failed");
	MemoryContextSwitchTo(old);
	require_column_type(tables->words, 1, INT8OID);
	require_column_type(tables->words, 2, BYTEAOID);
	require_column_type(tables->words, 3, BYTEAOID);
	tail_rows = SPI_tuptable;
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		null;
		int64		word = DatumGetInt64(SPI_getbinval(tail_rows->vals[r], tail_rows->tupdesc, 1, &null));
		WordStream *s = null ? NULL : stream_of(streams, n, word);

		if (s != NULL)
			s->tail_row = (int64) r;
	}
}

void
streams_close(WordStream *streams, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (streams[i].batch != NULL)
			SPI_freetuptable(streams[i].batch);
		streams[i].batch = NULL;
		if (streams[i].portal != NULL)
			SPI_cursor_close(streams[i].portal);
		streams[i].portal = NULL;
	}
	if (first_rows != NULL)
		SPI_freetuptable(first_rows);
	if (tail_rows != NULL)
		SPI_freetuptable(tail_rows);
	first_rows = NULL;
	tail_rows = NULL;
}

/* The next sealed blocks of the stream into s->batch; false when none are left. */
static bool
fetch_rows(WordStream *s)
{
	Datum		values[3] = {Int64GetDatum(s->postings->word), Int64GetDatum(s->last_seq),
	BoolGetDatum(s->postings->need_positions)};
	MemoryContext old = CurrentMemoryContext;

	if (s->batch != NULL)
		SPI_freetuptable(s->batch);
	s->batch = NULL;
	s->batch_rows = 0;
	s->batch_at = 0;
	if (!s->more_sealed)
		return false;
	if (s->portal == NULL)
	{
		s->portal = SPI_cursor_open(NULL, next_plan, values, NULL, true);
		MemoryContextSwitchTo(old);
		if (s->portal == NULL)
			elog(ERROR, "alexandria_inverted_search: opening a postings cursor failed");
	}
	SPI_cursor_fetch(s->portal, true, FETCH_ROWS);
	MemoryContextSwitchTo(old);
	require_column_type(stream_tables->postings, 1, INT8OID);
	require_column_type(stream_tables->postings, 2, BYTEAOID);
	require_column_type(stream_tables->postings, 3, BYTEAOID);
	s->batch = SPI_tuptable;
	s->batch_rows = SPI_processed;
	s->more_sealed = SPI_processed == FETCH_ROWS;
	if (!s->more_sealed)
	{
		/* Read to its end: closed now, so few cursors stay open. */
		SPI_cursor_close(s->portal);
		s->portal = NULL;
	}
	if (s->batch_rows == 0)
	{
		SPI_freetuptable(s->batch);
		s->batch = NULL;
		return false;
	}
	return true;
}

/*
 * The stream's next stored row: its tuple and the columns of its seq (0: none), docs and positions;
 * false when the list has ended. Sealed blocks first (the first fetch, then further fetches), then
 * the tail.
 */
static bool
next_tuple(WordStream *s, HeapTuple *tuple, TupleDesc *desc, int *seq_column, int *docs_column)
{
	if (s->first_at < s->first_end)
	{
		*tuple = first_rows->vals[s->first_at++];
		*desc = first_rows->tupdesc;
		*seq_column = 2;
		*docs_column = 3;
		return true;
	}
	if (s->more_sealed || (s->batch != NULL && s->batch_at < s->batch_rows))
	{
		if ((s->batch == NULL || s->batch_at >= s->batch_rows) && !fetch_rows(s))
			return next_tuple(s, tuple, desc, seq_column, docs_column);
		*tuple = s->batch->vals[s->batch_at++];
		*desc = s->batch->tupdesc;
		*seq_column = 1;
		*docs_column = 2;
		return true;
	}
	if (s->tail_row >= 0)
	{
		*tuple = tail_rows->vals[s->tail_row];
		*desc = tail_rows->tupdesc;
		*seq_column = 0;
		*docs_column = 2;
		s->tail_row = -1;
		return true;
	}
	return false;
}

/* Opens the next row holding postings (copied into `window`); false when the list has ended. */
static bool
next_row(WordStream *s, MemoryContext window)
{
	Postings   *p = s->postings;

	for (;;)
	{
		HeapTuple	tuple;
		TupleDesc	desc;
		int			seq_column;
		int			docs_column;
		bool		null;
		Datum		docs;
		Datum		positions;
		bool		positions_null;
		bytea	   *docs_copy;
		bytea	   *positions_copy = NULL;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if (!next_tuple(s, &tuple, &desc, &seq_column, &docs_column))
			return false;
		if (seq_column > 0)
		{
			int64		seq = DatumGetInt64(SPI_getbinval(tuple, desc, seq_column, &null));

			/* The keyset of the next fetch; a NULL seq (a table altered by hand) ends the sealed blocks. */
			if (null)
				s->more_sealed = false;
			else
				s->last_seq = seq;
		}
		docs = SPI_getbinval(tuple, desc, docs_column, &null);
		if (null)
			continue;
		positions = SPI_getbinval(tuple, desc, docs_column + 1, &positions_null);
		old = MemoryContextSwitchTo(window);
		docs_copy = DatumGetByteaPCopy(docs);
		if (!positions_null)
			positions_copy = DatumGetByteaPCopy(positions);
		MemoryContextSwitchTo(old);
		s->cursor = (const uint8 *) VARDATA_ANY(docs_copy);
		s->end = s->cursor + VARSIZE_ANY_EXHDR(docs_copy);
		s->pcursor = positions_copy ? (const uint8 *) VARDATA_ANY(positions_copy) : NULL;
		s->pend = positions_copy ? s->pcursor + VARSIZE_ANY_EXHDR(positions_copy) : NULL;
		if (s->cursor == s->end)
			continue;
		if (p->need_positions && positions_copy == NULL)
			postings_damaged(p, "postings without their positions");
		s->in_row = true;
		s->row_first = true;
		s->row_doc = 0;
		return true;
	}
}

int64
stream_peek(WordStream *s, MemoryContext window, const double *weight)
{
	Postings   *p = s->postings;

	if (s->peeked)
		return s->peek_doc;
	for (;;)
	{
		if (s->done)
			return -1;
		if (s->in_row && s->cursor < s->end)
			break;
		s->in_row = false;
		if (!next_row(s, window))
		{
			s->done = true;
			return -1;
		}
	}
	{
		const uint8 *c = s->cursor;
		uint64		delta;
		int64		doc;

		if (!read_varint(&c, s->end, &delta) || delta > (uint64) MAX_DOC)
			postings_damaged(p, "a document number that does not decode or is too large");
		/* The first delta of a row is from 0: rows are numbered independently. */
		doc = s->row_first ? (int64) delta : s->row_doc + (int64) delta;
		if (doc > MAX_DOC || doc <= p->last_doc)
			postings_damaged(p, "documents out of order");
		if (!read_tf(&c, s->end, s->peek_tf))
			postings_damaged(p, "term frequencies cut short or too large");
		s->peek_doc = doc;
		s->peek_cursor = c;
		s->peeked = true;
		return doc;
	}
}

void
stream_fill(WordStream *s, int64 high, MemoryContext window, const double *weight)
{
	Postings   *p = s->postings;

	p->count = 0;
	p->capacity = 0;
	p->doc = NULL;
	p->tf = NULL;
	p->pos = NULL;
	p->pos_end = NULL;
	p->fmax = 0;
	for (;;)
	{
		int64		doc;
		int			at;
		int32	   *tf;
		double		f;

		if (s->peeked)
		{
			doc = s->peek_doc;
			if (doc >= high)
				return;
			s->peeked = false;
			s->cursor = s->peek_cursor;
		}
		else if (s->in_row && s->cursor < s->end)
		{
			/* The common case, decoded here rather than through stream_peek. */
			const uint8 *c = s->cursor;
			uint64		delta;

			if (!read_varint(&c, s->end, &delta) || delta > (uint64) MAX_DOC)
				postings_damaged(p, "a document number that does not decode or is too large");
			doc = s->row_first ? (int64) delta : s->row_doc + (int64) delta;
			if (doc > MAX_DOC || doc <= p->last_doc)
				postings_damaged(p, "documents out of order");
			if (!read_tf(&c, s->end, s->peek_tf))
				postings_damaged(p, "term frequencies cut short or too large");
			if (doc >= high)
			{
				s->peek_doc = doc;
				s->peek_cursor = c;
				s->peeked = true;
				return;
			}
			s->cursor = c;
		}
		else
		{
			/* The row has ended: the next one (or the list's end). */
			doc = stream_peek(s, window, weight);
			if (doc < 0 || doc >= high)
				return;
			continue;
		}
		if ((p->count & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (p->count >= p->capacity)
			postings_reserve(p, Max(p->count, 256));
		s->row_first = false;
		s->row_doc = doc;
		at = p->count++;
		p->doc[at] = doc;
		p->last_doc = doc;
		tf = &p->tf[at * 3];
		tf[0] = s->peek_tf[0];
		tf[1] = s->peek_tf[1];
		tf[2] = s->peek_tf[2];
		f = weight[0] * tf[0] + weight[1] * tf[1] + weight[2] * tf[2];
		if (f > p->fmax)
			p->fmax = f;
		if (!p->need_positions)
			continue;
		{
			int64		n = (int64) tf[0] + tf[1] + tf[2];

			p->pos[at] = s->pcursor;
			for (int64 i = 0; i < n; i++)
			{
				uint64		skipped;

				if (!read_varint(&s->pcursor, s->pend, &skipped))
					postings_damaged(p, "fewer positions than term frequencies");
			}
			p->pos_end[at] = s->pcursor;
		}
	}
}

void
stream_carry(WordStream *s, MemoryContext next)
{
	Size		docs_left;
	Size		positions_left;
	uint8	   *copy;

	if (!s->in_row)
		return;
	docs_left = s->end - s->cursor;
	positions_left = s->pcursor ? (Size) (s->pend - s->pcursor) : 0;
	copy = MemoryContextAlloc(next, Max(docs_left + positions_left, 1));
	memcpy(copy, s->cursor, docs_left);
	if (s->peeked)
		s->peek_cursor = copy + (s->peek_cursor - s->cursor);
	s->cursor = copy;
	s->end = copy + docs_left;
	if (s->pcursor)
	{
		memcpy(copy + docs_left, s->pcursor, positions_left);
		s->pcursor = copy + docs_left;
		s->pend = s->pcursor + positions_left;
	}
}
