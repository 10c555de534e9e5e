/*
 * alexandria_pg, inverted layout: the documents' metadata rows a search needs (paper_docs, 1024
 * documents a row), and this backend's copy of them. A row whose bytes are too short counts as
 * absent (its documents are not scored); a row outside the blocks asked for is ignored.
 */
#include "alexandria_inverted.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

/*
 * This backend's copy of metadata rows, valid for one index (the paper_docs relation) at one data
 * version: every write that changes a row also bumps paper_index_stats.data_version in its
 * transaction, so rows read under the same version are the same rows. Bounded in bytes by
 * alexandria.cache_bytes (decision 0067; 0 turns it off): past the bound the least recently used
 * rows are dropped, never one that the search under way has taken from it (a search whose rows
 * do not all fit reads the rest per window).
 */
#define ROW_BYTES (DOCS_PER_BLOCK * (CORE_BYTES + KEYS_BYTES))
/* What an entry costs beyond its bytes (its chunk header and hash entry), and the table itself. */
#define ENTRY_OVERHEAD 128
#define CACHE_OVERHEAD (64 * 1024)

typedef struct CacheEntry
{
	int32		block;			/* the hash key */
	uint8	   *row;			/* core, then keys */
	uint64		used;			/* the search that used it last */
	dlist_node	lru;			/* most recently used first */
} CacheEntry;

static struct
{
	Oid			relid;
	int64		version;
	MemoryContext context;
	HTAB	   *entries;
	dlist_head	lru;
	int64		count;
	uint64		search;			/* counts this backend's searches */
	bool		usable;			/* this search may use it */
}			doc_cache;

int64
doc_cache_size(void)
{
	return doc_cache.context ? (int64) MemoryContextMemAllocated(doc_cache.context, true) : 0;
}

Oid
doc_cache_relid(void)
{
	return doc_cache.context ? doc_cache.relid : InvalidOid;
}

int64
doc_cache_entries(void)
{
	return doc_cache.count;
}

static int64
cache_capacity(void)
{
	if (alexandria_cache_bytes <= CACHE_OVERHEAD)
		return 0;
	return (alexandria_cache_bytes - CACHE_OVERHEAD) / (ROW_BYTES + ENTRY_OVERHEAD);
}

static void
cache_drop(void)
{
	if (doc_cache.context != NULL)
		MemoryContextDelete(doc_cache.context);
	doc_cache.context = NULL;
	doc_cache.entries = NULL;
	doc_cache.count = 0;
	dlist_init(&doc_cache.lru);
}

static void
cache_evict_one(void)
{
	CacheEntry *victim = dlist_container(CacheEntry, lru, dlist_tail_node(&doc_cache.lru));
	bool		found;

	dlist_delete(&victim->lru);
	pfree(victim->row);
	hash_search(doc_cache.entries, &victim->block, HASH_REMOVE, &found);
	doc_cache.count--;
}

void
doc_cache_prepare(const IndexTables *tables)
{
	int64		version;
	bool		null;
	char	   *query;
	MemoryContext old = CurrentMemoryContext;
	int64		capacity = cache_capacity();

	doc_cache.usable = false;
	doc_cache.search++;
	if (capacity == 0)
	{
		cache_drop();
		return;
	}
	query = psprintf("SELECT data_version FROM %s", tables->stats);
	if (SPI_execute(query, true, 2) != SPI_OK_SELECT || SPI_processed != 1)
	{
		MemoryContextSwitchTo(old);
		return;
	}
	require_column_type(tables->stats, 1, INT8OID);
	version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
	SPI_freetuptable(SPI_tuptable);
	MemoryContextSwitchTo(old);
	if (null)
		return;
	if (doc_cache.context == NULL || doc_cache.relid != tables->docs_relid || doc_cache.version != version)
	{
		HASHCTL		control;

		cache_drop();
		doc_cache.context = AllocSetContextCreate(TopMemoryContext, "alexandria_pg documents",
												  ALLOCSET_DEFAULT_SIZES);
		memset(&control, 0, sizeof(control));
		control.keysize = sizeof(int32);
		control.entrysize = sizeof(CacheEntry);
		control.hcxt = doc_cache.context;
		doc_cache.entries = hash_create("alexandria_pg documents", 256, &control,
										HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		doc_cache.relid = tables->docs_relid;
		doc_cache.version = version;
	}
	/* The bound may have been lowered since the rows were cached. */
	while (doc_cache.count > capacity)
		cache_evict_one();
	doc_cache.usable = true;
}

/* The cached row of `block`, marked used by this search (NULL: not cached). */
static const uint8 *
cache_get(int32 block)
{
	CacheEntry *entry = hash_search(doc_cache.entries, &block, HASH_FIND, NULL);

	if (entry == NULL)
		return NULL;
	entry->used = doc_cache.search;
	dlist_move_head(&doc_cache.lru, &entry->lru);
	return entry->row;
}

/* Caches a copy of a row; NULL when full of rows this search uses. */
static const uint8 *
cache_put(int32 block, const uint8 *core, const uint8 *keys)
{
	CacheEntry *entry;
	bool		found;
	uint8	   *copy;

	if (doc_cache.count >= cache_capacity())
	{
		CacheEntry *oldest;

		if (dlist_is_empty(&doc_cache.lru))
			return NULL;
		oldest = dlist_container(CacheEntry, lru, dlist_tail_node(&doc_cache.lru));
		if (oldest->used == doc_cache.search)
			return NULL;
		cache_evict_one();
	}
	copy = MemoryContextAlloc(doc_cache.context, ROW_BYTES);
	memcpy(copy, core, DOCS_PER_BLOCK * CORE_BYTES);
	memcpy(copy + DOCS_PER_BLOCK * CORE_BYTES, keys, DOCS_PER_BLOCK * KEYS_BYTES);
	entry = hash_search(doc_cache.entries, &block, HASH_ENTER, &found);
	if (found)
	{
		/* Not reached (a cached row is not read again), but a stale copy must not stay. */
		pfree(entry->row);
		dlist_delete(&entry->lru);
		doc_cache.count--;
	}
	entry->row = copy;
	entry->used = doc_cache.search;
	dlist_push_head(&doc_cache.lru, &entry->lru);
	doc_cache.count++;
	return copy;
}

void
doc_blocks_free(DocBlocks *blocks)
{
	if (blocks->rows != NULL)
		SPI_freetuptable(blocks->rows);
	blocks->rows = NULL;
}

void
doc_blocks_read(DocBlocks *blocks, const IndexTables *tables, const int64 *matched, int n_matched, bool need_keys)
{
	int32	   *wanted;
	int			n_wanted = 0;
	int32	   *missing;
	int			n_missing = 0;
	bool		caching = doc_cache.usable;
	MemoryContext old = CurrentMemoryContext;

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
	missing = palloc(sizeof(int32) * n_wanted);
	for (int i = 0; i < n_wanted; i++)
	{
		int32		block = wanted[i];

		const uint8 *row = caching ? cache_get(block) : NULL;

		if (row != NULL)
		{
			blocks->core[block - blocks->low] = row;
			blocks->keys[block - blocks->low] = row + DOCS_PER_BLOCK * CORE_BYTES;
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
		MemoryContextSwitchTo(old);
		blocks->rows = SPI_tuptable;
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
				const uint8 *row = cache_put(block, core_bytes, key_bytes);

				if (row != NULL)
				{
					core_bytes = row;
					key_bytes = row + DOCS_PER_BLOCK * CORE_BYTES;
				}
			}
			blocks->core[block - blocks->low] = core_bytes;
			blocks->keys[block - blocks->low] = key_bytes;
		}
	}
}
