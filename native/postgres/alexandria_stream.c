/*
 * alexandria_pg, inverted layout: a word's stored posting list read in order, a few rows at a time
 * (decision 0067). Its sealed blocks come through a cursor (paper_postings by (word, seq): the
 * primary key's order), FETCH_ROWS rows a fetch, then its tail (paper_words); each row is copied
 * into the current window's memory and decoded up to the window's end. What a word costs in memory
 * is therefore one fetch of rows and one window of decoded postings, whatever its frequency.
 *
 * Stored bytes are not trusted (decision 0039): every read is bounded by the bytes' end, documents
 * must ascend within the allowed range (across rows and windows) and frequencies fit int4;
 * anything else ends the statement with ERRCODE_DATA_CORRUPTED naming the word.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Rows fetched from a word's cursor at a time (sealed blocks are ~384 bytes of docs each). */
#define FETCH_ROWS 16

static SPIPlanPtr sealed_plan;
static SPIPlanPtr tail_plan;
static const IndexTables *stream_tables;

void
streams_open(WordStream *streams, Postings *postings, int n, const IndexTables *tables)
{
	Oid			types[2] = {INT8OID, BOOLOID};
	char	   *query;

	query = psprintf("SELECT docs, CASE WHEN $2 THEN positions END FROM %s WHERE word OPERATOR(pg_catalog.=) $1"
					 " ORDER BY seq", tables->postings);
	sealed_plan = SPI_prepare(query, 2, types);
	if (sealed_plan == NULL)
		elog(ERROR, "alexandria_inverted_search: preparing the postings query failed");
	query = psprintf("SELECT tail_docs, CASE WHEN $2 THEN tail_positions END FROM %s"
					 " WHERE id OPERATOR(pg_catalog.=) $1 AND tail_docs IS NOT NULL", tables->words);
	tail_plan = SPI_prepare(query, 2, types);
	if (tail_plan == NULL)
		elog(ERROR, "alexandria_inverted_search: preparing the tail query failed");
	stream_tables = tables;
	memset(streams, 0, sizeof(WordStream) * n);
	for (int i = 0; i < n; i++)
		streams[i].postings = &postings[i];
}

void
streams_close(WordStream *streams, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (streams[i].portal != NULL)
			SPI_cursor_close(streams[i].portal);
		streams[i].portal = NULL;
		if (streams[i].batch != NULL)
			SPI_freetuptable(streams[i].batch);
		streams[i].batch = NULL;
	}
}

/* Fetches the next rows of the stream into s->batch; false when none are left. */
static bool
fetch_rows(WordStream *s)
{
	Datum		values[2] = {Int64GetDatum(s->postings->word), BoolGetDatum(s->postings->need_positions)};

	if (s->batch != NULL)
		SPI_freetuptable(s->batch);
	s->batch = NULL;
	s->batch_rows = 0;
	s->batch_at = 0;
	while (s->batch_rows == 0)
	{
		if (!s->sealed_read)
		{
			if (s->portal == NULL)
			{
				s->portal = SPI_cursor_open(NULL, sealed_plan, values, NULL, true);
				if (s->portal == NULL)
					elog(ERROR, "alexandria_inverted_search: opening the postings cursor failed");
			}
			SPI_cursor_fetch(s->portal, true, FETCH_ROWS);
			if (SPI_processed < FETCH_ROWS)
			{
				/* Read to its end: closed now, so a query of many rare words keeps few cursors open. */
				s->sealed_read = true;
				s->batch = SPI_tuptable;
				s->batch_rows = SPI_processed;
				SPI_cursor_close(s->portal);
				s->portal = NULL;
			}
			else
			{
				s->batch = SPI_tuptable;
				s->batch_rows = SPI_processed;
			}
			if (s->batch != NULL)
			{
				require_column_type(stream_tables->postings, 1, BYTEAOID);
				require_column_type(stream_tables->postings, 2, BYTEAOID);
			}
		}
		else if (!s->tail_read)
		{
			s->tail_read = true;
			if (SPI_execute_plan(tail_plan, values, NULL, true, 1) != SPI_OK_SELECT)
				elog(ERROR, "alexandria_inverted_search: reading a word's tail failed");
			require_column_type(stream_tables->words, 1, BYTEAOID);
			require_column_type(stream_tables->words, 2, BYTEAOID);
			s->batch = SPI_tuptable;
			s->batch_rows = SPI_processed;
		}
		else
			return false;
		if (s->batch_rows == 0 && s->batch != NULL)
		{
			SPI_freetuptable(s->batch);
			s->batch = NULL;
		}
	}
	return true;
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
		bool		null;
		Datum		docs;
		Datum		positions;
		bool		positions_null;
		bytea	   *docs_copy;
		bytea	   *positions_copy = NULL;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if (s->batch == NULL || s->batch_at >= s->batch_rows)
		{
			if (!fetch_rows(s))
				return false;
		}
		tuple = s->batch->vals[s->batch_at++];
		desc = s->batch->tupdesc;
		docs = SPI_getbinval(tuple, desc, 1, &null);
		if (null)
			continue;
		positions = SPI_getbinval(tuple, desc, 2, &positions_null);
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
		int64		doc = stream_peek(s, window, weight);
		int			at;
		int32	   *tf;
		double		f;

		if (doc < 0 || doc >= high)
			return;
		if ((p->count & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (p->count >= p->capacity)
			postings_reserve(p, Max(p->count, 256));
		s->peeked = false;
		s->cursor = s->peek_cursor;
		s->row_first = false;
		s->row_doc = doc;
		at = p->count++;
		p->doc[at] = doc;
		p->last_doc = doc;
		tf = &p->tf[at * 3];
		memcpy(tf, s->peek_tf, sizeof(int32) * 3);
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
