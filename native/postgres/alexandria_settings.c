/*
 * alexandria_pg: the search's settings (GUCs, decision 0067) and what it reports about its memory.
 *
 *   alexandria.search_window_docs (int, default 262144): the document numbers a search decodes
 *     and scores at a time; each word's decoded postings in a window are at most this many.
 *   alexandria.cache_bytes (bytes, default 64MB, 0: off): the most this backend keeps of the
 *     index's metadata rows between searches (least recently used dropped first).
 *
 *   alexandria_memory(index regnamespace, OUT search_base_bytes int8, OUT search_peak_bytes int8,
 *       OUT cache_entries int8, OUT cache_bytes int8): what this backend's last search held when
 *     it began and the most it held during it (both 0 before the first search): its own memory
 *     contexts (SPI: windows, rows read, the page's heap), the part of the kept scratch buffer a
 *     window used, and the metadata cache (the base is the cache before the search), sampled at
 *     the end of every window, where a window's arrays are largest; then the metadata rows this
 *     backend caches for the index in `index` and the bytes its cache's memory context holds (0
 *     when it caches another index's rows, or none).
 */
#include "alexandria_inverted.h"

#include "funcapi.h"
#include "utils/guc.h"

int			alexandria_search_window_docs = 262144;
int			alexandria_cache_bytes = 64 * 1024 * 1024;
int64		alexandria_search_peak_bytes = 0;
int64		alexandria_search_base_bytes = 0;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomIntVariable("alexandria.search_window_docs",
							"Document numbers an Alexandria search decodes and scores at a time.",
							"Each word's decoded postings in a window are at most this many.",
							&alexandria_search_window_docs, 262144, 1, 1 << 30, PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("alexandria.cache_bytes",
							"The most a connection keeps of an Alexandria index's document metadata between searches.",
							"0 turns the cache off; past the bound the least recently used rows are dropped.",
							&alexandria_cache_bytes, 64 * 1024 * 1024, 0, INT_MAX, PGC_USERSET, GUC_UNIT_BYTE,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("alexandria");
}

PG_FUNCTION_INFO_V1(alexandria_memory);

Datum
alexandria_memory(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	IndexTables tables;
	bool		ours;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("alexandria_memory: the index's schema (argument 1) is null")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("alexandria_memory: must be called in a context that takes a row")));
	index_tables(PG_GETARG_OID(0), &tables);
	ours = doc_cache_relid() == tables.docs_relid;
	values[0] = Int64GetDatum(alexandria_search_base_bytes);
	values[1] = Int64GetDatum(alexandria_search_peak_bytes);
	values[2] = Int64GetDatum(ours ? doc_cache_entries() : 0);
	values[3] = Int64GetDatum(ours ? doc_cache_size() : 0);
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
