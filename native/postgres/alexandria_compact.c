/*
 * alexandria_pg, inverted layout: tombstones compacted (decision 0067). A changed or deleted record
 * leaves its old document number's postings behind (its metadata entry no longer live); the search
 * skips them, but they cost reading and room. This removes them, for the words whose ids lie in a
 * range (the caller walks the vocabulary a range per transaction):
 *
 *   alexandria_compact(index regnamespace, first_word int8, last_word int8,
 *       OUT words int8, OUT rows_rewritten int8, OUT postings_removed int8, OUT postings_kept int8)
 *
 * A document number is never live again once dead (new text always gets a new number), so the set
 * of dead documents read at the start stays right however long the compaction runs: a posting is
 * removed only when its document is below the index's next_doc and not live in paper_docs. The
 * set (one bit per document) is kept by the backend for the next call while the index's data
 * version stays the same. Each
 * word's row in paper_words is locked first (FOR UPDATE, the lock a writer appending to or sealing
 * its tail takes), so a tail is rewritten from its latest bytes; sealed blocks are only ever
 * inserted by writers, and are updated in place (a block left empty is deleted). The rewritten
 * lists keep their order and each posting's bytes (frequencies, positions) as they were; only the
 * document deltas are re-encoded. Document frequencies and totals already count live documents
 * (they change when a record's text does), so they stay as they are.
 *
 * Stored bytes are not trusted (decision 0039): a list that does not decode ends the statement.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define FUNCTION "alexandria_compact"
#define FLAG_LIVE 1

typedef struct Compaction
{
	const IndexTables *tables;
	int64		next_doc;		/* documents at or past it are kept (not known dead) */
	uint8	   *live;			/* one bit per document below next_doc */
	int64		rows_rewritten;
	int64		removed;
	int64		kept;
} Compaction;

static void
damaged(int64 word, const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
					errmsg(FUNCTION ": the stored postings of word %lld are damaged (%s)", (long long) word, what)));
}

static bool
is_live(const Compaction *c, int64 doc)
{
	if (doc >= c->next_doc)
		return true;
	return (c->live[doc >> 3] & (1 << (doc & 7))) != 0;
}

/*
 * The live bits of the last index this backend compacted, at one data version: a compaction walks
 * the vocabulary a range of words per call, and reading paper_docs once per call would cost more
 * than most ranges. Every write bumps data_version, so bits kept for the same version are the
 * bits paper_docs holds.
 */
static struct
{
	Oid			relid;
	int64		version;
	int64		next_doc;
	uint8	   *live;
	MemoryContext context;
}			live_cache;

/* The live bits of every document below next_doc, from paper_docs (rows a fetch at a time). */
static void
read_live(Compaction *c)
{
	bool		null;
	bool		version_null;
	int64		version;
	Portal		portal;
	SPIPlanPtr	plan;
	int64		bytes;

	if (SPI_execute(psprintf("SELECT next_doc, data_version FROM %s", c->tables->stats), true, 2) != SPI_OK_SELECT ||
		SPI_processed != 1)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg(FUNCTION ": %s must hold one row", c->tables->stats)));
	require_column_type(c->tables->stats, 1, INT8OID);
	require_column_type(c->tables->stats, 2, INT8OID);
	c->next_doc = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
	version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &version_null));
	SPI_freetuptable(SPI_tuptable);
	if (null || c->next_doc < 0 || c->next_doc > MAX_DOC + 1)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg(FUNCTION ": the index's next document number is missing or out of range")));
	if (live_cache.context != NULL && !version_null && live_cache.relid == c->tables->docs_relid &&
		live_cache.version == version && live_cache.next_doc == c->next_doc)
	{
		c->live = live_cache.live;
		return;
	}
	if (live_cache.context != NULL)
		MemoryContextDelete(live_cache.context);
	memset(&live_cache, 0, sizeof(live_cache));
	bytes = (c->next_doc + 7) / 8;
	if ((uint64) bytes > MaxAllocSize)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg(FUNCTION ": %lld documents are past what one compaction can mark",
							   (long long) c->next_doc)));
	c->live = palloc0(Max(bytes, 1));
	plan = SPI_prepare(psprintf("SELECT block, core FROM %s ORDER BY block", c->tables->docs), 0, NULL);
	if (plan == NULL)
		elog(ERROR, FUNCTION ": preparing the documents query failed");
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 256);
		if (SPI_processed == 0)
			break;
		require_column_type(c->tables->docs, 1, INT4OID);
		require_column_type(c->tables->docs, 2, BYTEAOID);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			int32		block = DatumGetInt32(SPI_getbinval(tuple, desc, 1, &null));
			Datum		core;
			bytea	   *bytes_read;
			const uint8 *entry;

			CHECK_FOR_INTERRUPTS();
			if (null || block < 0)
				continue;
			core = SPI_getbinval(tuple, desc, 2, &null);
			if (null)
				continue;
			bytes_read = DatumGetByteaPP(core);
			/* A row too short counts as absent, as in the search: its documents are not live. */
			if (VARSIZE_ANY_EXHDR(bytes_read) < DOCS_PER_BLOCK * CORE_BYTES)
				continue;
			entry = (const uint8 *) VARDATA_ANY(bytes_read);
			for (int slot = 0; slot < DOCS_PER_BLOCK; slot++)
			{
				int64		doc = (int64) block * DOCS_PER_BLOCK + slot;

				if (doc >= c->next_doc)
					break;
				if (entry[slot * CORE_BYTES + 6] & FLAG_LIVE)
					c->live[doc >> 3] |= (uint8) (1 << (doc & 7));
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	if (!version_null)
	{
		MemoryContext context = AllocSetContextCreate(TopMemoryContext, "alexandria_compact live documents",
													  ALLOCSET_SMALL_SIZES);

		live_cache.live = MemoryContextAlloc(context, Max(bytes, 1));
		memcpy(live_cache.live, c->live, Max(bytes, 1));
		live_cache.context = context;
		live_cache.relid = c->tables->docs_relid;
		live_cache.version = version;
		live_cache.next_doc = c->next_doc;
	}
}

/*
 * The postings of one stored list whose documents are live, as new byte strings (*docs_out,
 * *positions_out; positions NULL when the list has none). Returns the postings removed; *kept
 * counts those left. `last` is the list's previous document (rows ascend along the word's list).
 */
static int64
filter_list(Compaction *c, int64 word, const bytea *docs, const bytea *positions, int64 *last, bytea **docs_out,
			bytea **positions_out, int64 *kept)
{
	const uint8 *cursor = (const uint8 *) VARDATA_ANY(docs);
	const uint8 *end = cursor + VARSIZE_ANY_EXHDR(docs);
	const uint8 *pcursor = positions ? (const uint8 *) VARDATA_ANY(positions) : NULL;
	const uint8 *pend = positions ? pcursor + VARSIZE_ANY_EXHDR(positions) : NULL;
	/* A kept posting's delta may take up to 10 bytes where its old one took 1. */
	Size		docs_room = VARSIZE_ANY_EXHDR(docs) + 10;
	bytea	   *out = palloc(VARHDRSZ + docs_room);
	bytea	   *pout = positions ? palloc(VARHDRSZ + VARSIZE_ANY_EXHDR(positions)) : NULL;
	uint8	   *write = (uint8 *) VARDATA(out);
	uint8	   *pwrite = pout ? (uint8 *) VARDATA(pout) : NULL;
	int64		doc = 0;
	int64		previous_kept = -1;
	bool		first = true;
	int64		removed = 0;

	*kept = 0;
	while (cursor < end)
	{
		uint64		delta;
		int32		tf[3];
		const uint8 *tf_start;
		const uint8 *pstart = pcursor;

		if (((*kept + removed) & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!read_varint(&cursor, end, &delta) || delta > (uint64) MAX_DOC)
			damaged(word, "a document number that does not decode or is too large");
		doc = first ? (int64) delta : doc + (int64) delta;
		first = false;
		if (doc > MAX_DOC || doc <= *last)
			damaged(word, "documents out of order");
		*last = doc;
		tf_start = cursor;
		if (!read_tf(&cursor, end, tf))
			damaged(word, "term frequencies cut short or too large");
		if (pcursor != NULL)
		{
			int64		n = (int64) tf[0] + tf[1] + tf[2];

			for (int64 i = 0; i < n; i++)
			{
				uint64		skipped;

				if (!read_varint(&pcursor, pend, &skipped))
					damaged(word, "fewer positions than term frequencies");
			}
		}
		if (!is_live(c, doc))
		{
			removed++;
			continue;
		}
		/* The first kept posting's delta is from 0, the others' from the previous kept one. */
		if ((Size) (write - (uint8 *) VARDATA(out)) + 10 + (cursor - tf_start) > docs_room)
			damaged(word, "a list that grows when shortened");
		write += write_varint(write, (uint64) (previous_kept < 0 ? doc : doc - previous_kept));
		memcpy(write, tf_start, cursor - tf_start);
		write += cursor - tf_start;
		if (pwrite != NULL)
		{
			memcpy(pwrite, pstart, pcursor - pstart);
			pwrite += pcursor - pstart;
		}
		previous_kept = doc;
		(*kept)++;
	}
	SET_VARSIZE(out, VARHDRSZ + (write - (uint8 *) VARDATA(out)));
	if (pout != NULL)
		SET_VARSIZE(pout, VARHDRSZ + (pwrite - (uint8 *) VARDATA(pout)));
	*docs_out = out;
	*positions_out = pout;
	return removed;
}

static bytea *
bytes_of(HeapTuple tuple, TupleDesc desc, int column)
{
	bool		null;
	Datum		value = SPI_getbinval(tuple, desc, column, &null);

	return null ? NULL : DatumGetByteaPCopy(value);
}

/* One word: its row locked, its sealed blocks then its tail filtered and rewritten where they changed. */
static void
compact_word(Compaction *c, int64 word, SPIPlanPtr lock, SPIPlanPtr blocks, SPIPlanPtr update, SPIPlanPtr remove,
			 SPIPlanPtr update_tail)
{
	Datum		key[1] = {Int64GetDatum(word)};
	bytea	   *tail_docs;
	bytea	   *tail_positions;
	int64		last = -1;
	Portal		portal;
	MemoryContext context = CurrentMemoryContext;

	if (SPI_execute_plan(lock, key, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, FUNCTION ": locking a word failed");
	MemoryContextSwitchTo(context);
	if (SPI_processed != 1)
	{
		SPI_freetuptable(SPI_tuptable);
		return;
	}
	require_column_type(c->tables->words, 1, BYTEAOID);
	require_column_type(c->tables->words, 2, BYTEAOID);
	tail_docs = bytes_of(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	tail_positions = bytes_of(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	SPI_freetuptable(SPI_tuptable);

	portal = SPI_cursor_open(NULL, blocks, key, NULL, false);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 64);
		MemoryContextSwitchTo(context);
		if (SPI_processed == 0)
			break;
		require_column_type(c->tables->postings, 1, INT8OID);
		require_column_type(c->tables->postings, 2, BYTEAOID);
		require_column_type(c->tables->postings, 3, BYTEAOID);
		{
			SPITupleTable *rows = SPI_tuptable;
			uint64		n = SPI_processed;

			for (uint64 r = 0; r < n; r++)
			{
				bool		null;
				int64		seq = DatumGetInt64(SPI_getbinval(rows->vals[r], rows->tupdesc, 1, &null));
				bytea	   *docs = bytes_of(rows->vals[r], rows->tupdesc, 2);
				bytea	   *positions = bytes_of(rows->vals[r], rows->tupdesc, 3);
				bytea	   *new_docs;
				bytea	   *new_positions;
				int64		kept;
				int64		removed;

				if (null || docs == NULL)
					continue;
				removed = filter_list(c, word, docs, positions, &last, &new_docs, &new_positions, &kept);
				c->kept += kept;
				if (removed > 0)
				{
					Datum		values[4] = {Int64GetDatum(word), Int64GetDatum(seq), PointerGetDatum(new_docs),
					PointerGetDatum(new_positions)};
					char		nulls[4] = {' ', ' ', ' ', new_positions ? ' ' : 'n'};
					int			rc = kept == 0 ? SPI_execute_plan(remove, values, nulls, false, 0)
						: SPI_execute_plan(update, values, nulls, false, 0);

					MemoryContextSwitchTo(context);
					if (rc < 0)
						elog(ERROR, FUNCTION ": rewriting a block failed");
					c->removed += removed;
					c->rows_rewritten++;
				}
				pfree(docs);
				if (positions)
					pfree(positions);
			}
			SPI_freetuptable(rows);
		}
	}
	SPI_freetuptable(SPI_tuptable);
	SPI_cursor_close(portal);
	MemoryContextSwitchTo(context);

	if (tail_docs != NULL)
	{
		bytea	   *new_docs;
		bytea	   *new_positions;
		int64		kept;
		int64		removed = filter_list(c, word, tail_docs, tail_positions, &last, &new_docs, &new_positions, &kept);

		c->kept += kept;
		if (removed > 0)
		{
			Datum		values[3] = {Int64GetDatum(word), PointerGetDatum(new_docs), PointerGetDatum(new_positions)};
			char		nulls[3] = {' ', kept == 0 ? 'n' : ' ', kept == 0 || new_positions == NULL ? 'n' : ' '};

			if (SPI_execute_plan(update_tail, values, nulls, false, 0) < 0)
				elog(ERROR, FUNCTION ": rewriting a tail failed");
			MemoryContextSwitchTo(context);
			c->removed += removed;
			c->rows_rewritten++;
		}
	}
}

PG_FUNCTION_INFO_V1(alexandria_compact);

Datum
alexandria_compact(PG_FUNCTION_ARGS)
{
	IndexTables tables;
	Compaction	c;
	int64		first_word;
	int64		last_word;
	int64		words = 0;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext word_context;
	SPIPlanPtr	list;
	SPIPlanPtr	lock;
	SPIPlanPtr	blocks;
	SPIPlanPtr	update;
	SPIPlanPtr	remove;
	SPIPlanPtr	update_tail;
	Oid			one[1] = {INT8OID};
	Oid			two[2] = {INT8OID, INT8OID};
	Oid			four[4] = {INT8OID, INT8OID, BYTEAOID, BYTEAOID};
	Oid			three[3] = {INT8OID, BYTEAOID, BYTEAOID};
	Portal		portal;
	TupleDesc	desc;

	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg(FUNCTION ": argument %d is null", i + 1)));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg(FUNCTION ": must be called in a context that takes a row")));
	desc = BlessTupleDesc(desc);
	first_word = PG_GETARG_INT64(1);
	last_word = PG_GETARG_INT64(2);
	index_tables(PG_GETARG_OID(0), &tables);
	memset(&c, 0, sizeof(c));
	c.tables = &tables;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, FUNCTION ": SPI_connect failed");
	read_live(&c);
	list = SPI_prepare(psprintf("SELECT id FROM %s WHERE id OPERATOR(pg_catalog.>=) $1 AND id OPERATOR(pg_catalog.<=) $2"
								" ORDER BY id", tables.words), 2, two);
	lock = SPI_prepare(psprintf("SELECT tail_docs, tail_positions FROM %s WHERE id OPERATOR(pg_catalog.=) $1 FOR UPDATE",
								tables.words), 1, one);
	blocks = SPI_prepare(psprintf("SELECT seq, docs, positions FROM %s WHERE word OPERATOR(pg_catalog.=) $1 ORDER BY seq",
								  tables.postings), 1, one);
	update = SPI_prepare(psprintf("UPDATE %s SET docs = $3, positions = $4 WHERE word OPERATOR(pg_catalog.=) $1"
								  " AND seq OPERATOR(pg_catalog.=) $2", tables.postings), 4, four);
	remove = SPI_prepare(psprintf("DELETE FROM %s WHERE word OPERATOR(pg_catalog.=) $1 AND seq OPERATOR(pg_catalog.=) $2",
								  tables.postings), 2, two);
	update_tail = SPI_prepare(psprintf("UPDATE %s SET tail_docs = $2, tail_positions = $3 WHERE id OPERATOR(pg_catalog.=) $1",
									   tables.words), 3, three);
	if (!list || !lock || !blocks || !update || !remove || !update_tail)
		elog(ERROR, FUNCTION ": preparing its queries failed");
	word_context = AllocSetContextCreate(CurrentMemoryContext, "alexandria_compact word", ALLOCSET_DEFAULT_SIZES);
	{
		Datum		range[2] = {Int64GetDatum(first_word), Int64GetDatum(last_word)};

		portal = SPI_cursor_open(NULL, list, range, NULL, true);
	}
	for (;;)
	{
		SPITupleTable *ids;
		uint64		n;

		SPI_cursor_fetch(portal, true, 256);
		if (SPI_processed == 0)
			break;
		require_column_type(tables.words, 1, INT8OID);
		ids = SPI_tuptable;
		n = SPI_processed;
		for (uint64 r = 0; r < n; r++)
		{
			bool		null;
			int64		word = DatumGetInt64(SPI_getbinval(ids->vals[r], ids->tupdesc, 1, &null));

			CHECK_FOR_INTERRUPTS();
			if (null)
				continue;
			MemoryContextSwitchTo(word_context);
			compact_word(&c, word, lock, blocks, update, remove, update_tail);
			MemoryContextReset(word_context);
			words++;
		}
		SPI_freetuptable(ids);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextSwitchTo(outer);
	{
		Datum		values[4] = {Int64GetDatum(words), Int64GetDatum(c.rows_rewritten), Int64GetDatum(c.removed),
		Int64GetDatum(c.kept)};
		bool		nulls[4] = {false, false, false, false};

		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
	}
}
