/*
 * alexandria_pg, inverted layout: decoded posting lists and clause lists (alexandria_postings.c),
 * shared with the search (alexandria_inverted.c). The byte formats are described there.
 */
#ifndef ALEXANDRIA_INVERTED_H
#define ALEXANDRIA_INVERTED_H

#include "alexandria_pg.h"

#include "fmgr.h"
#include "executor/spi.h"
#include "funcapi.h"

/*
 * One word's postings in the current window of documents (alexandria_stream.c), decoded:
 * documents strictly ascending, each within 0..MAX_DOC. The arrays hold at most one window's
 * documents (alexandria.search_window_docs), however common the word.
 */
typedef struct Postings
{
	int64		word;
	bool		need_positions;
	int			count;
	int			capacity;
	int64		last_doc;		/* the last document decoded so far; −1 before the first */
	int64	   *doc;
	int32	   *tf;				/* 3 per posting */
	const uint8 **pos;			/* start of each posting's positions (when needed) */
	const uint8 **pos_end;
	double		fmax;			/* largest weighted frequency in the window */
} Postings;

/*
 * A word's stored posting list read in order, a few rows at a time (its first sealed blocks with
 * every other word's, the next ones FETCH_ROWS at a time by seq, then its tail): the row being
 * decoded is a copy in the window's memory.
 */
typedef struct WordStream
{
	Postings   *postings;
	uint64		first_at;		/* its rows in the search's first fetch (every word's first blocks) */
	uint64		first_end;
	int64		last_seq;		/* the last sealed block read */
	bool		more_sealed;	/* sealed blocks may follow those read */
	Portal		portal;			/* the cursor over the rest of its sealed blocks, while open */
	int64		tail_row;		/* its tail in the search's tails (−1: none, or read) */
	SPITupleTable *batch;		/* sealed blocks fetched past the first fetch, not yet decoded */
	uint64		batch_rows;
	uint64		batch_at;
	bool		peeked;			/* the next posting is decoded (not yet taken) */
	int64		peek_doc;
	int32		peek_tf[3];
	const uint8 *peek_cursor;
	bool		in_row;
	bool		row_first;		/* no posting of the row decoded yet (its first delta is from 0) */
	int64		row_doc;		/* the row's last decoded document */
	const uint8 *cursor;
	const uint8 *end;
	const uint8 *pcursor;
	const uint8 *pend;
	bool		done;
} WordStream;

/* The search's tunables (GUCs, alexandria_pg.c). */
extern int	alexandria_search_window_docs;
extern int	alexandria_cache_bytes;

/* What the last search in this backend allocated at most (bytes in all memory contexts), and before it. */
extern int64 alexandria_search_peak_bytes;
extern int64 alexandria_search_base_bytes;


/* A clause's (document, weighted frequency) list, documents ascending. */
typedef struct ClauseList
{
	int			count;
	int64	   *doc;
	double	   *f;				/* a phrase's frequencies; NULL for one word (from tf) */
	const int32 *tf;			/* one word: its postings' term frequencies, 3 per posting */
	double		fmax;			/* largest frequency in the list */
} ClauseList;

/*
 * The search's scratch memory (alexandria_scratch.c): scratch_alloc's memory lives until the next
 * scratch_begin (or, past what the buffer holds, until the memory context it was palloc'd in ends);
 * never pfree it.
 */
extern void scratch_begin(void);
/* A new window: what scratch_alloc gave is free again; past the buffer it pallocs in `window`. */
extern void scratch_window(MemoryContext window);
extern void *scratch_alloc(Size size);
/* The bytes of the kept buffer this window uses (what it took beyond is palloc'd, counted apart). */
extern Size scratch_used(void);
extern void scratch_end(void);

/* Scratch memory for count elements of size bytes; a clean error past PostgreSQL's 1 GB allocation limit. */
extern void *alloc_array(int64 count, Size size);

/* Makes room for `more` postings (an error past the allocation limit). */
extern void postings_reserve(Postings *p, int64 more);

/* Ends the statement: the word's stored postings do not decode (ERRCODE_DATA_CORRUPTED). */
extern void postings_damaged(const Postings *p, const char *what) pg_attribute_noreturn();

/* The list of a clause of `length` ≥ 1 words (a phrase when more than one: positions in a row). */
extern void clause_list(ClauseList *out, Postings **words, int length, const double *weight);

/* The index's tables, found in one schema (never through the caller's search_path), quoted and qualified. */
typedef struct IndexTables
{
	Oid			namespace;
	Oid			docs_relid;
	char	   *words;
	char	   *postings;
	char	   *docs;
	char	   *stats;
} IndexTables;

/* The index's tables in schema `namespace` (ends the statement when one is missing or not a table). */
extern void index_tables(Oid namespace, IndexTables *tables);

/* The streams of one search, one per distinct word (ascending ids): every word's first blocks and tail read. */
extern void streams_open(WordStream *streams, Postings *postings, int n, const IndexTables *tables);

/* The next document of a stream (−1: none left); fetches a row into `window` when it must. */
extern int64 stream_peek(WordStream *s, MemoryContext window, const double *weight);

/* Decodes the stream's postings below `high` into its Postings (emptied first). */
extern void stream_fill(WordStream *s, int64 high, MemoryContext window, const double *weight);

/* Moves the row being decoded into `next` (the window's memory is about to be freed). */
extern void stream_carry(WordStream *s, MemoryContext next);

extern void streams_close(WordStream *streams, int n);

/* A search's arguments, validated (alexandria_inverted.c). */
typedef struct SearchRequest
{
	int			n_words;
	int64	   *clause_words;
	int			n_clauses;
	int32	   *clause_lengths;		/* each ≥ 1 */
	int		   *clause_start;		/* n_clauses + 1 offsets into clause_words */
	int			n_required;
	int32	   *required;			/* clause indexes, in range */
	int			n_candidates;
	int32	   *candidates;
	int			n_scored;
	int32	   *scored;
	double	   *idf;				/* one per scored clause, 0..MAX_WEIGHT */
	double		weights[3];			/* title, abstract, other fields: 0..MAX_WEIGHT */
	double		avgdl;				/* > 0, finite */
	int32		kind;				/* −1 any, 0 papers, 1 patents */
	bool		reviewed_only;
	bool		has_start;
	bool		has_end;
	int32		start_year;
	int32		end_year;
	int32		sort;				/* 0 relevance, 1 citations, 2 date */
	int64		limit;				/* ≥ 0 */
	int64		offset;				/* ≥ 0 */
} SearchRequest;

/* The largest field weight or IDF: scores stay finite (no NaN to order). */
#define MAX_WEIGHT 1e6

/* The metadata rows of the matched documents (alexandria_docmeta.c). */
typedef struct DocBlocks
{
	int32		low;
	int32		high;
	const uint8 **core;			/* per block (low..high), NULL when absent */
	const uint8 **keys;
	SPITupleTable *rows;		/* the rows read (core and keys may point into them); freed by doc_blocks_free */
} DocBlocks;

#define CORE_BYTES 8
#define KEYS_BYTES 8

/* Whether this search may use the backend's metadata cache (read once per search: the data version). */
extern void doc_cache_prepare(const IndexTables *tables);

/* Reads the rows of the blocks holding `matched` (ascending), from this backend's cache when it can. */
extern void doc_blocks_read(DocBlocks *blocks, const IndexTables *tables, const int64 *matched, int n_matched,
							bool need_keys);
extern void doc_blocks_free(DocBlocks *blocks);

/* The cache's index (its paper_docs), rows and size in bytes now (alexandria_memory). */
extern Oid	doc_cache_relid(void);
extern int64 doc_cache_size(void);
extern int64 doc_cache_entries(void);

/* A document of the page: its number, score and sort key (−1: none). */
typedef struct Hit
{
	int64		doc;
	double		score;
	int64		key;
} Hit;

/* The best offset + limit hits so far (a heap whose root is the worst kept) and the total of matches. */
typedef struct RankState
{
	Hit		   *heap;
	int			n_heap;
	int			capacity;
	int64		k;
	int64		total;
	MemoryContext context;		/* holds the heap (grown up to k as hits come) */
} RankState;

extern void rank_start(RankState *state, const SearchRequest *request, MemoryContext context);

/*
 * Filters one window's matches by their metadata and scores them (alexandria_rank.c) into the
 * state: the best offset + limit in the sort's order (key desc, none last; score desc; document
 * asc), and the total of matches that pass the filters.
 */
extern void rank(const SearchRequest *request, const ClauseList *lists, const int64 *matched, int n_matched,
				 const DocBlocks *blocks, RankState *state);

/* Sorts the kept hits into the page's order. */
extern void rank_finish(RankState *state);

/* Ranks and writes the rows of one search (alexandria_search.c). Runs inside SPI. */
extern void run_search(const SearchRequest *request, const IndexTables *tables, ReturnSetInfo *rsinfo);

/* Ends the statement unless column `column` of the SPI result has type `type` (a table altered by hand). */
extern void require_column_type(const char *table, int column, Oid type);

static inline double
list_frequency(const ClauseList *l, int at, const double *weight)
{
	if (l->f != NULL)
		return l->f[at];
	return weight[0] * l->tf[at * 3] + weight[1] * l->tf[at * 3 + 1] + weight[2] * l->tf[at * 3 + 2];
}

#endif
