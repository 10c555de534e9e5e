/*
 * alexandria_pg, inverted layout (docs/decisions/0024): BM25 top-k over Alexandria's own posting
 * blocks instead of per-record tsvectors.
 *
 * Tables (written by src/adapters/postgres/postgres-inverted-writes.ts):
 *   paper_words    (word text, id int8, records int4, tail_docs bytea, tail_positions bytea)
 *   paper_postings (word int8, seq int8, docs bytea, positions bytea)   -- sealed blocks, by seq
 *   paper_docs     (block int4, core bytea, keys bytea)                  -- 1024 documents a row
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
 *   alexandria_inverted_search(clause_words int8[], clause_lengths int4[], required int4[],
 *       candidates int4[], scored int4[], idf float8[], weights float8[3], avgdl float8,
 *       kind int4 (−1: any), reviewed_only bool, start_year int4, end_year int4,
 *       sort int4 (0 relevance, 1 citations, 2 date), lim int4, off int4)
 *     → TABLE (doc int8, score float8, total int8)
 *
 * Clauses are word-id sequences (a phrase, or one word). A document matches when it holds every
 * `required` clause, or (none required) any `candidates` clause, is live, and passes the filters.
 * Its score is FTS5's BM25 summed over `scored` (clause indexes, a clause may appear twice), the
 * frequency of a clause being its occurrences weighted by the field they start in. Rows: the page
 * (`off`, `lim`) in the sort's order (key desc, nulls last; then score desc; then document), each
 * with the total; a page past the end is one row with a NULL document and the total.
 *
 *   alexandria_docs_append(bytea, bytea) → bytea: a docs list followed by another whose
 *   documents all come after it (the first delta rebased).
 *
 *   alexandria_slices(blob bytea, lengths int4[]) → bytea[]: the blob cut into consecutive pieces
 *   of these lengths (−1: NULL, no bytes). A batch's thousands of small byte strings travel as one
 *   binary parameter instead of a text array of hex strings (parsing that cost more than the write).
 */
#include "postgres.h"

#include <malloc.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#define K1 1.2
#define B 0.75
#define DOCS_PER_BLOCK 1024
#define CORE_BYTES 8
#define KEYS_BYTES 8
#define FLAG_LIVE 1
#define FLAG_PATENT 2
#define FLAG_REVIEWED 4
#define NO_YEAR (-32768)

/*
 * A search allocates and frees tens of MB (inflated blocks, decoded lists): glibc would give that
 * back to the kernel after each search (heap trimming) and fault it in again on the next, which
 * cost more than the decoding. Keep up to 64 MiB of freed heap in a backend that ranks.
 */
void		_PG_init(void);

void
_PG_init(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

/* ---- varints ---- */

static inline uint64
read_varint(const uint8 **cursor, const uint8 *end)
{
	uint64		value = 0;
	int			shift = 0;

	while (*cursor < end)
	{
		uint8		byte = *(*cursor)++;

		value |= (uint64) (byte & 0x7f) << shift;
		if ((byte & 0x80) == 0)
			break;
		shift += 7;
	}
	return value;
}

static inline int
write_varint(uint8 *out, uint64 value)
{
	int			n = 0;

	while (value >= 0x80)
	{
		out[n++] = (uint8) (value | 0x80);
		value >>= 7;
	}
	out[n++] = (uint8) value;
	return n;
}

static inline void
read_tf(const uint8 **cursor, const uint8 *end, int32 *tf)
{
	uint8		byte;

	if (*cursor >= end)
	{
		tf[0] = tf[1] = tf[2] = 0;
		return;
	}
	byte = *(*cursor)++;
	if (byte != 0)
	{
		tf[0] = byte >> 6;
		tf[1] = (byte >> 3) & 7;
		tf[2] = byte & 7;
		return;
	}
	tf[0] = (int32) read_varint(cursor, end);
	tf[1] = (int32) read_varint(cursor, end);
	tf[2] = (int32) read_varint(cursor, end);
}

/* ---- one word's postings, decoded ---- */

typedef struct Postings
{
	int64		word;
	bool		need_positions;
	int			count;
	int			capacity;
	int64	   *doc;
	int32	   *tf;				/* 3 per posting */
	const uint8 **pos;			/* start of each posting's positions (when needed) */
	const uint8 **pos_end;
	double		fmax;			/* largest weighted frequency */
} Postings;

static void
postings_grow(Postings *p, int more)
{
	int			need = p->count + more;

	if (need <= p->capacity)
		return;
	p->capacity = Max(need, p->capacity * 2);
	if (p->doc == NULL)
	{
		p->doc = palloc(sizeof(int64) * p->capacity);
		p->tf = palloc(sizeof(int32) * 3 * p->capacity);
		if (p->need_positions)
		{
			p->pos = palloc(sizeof(uint8 *) * p->capacity);
			p->pos_end = palloc(sizeof(uint8 *) * p->capacity);
		}
	}
	else
	{
		p->doc = repalloc(p->doc, sizeof(int64) * p->capacity);
		p->tf = repalloc(p->tf, sizeof(int32) * 3 * p->capacity);
		if (p->need_positions)
		{
			p->pos = repalloc(p->pos, sizeof(uint8 *) * p->capacity);
			p->pos_end = repalloc(p->pos_end, sizeof(uint8 *) * p->capacity);
		}
	}
}

/* Appends one block (docs, and positions when wanted) to the word's decoded list. */
static void
postings_add_block(Postings *p, bytea *docs, bytea *positions, const double *weight)
{
	const uint8 *cursor = (const uint8 *) VARDATA_ANY(docs);
	const uint8 *end = cursor + VARSIZE_ANY_EXHDR(docs);
	const uint8 *pcursor = positions ? (const uint8 *) VARDATA_ANY(positions) : NULL;
	const uint8 *pend = positions ? pcursor + VARSIZE_ANY_EXHDR(positions) : NULL;
	int64		doc = 0;

	postings_grow(p, (int) (VARSIZE_ANY_EXHDR(docs) / 2 + 1));
	while (cursor < end)
	{
		int			at = p->count++;

		doc += (int64) read_varint(&cursor, end);
		p->doc[at] = doc;
		read_tf(&cursor, end, &p->tf[at * 3]);
		{
			double		f = weight[0] * p->tf[at * 3] + weight[1] * p->tf[at * 3 + 1] + weight[2] * p->tf[at * 3 + 2];

			if (f > p->fmax)
				p->fmax = f;
		}
		if (!p->need_positions)
			continue;
		if (pcursor)
		{
			int			n = p->tf[at * 3] + p->tf[at * 3 + 1] + p->tf[at * 3 + 2];

			p->pos[at] = pcursor;
			for (int i = 0; i < n && pcursor < pend; i++)
				(void) read_varint(&pcursor, pend);
			p->pos_end[at] = pcursor;
		}
		else
			p->pos[at] = p->pos_end[at] = NULL;
	}
}

/* ---- clause lists: (doc, weighted frequency), doc ascending ---- */

typedef struct ClauseList
{
	int			count;
	int64	   *doc;
	double	   *f;				/* a phrase's frequencies; NULL for one word (from tf) */
	const int32 *tf;			/* one word: its postings' term frequencies, 3 per posting */
	double		fmax;			/* largest frequency in the list */
} ClauseList;

/* The weighted frequency of posting `at` of a clause list. */
static inline double
list_frequency(const ClauseList *l, int at, const double *weight)
{
	if (l->f != NULL)
		return l->f[at];
	return weight[0] * l->tf[at * 3] + weight[1] * l->tf[at * 3 + 1] + weight[2] * l->tf[at * 3 + 2];
}

static int
decode_positions(const uint8 *cursor, const uint8 *end, int32 *out, int max)
{
	int			n = 0;
	int32		at = 0;

	while (cursor < end && n < max)
	{
		at += (int32) read_varint(&cursor, end);
		out[n++] = at;
	}
	return n;
}

static bool
holds_position(const int32 *positions, int count, int32 position)
{
	int			low = 0;
	int			high = count - 1;

	while (low <= high)
	{
		int			mid = low + (high - low) / 2;

		if (positions[mid] == position)
			return true;
		if (positions[mid] < position)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return false;
}

static void
clause_list(ClauseList *out, Postings **words, int length, const double *weight)
{
	Postings   *first = words[0];

	out->count = 0;
	if (length == 1)
	{
		out->doc = first->doc;
		out->tf = first->tf;
		out->f = NULL;
		out->count = first->count;
		out->fmax = first->fmax;
		return;
	}
	out->doc = palloc(sizeof(int64) * Max(first->count, 1));
	out->f = palloc(sizeof(double) * Max(first->count, 1));
	{
		int		   *cursor = palloc0(sizeof(int) * length);
		int32	   *firsts = NULL;
		int32	  **others = palloc0(sizeof(int32 *) * length);
		int		   *other_counts = palloc0(sizeof(int) * length);
		int			capacity = 0;
		int		   *other_capacity = palloc0(sizeof(int) * length);

		for (int i = 0; i < first->count; i++)
		{
			int64		doc = first->doc[i];
			bool		all = true;
			int			n_first;
			int			tfa = first->tf[i * 3];
			int			tfb = first->tf[i * 3 + 1];
			double		f = 0;

			for (int j = 1; j < length && all; j++)
			{
				Postings   *w = words[j];

				while (cursor[j] < w->count && w->doc[cursor[j]] < doc)
					cursor[j]++;
				all = cursor[j] < w->count && w->doc[cursor[j]] == doc;
			}
			if (!all)
				continue;
			n_first = first->tf[i * 3] + first->tf[i * 3 + 1] + first->tf[i * 3 + 2];
			if (n_first > capacity)
			{
				capacity = Max(n_first, capacity * 2);
				firsts = firsts ? repalloc(firsts, sizeof(int32) * capacity) : palloc(sizeof(int32) * capacity);
			}
			n_first = decode_positions(first->pos[i], first->pos_end[i], firsts, n_first);
			for (int j = 1; j < length; j++)
			{
				Postings   *w = words[j];
				int			k = cursor[j];
				int			n = w->tf[k * 3] + w->tf[k * 3 + 1] + w->tf[k * 3 + 2];

				if (n > other_capacity[j])
				{
					other_capacity[j] = Max(n, other_capacity[j] * 2);
					others[j] = others[j] ? repalloc(others[j], sizeof(int32) * other_capacity[j])
						: palloc(sizeof(int32) * other_capacity[j]);
				}
				other_counts[j] = decode_positions(w->pos[k], w->pos_end[k], others[j], n);
			}
			for (int p = 0; p < n_first; p++)
			{
				bool		whole = true;

				for (int j = 1; j < length && whole; j++)
					whole = holds_position(others[j], other_counts[j], firsts[p] + j);
				if (whole)
					f += weight[p < tfa ? 0 : p < tfa + tfb ? 1 : 2];
			}
			if (f > 0)
			{
				out->doc[out->count] = doc;
				out->f[out->count] = f;
				if (f > out->fmax)
					out->fmax = f;
				out->count++;
			}
		}
	}
}

/* ---- documents' metadata ---- */

typedef struct DocBlocks
{
	int32		low;
	int32		high;
	const uint8 **core;			/* per block (low..high), NULL when absent */
	const uint8 **keys;
} DocBlocks;

static inline int32
le32(const uint8 *p)
{
	return (int32) ((uint32) p[0] | ((uint32) p[1] << 8) | ((uint32) p[2] << 16) | ((uint32) p[3] << 24));
}

static inline int16
le16(const uint8 *p)
{
	return (int16) ((uint16) p[0] | ((uint16) p[1] << 8));
}

/* ---- ranking ---- */

typedef struct Hit
{
	int64		doc;
	double		score;
	int64		key;			/* −1: none */
} Hit;

/* Whether a comes before b: key desc (none last), score desc, doc asc. */
static inline bool
before(const Hit *a, const Hit *b)
{
	if (a->key != b->key)
		return a->key > b->key;
	if (a->score != b->score)
		return a->score > b->score;
	return a->doc < b->doc;
}

/* A heap of the best k hits whose root is the worst of them. */
static void
sift_down(Hit *heap, int n, int i)
{
	for (;;)
	{
		int			worst = i;
		int			l = 2 * i + 1;
		int			r = l + 1;

		if (l < n && before(&heap[worst], &heap[l]))
			worst = l;
		if (r < n && before(&heap[worst], &heap[r]))
			worst = r;
		if (worst == i)
			return;
		{
			Hit			t = heap[i];

			heap[i] = heap[worst];
			heap[worst] = t;
		}
		i = worst;
	}
}

static void
sift_up(Hit *heap, int i)
{
	while (i > 0)
	{
		int			parent = (i - 1) / 2;

		if (!before(&heap[parent], &heap[i]))
			return;
		{
			Hit			t = heap[i];

			heap[i] = heap[parent];
			heap[parent] = t;
		}
		i = parent;
	}
}

static int
hit_order(const void *a, const void *b)
{
	const Hit  *x = a;
	const Hit  *y = b;

	if (before(x, y))
		return -1;
	if (before(y, x))
		return 1;
	return 0;
}

static int32 *
int_array(ArrayType *array, int *n)
{
	Datum	   *values;
	bool	   *nulls;
	int32	   *out;

	deconstruct_array(array, INT4OID, 4, true, TYPALIGN_INT, &values, &nulls, n);
	out = palloc(sizeof(int32) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = nulls[i] ? 0 : DatumGetInt32(values[i]);
	return out;
}

static int64 *
bigint_array(ArrayType *array, int *n)
{
	Datum	   *values;
	bool	   *nulls;
	int64	   *out;

	deconstruct_array(array, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &values, &nulls, n);
	out = palloc(sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = nulls[i] ? 0 : DatumGetInt64(values[i]);
	return out;
}

static double *
float_array(ArrayType *array, int *n)
{
	Datum	   *values;
	bool	   *nulls;
	double	   *out;

	deconstruct_array(array, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &values, &nulls, n);
	out = palloc(sizeof(double) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = nulls[i] ? 0 : DatumGetFloat8(values[i]);
	return out;
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

static ArrayType *
make_int_array(const int32 *values, int n)
{
	Datum	   *datums = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		datums[i] = Int32GetDatum(values[i]);
	return construct_array(datums, n, INT4OID, 4, true, TYPALIGN_INT);
}

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

/* Whether the cache can serve blocks up to `high` for the index the search path names, now. */
static bool
doc_cache_open(int32 high)
{
	Oid			relid;
	int64		version;
	bool		null;
	int			ret;

	if (high < 0 || high >= DOC_CACHE_MAX_BLOCKS)
		return false;
	relid = RangeVarGetRelid(makeRangeVar(NULL, "paper_docs", -1), NoLock, true);
	if (!OidIsValid(relid))
		return false;
	ret = SPI_execute("SELECT data_version FROM paper_index_stats", true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		return false;
	version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
	if (null)
		return false;
	if (doc_cache.context == NULL || doc_cache.relid != relid || doc_cache.version != version)
	{
		if (doc_cache.context != NULL)
			MemoryContextDelete(doc_cache.context);
		memset(&doc_cache, 0, sizeof(doc_cache));
		doc_cache.context = AllocSetContextCreate(TopMemoryContext, "alexandria_pg documents",
												  ALLOCSET_DEFAULT_SIZES);
		doc_cache.relid = relid;
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

PG_FUNCTION_INFO_V1(alexandria_inverted_search);

Datum
alexandria_inverted_search(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n_words;
	int			n_clauses;
	int			n_required;
	int			n_candidates;
	int			n_scored;
	int			n_idf;
	int			n_weights;
	int64	   *clause_words;
	int32	   *clause_lengths;
	int32	   *required;
	int32	   *candidates;
	int32	   *scored;
	double	   *idf;
	double	   *weights;
	double		avgdl;
	int32		kind;
	bool		reviewed_only;
	bool		has_start;
	bool		has_end;
	int32		start_year;
	int32		end_year;
	int32		sort;
	int32		lim;
	int32		off;
	int64	   *distinct;
	int			n_distinct = 0;
	Postings   *postings;
	ClauseList *lists;
	int		   *clause_start;
	int64	   *matched;
	int			n_matched = 0;
	DocBlocks	blocks;
	Hit		   *heap;
	int			k;
	int			n_heap = 0;
	int64		total = 0;
	int		   *cursor;
	int		   *order;
	double	   *bound_left;
	double	   *contribution;
	MemoryContext outer = CurrentMemoryContext;

	for (int i = 0; i <= 7; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("alexandria_inverted_search: argument %d is null", i + 1)));
	InitMaterializedSRF(fcinfo, 0);
	clause_words = bigint_array(PG_GETARG_ARRAYTYPE_P(0), &n_words);
	clause_lengths = int_array(PG_GETARG_ARRAYTYPE_P(1), &n_clauses);
	required = int_array(PG_GETARG_ARRAYTYPE_P(2), &n_required);
	candidates = int_array(PG_GETARG_ARRAYTYPE_P(3), &n_candidates);
	scored = int_array(PG_GETARG_ARRAYTYPE_P(4), &n_scored);
	idf = float_array(PG_GETARG_ARRAYTYPE_P(5), &n_idf);
	weights = float_array(PG_GETARG_ARRAYTYPE_P(6), &n_weights);
	avgdl = PG_GETARG_FLOAT8(7);
	kind = PG_ARGISNULL(8) ? -1 : PG_GETARG_INT32(8);
	reviewed_only = PG_ARGISNULL(9) ? false : PG_GETARG_BOOL(9);
	has_start = !PG_ARGISNULL(10);
	start_year = has_start ? PG_GETARG_INT32(10) : 0;
	has_end = !PG_ARGISNULL(11);
	end_year = has_end ? PG_GETARG_INT32(11) : 0;
	sort = PG_ARGISNULL(12) ? 0 : PG_GETARG_INT32(12);
	lim = PG_ARGISNULL(13) ? 10 : PG_GETARG_INT32(13);
	off = PG_ARGISNULL(14) ? 0 : PG_GETARG_INT32(14);
	if (n_weights != 3)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("alexandria_inverted_search: 3 field weights expected, got %d", n_weights)));
	if (n_idf != n_scored)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("alexandria_inverted_search: %d scored clauses but %d IDFs", n_scored, n_idf)));
	if (avgdl <= 0)
		avgdl = 1;
	clause_start = palloc(sizeof(int) * (n_clauses + 1));
	clause_start[0] = 0;
	for (int c = 0; c < n_clauses; c++)
		clause_start[c + 1] = clause_start[c] + Max(clause_lengths[c], 0);
	if (clause_start[n_clauses] != n_words)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("alexandria_inverted_search: clause lengths add up to %d, %d words given",
							   clause_start[n_clauses], n_words)));
	for (int i = 0; i < n_required; i++)
		if (required[i] < 0 || required[i] >= n_clauses)
			elog(ERROR, "alexandria_inverted_search: required clause out of range");
	for (int i = 0; i < n_candidates; i++)
		if (candidates[i] < 0 || candidates[i] >= n_clauses)
			elog(ERROR, "alexandria_inverted_search: candidate clause out of range");
	for (int i = 0; i < n_scored; i++)
		if (scored[i] < 0 || scored[i] >= n_clauses)
			elog(ERROR, "alexandria_inverted_search: scored clause out of range");

	/* The distinct words, and which need positions (in a clause of several words). */
	distinct = palloc(sizeof(int64) * Max(n_words, 1));
	for (int i = 0; i < n_words; i++)
		distinct[i] = clause_words[i];
	qsort(distinct, n_words, sizeof(int64), compare_int64);
	for (int i = 0; i < n_words; i++)
		if (n_distinct == 0 || distinct[n_distinct - 1] != distinct[i])
			distinct[n_distinct++] = distinct[i];
	postings = palloc0(sizeof(Postings) * Max(n_distinct, 1));
	for (int i = 0; i < n_distinct; i++)
		postings[i].word = distinct[i];
	for (int c = 0; c < n_clauses; c++)
		if (clause_lengths[c] > 1)
			for (int j = clause_start[c]; j < clause_start[c + 1]; j++)
			{
				int64	   *found = bsearch(&clause_words[j], distinct, n_distinct, sizeof(int64), compare_int64);

				postings[found - distinct].need_positions = true;
			}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "alexandria_inverted_search: SPI_connect failed");
	if (n_distinct > 0)
	{
		int64	   *positional = palloc(sizeof(int64) * n_distinct);
		int			n_positional = 0;
		Oid			types[2] = {INT8ARRAYOID, INT8ARRAYOID};
		Datum		values[2];
		int			ret;

		for (int i = 0; i < n_distinct; i++)
			if (postings[i].need_positions)
				positional[n_positional++] = distinct[i];
		values[0] = PointerGetDatum(make_bigint_array(distinct, n_distinct));
		values[1] = PointerGetDatum(make_bigint_array(positional, n_positional));
		ret = SPI_execute_with_args(
									"SELECT word, docs, CASE WHEN word = ANY($2) THEN positions END FROM ("
									" SELECT word, seq, docs, positions FROM paper_postings WHERE word = ANY($1)"
									" UNION ALL SELECT id, 9223372036854775807, tail_docs, tail_positions FROM paper_words"
									" WHERE id = ANY($1) AND tail_docs IS NOT NULL) b ORDER BY word, seq",
									2, types, values, NULL, true, 0);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "alexandria_inverted_search: reading postings failed (%d)", ret);
		{
			uint64		rows = SPI_processed;
			int		   *row_word = palloc(sizeof(int) * Max(rows, 1));
			bytea	  **row_docs = palloc(sizeof(bytea *) * Max(rows, 1));
			bytea	  **row_positions = palloc(sizeof(bytea *) * Max(rows, 1));

			/* Inflate the blocks first, so that each word's arrays are sized once (a posting is ≥ 2 bytes). */
			for (uint64 r = 0; r < rows; r++)
			{
				HeapTuple	tuple = SPI_tuptable->vals[r];
				TupleDesc	desc = SPI_tuptable->tupdesc;
				bool		null;
				int64		word = DatumGetInt64(SPI_getbinval(tuple, desc, 1, &null));
				Datum		docs = SPI_getbinval(tuple, desc, 2, &null);
				int64	   *found;
				Datum		positions;
				bool		positions_null;

				row_word[r] = -1;
				if (null)
					continue;
				found = bsearch(&word, distinct, n_distinct, sizeof(int64), compare_int64);
				if (!found)
					continue;
				row_word[r] = (int) (found - distinct);
				row_docs[r] = DatumGetByteaPP(docs);
				positions = SPI_getbinval(tuple, desc, 3, &positions_null);
				row_positions[r] = positions_null ? NULL : DatumGetByteaPP(positions);
				postings[row_word[r]].capacity += (int) (VARSIZE_ANY_EXHDR(row_docs[r]) / 2 + 1);
			}
			for (int i = 0; i < n_distinct; i++)
			{
				int			capacity = postings[i].capacity;

				postings[i].capacity = 0;
				postings_grow(&postings[i], capacity);
			}
			for (uint64 r = 0; r < rows; r++)
				if (row_word[r] >= 0)
					postings_add_block(&postings[row_word[r]], row_docs[r], row_positions[r], weights);
		}
	}

	/* Each clause's (doc, frequency) list. */
	lists = palloc0(sizeof(ClauseList) * Max(n_clauses, 1));
	for (int c = 0; c < n_clauses; c++)
	{
		int			length = clause_lengths[c];
		Postings  **words = palloc(sizeof(Postings *) * Max(length, 1));

		if (length == 0)
			continue;
		for (int j = 0; j < length; j++)
		{
			int64	   *found = bsearch(&clause_words[clause_start[c] + j], distinct, n_distinct,
										sizeof(int64), compare_int64);

			words[j] = &postings[found - distinct];
		}
		clause_list(&lists[c], words, length, weights);
	}

	/* The matching documents, ascending. */
	if (n_required > 0)
	{
		ClauseList *base = &lists[required[0]];
		int		   *at = palloc0(sizeof(int) * n_required);

		matched = palloc(sizeof(int64) * Max(base->count, 1));
		for (int i = 0; i < base->count; i++)
		{
			int64		doc = base->doc[i];
			bool		all = true;

			for (int r = 1; r < n_required && all; r++)
			{
				ClauseList *l = &lists[required[r]];

				while (at[r] < l->count && l->doc[at[r]] < doc)
					at[r]++;
				all = at[r] < l->count && l->doc[at[r]] == doc;
			}
			if (all)
				matched[n_matched++] = doc;
		}
	}
	else
	{
		int			capacity = 0;
		int		   *at = palloc0(sizeof(int) * Max(n_candidates, 1));

		for (int c = 0; c < n_candidates; c++)
			capacity += lists[candidates[c]].count;
		matched = palloc(sizeof(int64) * Max(capacity, 1));
		for (;;)
		{
			int64		next = PG_INT64_MAX;

			for (int c = 0; c < n_candidates; c++)
			{
				ClauseList *l = &lists[candidates[c]];

				if (at[c] < l->count && l->doc[at[c]] < next)
					next = l->doc[at[c]];
			}
			if (next == PG_INT64_MAX)
				break;
			matched[n_matched++] = next;
			for (int c = 0; c < n_candidates; c++)
			{
				ClauseList *l = &lists[candidates[c]];

				if (at[c] < l->count && l->doc[at[c]] == next)
					at[c]++;
			}
		}
	}

	/* The metadata blocks of the matches (from this backend's cache when it holds them). */
	memset(&blocks, 0, sizeof(blocks));
	if (n_matched > 0)
	{
		int32	   *wanted = palloc(sizeof(int32) * n_matched);
		int			n_wanted = 0;
		int32	   *missing;
		int			n_missing = 0;
		bool		caching;

		for (int i = 0; i < n_matched; i++)
		{
			int32		block = (int32) (matched[i] / DOCS_PER_BLOCK);

			if (n_wanted == 0 || wanted[n_wanted - 1] != block)
				wanted[n_wanted++] = block;
		}
		blocks.low = wanted[0];
		blocks.high = wanted[n_wanted - 1];
		blocks.core = palloc0(sizeof(uint8 *) * (blocks.high - blocks.low + 1));
		blocks.keys = palloc0(sizeof(uint8 *) * (blocks.high - blocks.low + 1));
		caching = doc_cache_open(blocks.high);
		missing = palloc(sizeof(int32) * n_wanted);
		for (int i = 0; i < n_wanted; i++)
		{
			int32		block = wanted[i];

			if (caching && doc_cache.core[block] != NULL)
			{
				blocks.core[block - blocks.low] = doc_cache.core[block];
				blocks.keys[block - blocks.low] = doc_cache.keys[block];
			}
			else
				missing[n_missing++] = block;
		}
		if (n_missing > 0)
		{
			Oid			types[2] = {INT4ARRAYOID, BOOLOID};
			Datum		values[2];
			int			ret;

			values[0] = PointerGetDatum(make_int_array(missing, n_missing));
			values[1] = BoolGetDatum(caching || sort != 0);
			ret = SPI_execute_with_args("SELECT block, core, CASE WHEN $2 THEN keys END FROM paper_docs WHERE block = ANY($1)",
										2, types, values, NULL, true, 0);
			if (ret != SPI_OK_SELECT)
				elog(ERROR, "alexandria_inverted_search: reading documents failed (%d)", ret);
			for (uint64 r = 0; r < SPI_processed; r++)
			{
				HeapTuple	tuple = SPI_tuptable->vals[r];
				TupleDesc	desc = SPI_tuptable->tupdesc;
				bool		null;
				int32		block = DatumGetInt32(SPI_getbinval(tuple, desc, 1, &null));
				Datum		core = SPI_getbinval(tuple, desc, 2, &null);
				bytea	   *bytes;
				const uint8 *core_bytes;
				const uint8 *key_bytes = NULL;

				if (null || block < blocks.low || block > blocks.high)
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
				blocks.core[block - blocks.low] = core_bytes;
				blocks.keys[block - blocks.low] = key_bytes;
			}
		}
	}

	/* Score the live matches that pass the filters; keep the best off + lim. */
	k = Max(off, 0) + Max(lim, 0);
	heap = palloc(sizeof(Hit) * Max(k, 1));
	cursor = palloc0(sizeof(int) * Max(n_scored, 1));

	/*
	 * MaxScore (relevance only): each scored clause's contribution is at most its IDF times
	 * (k1 + 1) · fmax / (fmax + k1 (1 − b)) — its largest frequency, in the shortest document.
	 * Clauses are tried in decreasing bound; once a document's contributions so far plus the bounds
	 * of the clauses left fall below the worst score kept (with a margin for rounding), it cannot
	 * enter the page and its remaining divisions are skipped. Kept documents are summed in the
	 * listed order, so that scores round exactly as without the pruning (and as FTS5 sums them).
	 */
	order = palloc(sizeof(int) * Max(n_scored, 1));
	bound_left = palloc(sizeof(double) * (n_scored + 1));
	contribution = palloc0(sizeof(double) * Max(n_scored, 1));
	{
		double	   *bound = palloc(sizeof(double) * Max(n_scored, 1));

		for (int s = 0; s < n_scored; s++)
		{
			double		fmax = lists[scored[s]].fmax;

			bound[s] = fmax > 0 ? idf[s] * (fmax * (K1 + 1.0)) / (fmax + K1 * (1 - B)) : 0;
			order[s] = s;
		}
		/* Insertion sort: a query scores a handful of clauses. */
		for (int a = 1; a < n_scored; a++)
			for (int b = a; b > 0 && bound[order[b]] > bound[order[b - 1]]; b--)
			{
				int			t = order[b];

				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		bound_left[n_scored] = 0;
		for (int a = n_scored - 1; a >= 0; a--)
			bound_left[a] = bound_left[a + 1] + bound[order[a]];
	}
	for (int i = 0; i < n_matched; i++)
	{
		int64		doc = matched[i];
		int32		block = (int32) (doc / DOCS_PER_BLOCK);
		int			slot = (int) (doc % DOCS_PER_BLOCK);
		const uint8 *core = blocks.core[block - blocks.low];
		const uint8 *entry;
		int32		doclen;
		int16		year;
		uint8		flags;
		double		norm;
		Hit			hit;

		if (core == NULL)
			continue;
		entry = core + slot * CORE_BYTES;
		flags = entry[6];
		if ((flags & FLAG_LIVE) == 0)
			continue;
		if (kind >= 0 && ((flags & FLAG_PATENT) != 0) != (kind == 1))
			continue;
		if (reviewed_only && (flags & FLAG_REVIEWED) == 0)
			continue;
		year = le16(entry + 4);
		if ((has_start || has_end) && year == NO_YEAR)
			continue;
		if (has_start && year < start_year)
			continue;
		if (has_end && year > end_year)
			continue;
		total++;
		if (k == 0)
			continue;
		doclen = le32(entry);
		norm = K1 * (1 - B + B * (double) doclen / avgdl);
		hit.doc = doc;
		hit.score = 0;
		{
			bool		pruning = sort == 0 && n_heap == k;
			double		floor = pruning ? heap[0].score - 1e-9 * fabs(heap[0].score) : 0;
			double		partial = 0;
			bool		pruned = false;

			for (int a = 0; a < n_scored; a++)
			{
				int			s = order[a];
				ClauseList *l = &lists[scored[s]];
				int			at = cursor[s];

				contribution[s] = 0;
				if (pruning && partial + bound_left[a] < floor)
				{
					pruned = true;
					break;
				}
				while (at < l->count && l->doc[at] < doc)
					at++;
				cursor[s] = at;
				if (at < l->count && l->doc[at] == doc)
				{
					double		f = list_frequency(l, at, weights);

					contribution[s] = idf[s] * (f * (K1 + 1.0)) / (f + norm);
					partial += contribution[s];
				}
			}
			if (pruned)
				continue;
			for (int s = 0; s < n_scored; s++)
				hit.score += contribution[s];
		}
		hit.key = -1;
		if (sort != 0)
		{
			const uint8 *keys = blocks.keys[block - blocks.low];

			if (keys)
				hit.key = le32(keys + slot * KEYS_BYTES + (sort == 1 ? 0 : 4));
			if (hit.key < 0)
				hit.key = -1;
		}
		if (n_heap < k)
		{
			heap[n_heap] = hit;
			sift_up(heap, n_heap);
			n_heap++;
		}
		else if (before(&hit, &heap[0]))
		{
			heap[0] = hit;
			sift_down(heap, n_heap, 0);
		}
	}
	qsort(heap, n_heap, sizeof(Hit), hit_order);

	/* Rows go out after SPI ends (the tuplestore lives in the caller's memory). */
	{
		Hit		   *page = MemoryContextAlloc(outer, sizeof(Hit) * Max(n_heap, 1));
		int			n_page = 0;

		for (int i = Max(off, 0); i < n_heap; i++)
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
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(alexandria_docs_append);

Datum
alexandria_docs_append(PG_FUNCTION_ARGS)
{
	bytea	   *head;
	bytea	   *tail;
	const uint8 *cursor;
	const uint8 *end;
	int64		last = 0;
	int64		first;
	const uint8 *rest;
	uint8		varint[10];
	int			n;
	bytea	   *out;
	Size		head_bytes;
	Size		rest_bytes;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(1));
	head = PG_GETARG_BYTEA_PP(0);
	tail = PG_GETARG_BYTEA_PP(1);
	cursor = (const uint8 *) VARDATA_ANY(head);
	end = cursor + VARSIZE_ANY_EXHDR(head);
	while (cursor < end)
	{
		int32		tf[3];

		last += (int64) read_varint(&cursor, end);
		read_tf(&cursor, end, tf);
	}
	cursor = (const uint8 *) VARDATA_ANY(tail);
	end = cursor + VARSIZE_ANY_EXHDR(tail);
	first = (int64) read_varint(&cursor, end);
	if (first <= last && VARSIZE_ANY_EXHDR(head) > 0)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("alexandria_docs_append: document %lld does not follow %lld",
							   (long long) first, (long long) last)));
	rest = cursor;
	n = write_varint(varint, (uint64) (first - last));
	head_bytes = VARSIZE_ANY_EXHDR(head);
	rest_bytes = end - rest;
	out = palloc(VARHDRSZ + head_bytes + n + rest_bytes);
	SET_VARSIZE(out, VARHDRSZ + head_bytes + n + rest_bytes);
	memcpy(VARDATA(out), VARDATA_ANY(head), head_bytes);
	memcpy(VARDATA(out) + head_bytes, varint, n);
	memcpy(VARDATA(out) + head_bytes + n, rest, rest_bytes);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(alexandria_slices);

Datum
alexandria_slices(PG_FUNCTION_ARGS)
{
	bytea	   *blob = PG_GETARG_BYTEA_PP(0);
	int			n;
	int32	   *lengths = int_array(PG_GETARG_ARRAYTYPE_P(1), &n);
	const char *cursor = VARDATA_ANY(blob);
	const char *end = cursor + VARSIZE_ANY_EXHDR(blob);
	Datum	   *pieces = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1];
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
	{
		bytea	   *piece;

		nulls[i] = lengths[i] < 0;
		if (nulls[i])
		{
			pieces[i] = (Datum) 0;
			continue;
		}
		if (lengths[i] > end - cursor)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("alexandria_slices: lengths exceed the blob")));
		piece = palloc(VARHDRSZ + lengths[i]);
		SET_VARSIZE(piece, VARHDRSZ + lengths[i]);
		memcpy(VARDATA(piece), cursor, lengths[i]);
		cursor += lengths[i];
		pieces[i] = PointerGetDatum(piece);
	}
	dims[0] = n;
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BYTEAOID));
	PG_RETURN_ARRAYTYPE_P(construct_md_array(pieces, nulls, 1, dims, lbs, BYTEAOID, -1, false, TYPALIGN_INT));
}
