/*
 * alexandria_pg, inverted layout: the documents' metadata rows a search needs (paper_docs, 1024
 * documents a row), and this backend's copy of them. A row whose bytes are too short counts as
 * absent (its documents are not scored); a row outside the blocks asked for is ignored.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * This backend's copy of metadata rows, valid for one index (the paper_docs relation) at one data
 * version: every write that changes a row also bumps paper_index_stats.data_version in its
 * transaction, so rows read under the same version are the same rows. Up to 64 MiB (4 096 rows,
 * 4M documents); past that, rows are read per search.
 */
#define DOC_CACHE_MAX_BLOCKS 4096

static struct
{
	Oid			relid;
	int64		version;
	MemoryContext context;
	const uint8 *core[DOC_CACHE_MAX_BLOCKS];
	const uint8 *keys[DOC_CACHE_MAX_BLOCKS];
}			doc_cache;

/* Whether the cache can serve blocks up to `high` for the index's tables, now. */
static bool
doc_cache_open(const IndexTables *tables, int32 high)
{
	int64		version;
	bool		null;
	char	   *query;

	if (high < 0 || high >= DOC_CACHE_MAX_BLOCKS)
		return false;
	query = psprintf("SELECT data_version FROM %s", tables->stats);
	if (SPI_execute(query, true, 2) != SPI_OK_SELECT || SPI_processed != 1)
		return false;
	require_column_type(tables->stats, 1, INT8OID);
	version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
	if (null)
		return false;
	if (doc_cache.context == NULL || doc_cache.relid != tables->docs_relid || doc_cache.version != version)
	{
		if (doc_cache.context != NULL)
			MemoryContextDelete(doc_cache.context);
		memset(&doc_cache, 0, sizeof(doc_cache));
		doc_cache.context = AllocSetContextCreate(TopMemoryContext, "alexandria_pg documents",
												  ALLOCSET_DEFAULT_SIZES);
		doc_cache.relid = tables->docs_relid;
		doc_cache.version = version;
	}
	return true;
}

static void
doc_cache_put(int32 block, const uint8 *core, const uint8 *keys)
{
	uint8	   *copy = MemoryContextAlloc(doc_cache.context, DOCS_PER_BLOCK * (CORE_BYTES + KEYS_BYTES));

	memcpy(copy, core, DOCS_PER_BLOCK * CORE_BYTES);
	memcpy(copy + DOCS_PER_BLOCK * CORE_BYTES, keys, DOCS_PER_BLOCK * KEYS_BYTES);
	doc_cache.core[block] = copy;
	doc_cache.keys[block] = copy + DOCS_PER_BLOCK * CORE_BYTES;
}

void
doc_blocks_read(DocBlocks *blocks, const IndexTables *tables, const int64 *matched, int n_matched, bool need_keys)
{
	int32	   *wanted;
	int			n_wanted = 0;
	int32	   *missing;
	int			n_missing = 0;
	bool		caching;

	memset(blocks, 0, sizeof(*blocks));
	if (n_matched == 0)
		return;
	wanted = alloc_array(n_matched, sizeof(int32));
	for (int i = 0; i < n_matched; i++)
	{
		/* Documents are 0..MAX_DOC and ascending (alexandria_postings.c): blocks fit int4 and ascend. */
		int32		block = (int32) (matched[i] / DOCS_PER_BLOCK);

		if (n_wanted == 0 || wanted[n_wanted - 1] != block)
			wanted[n_wanted++] = block;
	}
	blocks->low = wanted[0];
	blocks->high = wanted[n_wanted - 1];
	blocks->core = alloc_array((int64) blocks->high - blocks->low + 1, sizeof(uint8 *));
	blocks->keys = alloc_array((int64) blocks->high - blocks->low + 1, sizeof(uint8 *));
	memset(blocks->core, 0, sizeof(uint8 *) * (blocks->high - blocks->low + 1));
	memset(blocks->keys, 0, sizeof(uint8 *) * (blocks->high - blocks->low + 1));
	caching = doc_cache_open(tables, blocks->high);
	missing = palloc(sizeof(int32) * n_wanted);
	for (int i = 0; i < n_wanted; i++)
	{
		int32		block = wanted[i];

		if (caching && doc_cache.core[block] != NULL)
		{
			blocks->core[block - blocks->low] = doc_cache.core[block];
			blocks->keys[block - blocks->low] = doc_cache.keys[block];
		}
		else
			missing[n_missing++] = block;
	}
	if (n_missing > 0)
	{
		Oid			types[2] = {INT4ARRAYOID, BOOLOID};
		Datum		values[2];
		Datum	   *datums = palloc(sizeof(Datum) * n_missing);
		char	   *query;

		for (int i = 0; i < n_missing; i++)
			datums[i] = Int32GetDatum(missing[i]);
		values[0] = PointerGetDatum(construct_array(datums, n_missing, INT4OID, 4, true, TYPALIGN_INT));
		values[1] = BoolGetDatum(caching || need_keys);
		query = psprintf("SELECT block, core, CASE WHEN $2 THEN keys END FROM %s WHERE block OPERATOR(pg_catalog.=) ANY ($1)",
						 tables->docs);
		if (SPI_execute_with_args(query, 2, types, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "alexandria_inverted_search: reading documents failed");
		require_column_type(tables->docs, 1, INT4OID);
		require_column_type(tables->docs, 2, BYTEAOID);
		require_column_type(tables->docs, 3, BYTEAOID);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		null;
			int32		block = DatumGetInt32(SPI_getbinval(tuple, desc, 1, &null));
			Datum		core;
			bytea	   *bytes;
			const uint8 *core_bytes;
			const uint8 *key_bytes = NULL;

			CHECK_FOR_INTERRUPTS();
			if (null || block < blocks->low || block > blocks->high)
				continue;
			core = SPI_getbinval(tuple, desc, 2, &null);
			if (null)
				continue;
			bytes = DatumGetByteaPP(core);
			if (VARSIZE_ANY_EXHDR(bytes) < DOCS_PER_BLOCK * CORE_BYTES)
				continue;
			core_bytes = (const uint8 *) VARDATA_ANY(bytes);
			core = SPI_getbinval(tuple, desc, 3, &null);
			if (!null)
			{
				bytes = DatumGetByteaPP(core);
				if (VARSIZE_ANY_EXHDR(bytes) >= DOCS_PER_BLOCK * KEYS_BYTES)
					key_bytes = (const uint8 *) VARDATA_ANY(bytes);
			}
			if (caching && key_bytes != NULL)
			{
				doc_cache_put(block, core_bytes, key_bytes);
				core_bytes = doc_cache.core[block];
				key_bytes = doc_cache.keys[block];
			}
			blocks->core[block - blocks->low] = core_bytes;
			blocks->keys[block - blocks->low] = key_bytes;
		}
	}
}
