/*
 * alexandria_pg, inverted layout: decoded posting lists and clause lists (alexandria_postings.c),
 * shared with the search (alexandria_inverted.c). The byte formats are described there.
 */
#ifndef ALEXANDRIA_INVERTED_H
#define ALEXANDRIA_INVERTED_H

#include "alexandria_pg.h"

#include "fmgr.h"
#include "funcapi.h"

/* One word's postings, decoded: documents strictly ascending, each within 0..MAX_DOC. */
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
	double		fmax;			/* largest weighted frequency */
} Postings;

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
extern void *scratch_alloc(Size size);
extern void scratch_end(void);

/* Scratch memory for count elements of size bytes; a clean error past PostgreSQL's 1 GB allocation limit. */
extern void *alloc_array(int64 count, Size size);

/* Makes room for `more` postings (an error past the allocation limit). */
extern void postings_reserve(Postings *p, int64 more);

/* Appends one block (docs, and positions when wanted) to the word's list; damaged bytes end the statement. */
extern void postings_add_block(Postings *p, const bytea *docs, const bytea *positions, const double *weight);

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
} DocBlocks;

#define CORE_BYTES 8
#define KEYS_BYTES 8

/* Reads the rows of the blocks holding `matched` (ascending), from this backend's cache when it can. */
extern void doc_blocks_read(DocBlocks *blocks, const IndexTables *tables, const int64 *matched, int n_matched,
							bool need_keys);

/* A document of the page: its number, score and sort key (−1: none). */
typedef struct Hit
{
	int64		doc;
	double		score;
	int64		key;
} Hit;

/*
 * Filters the matches by their metadata and scores them (alexandria_rank.c): returns the best
 * offset + limit in the sort's order (key desc, none last; score desc; document asc), sets the
 * number of them and the total of matches that pass the filters.
 */
extern Hit *rank(const SearchRequest *request, const ClauseList *lists, const int64 *matched, int n_matched,
				 const DocBlocks *blocks, int64 *total, int *n_heap);

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
