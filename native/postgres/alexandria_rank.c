/*
 * alexandria_pg, inverted layout: the matching documents filtered by their metadata, scored with
 * FTS5's BM25 (k1 1.2, b 0.75) and the best `offset + limit` kept in a heap under the sort's order.
 */
#include "alexandria_inverted.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#define K1 1.2
#define B 0.75
#define FLAG_LIVE 1
#define FLAG_PATENT 2
#define FLAG_REVIEWED 4
#define NO_YEAR (-32768)

/* Whether a comes before b: key desc (none last), score desc, doc asc. Scores are finite. */
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

/* Scored clauses in decreasing bound (qsort_arg: a hostile call may score 65,536 of them). */
static int
by_bound(const void *a, const void *b, void *arg)
{
	const double *bound = arg;
	double		x = bound[*(const int *) a];
	double		y = bound[*(const int *) b];

	return x > y ? -1 : x < y ? 1 : 0;
}

/*
 * MaxScore (relevance only): each scored clause's contribution is at most its IDF times
 * (k1 + 1) · fmax / (fmax + k1 (1 − b)) — its largest frequency, in the shortest document.
 * Clauses are tried in decreasing bound; once a document's contributions so far plus the bounds
 * of the clauses left fall below the worst score kept (with a margin for rounding), it cannot
 * enter the page and its remaining divisions are skipped. Kept documents are summed in the
 * listed order, so that scores round exactly as without the pruning (and as FTS5 sums them).
 */
static void
bounds(const SearchRequest *r, const ClauseList *lists, int *order, double *bound_left)
{
	double	   *bound = palloc(sizeof(double) * Max(r->n_scored, 1));

	for (int s = 0; s < r->n_scored; s++)
	{
		double		fmax = lists[r->scored[s]].fmax;

		bound[s] = fmax > 0 ? r->idf[s] * (fmax * (K1 + 1.0)) / (fmax + K1 * (1 - B)) : 0;
		order[s] = s;
	}
	qsort_arg(order, r->n_scored, sizeof(int), by_bound, bound);
	bound_left[r->n_scored] = 0;
	for (int a = r->n_scored - 1; a >= 0; a--)
		bound_left[a] = bound_left[a + 1] + bound[order[a]];
}

void
rank_start(RankState *state, const SearchRequest *r, MemoryContext context)
{
	memset(state, 0, sizeof(*state));
	state->k = r->offset + r->limit;	/* both ≤ INT32_MAX: no overflow in int64 */
	state->context = context;
}

/* Room for one more hit (the heap grows with the hits kept, up to offset + limit). */
static void
heap_room(RankState *state)
{
	int64		capacity;

	if (state->n_heap < state->capacity)
		return;
	capacity = Min(Max((int64) state->capacity * 2, 64), state->k);
	if ((uint64) capacity > MaxAllocSize / sizeof(Hit))
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("alexandria_inverted_search: a page of %lld hits exceeds the 1 GB allocation limit",
							   (long long) capacity)));
	if (state->heap == NULL)
		state->heap = MemoryContextAlloc(state->context, sizeof(Hit) * capacity);
	else
		state->heap = repalloc(state->heap, sizeof(Hit) * capacity);
	state->capacity = (int) capacity;
}

void
rank_finish(RankState *state)
{
	if (state->n_heap > 0)
		qsort(state->heap, state->n_heap, sizeof(Hit), hit_order);
}

void
rank(const SearchRequest *r, const ClauseList *lists, const int64 *matched, int n_matched, const DocBlocks *given,
	 RankState *state)
{
	const DocBlocks blocks = *given;
	int64		k = state->k;
	int		   *cursor;
	int		   *order;
	double	   *bound_left;
	double	   *contribution;

	cursor = palloc0(sizeof(int) * Max(r->n_scored, 1));
	order = palloc(sizeof(int) * Max(r->n_scored, 1));
	bound_left = palloc(sizeof(double) * (r->n_scored + 1));
	contribution = palloc0(sizeof(double) * Max(r->n_scored, 1));
	bounds(r, lists, order, bound_left);
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

		CHECK_FOR_INTERRUPTS();
		if (core == NULL)
			continue;
		entry = core + slot * CORE_BYTES;
		flags = entry[6];
		if ((flags & FLAG_LIVE) == 0)
			continue;
		if (r->kind >= 0 && ((flags & FLAG_PATENT) != 0) != (r->kind == 1))
			continue;
		if (r->reviewed_only && (flags & FLAG_REVIEWED) == 0)
			continue;
		year = le16(entry + 4);
		if ((r->has_start || r->has_end) && year == NO_YEAR)
			continue;
		if (r->has_start && year < r->start_year)
			continue;
		if (r->has_end && year > r->end_year)
			continue;
		state->total++;
		if (k == 0)
			continue;
		/* A damaged length below 0 counts as 0: the norm stays positive. */
		doclen = Max(le32(entry), 0);
		norm = K1 * (1 - B + B * (double) doclen / r->avgdl);
		hit.doc = doc;
		hit.score = 0;
		{
			bool		pruning = r->sort == 0 && state->n_heap == k;
			double		floor = pruning ? state->heap[0].score - 1e-9 * fabs(state->heap[0].score) : 0;
			double		partial = 0;
			bool		pruned = false;

			for (int a = 0; a < r->n_scored; a++)
			{
				int			s = order[a];
				const ClauseList *l = &lists[r->scored[s]];
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
					double		f = list_frequency(l, at, r->weights);

					contribution[s] = r->idf[s] * (f * (K1 + 1.0)) / (f + norm);
					partial += contribution[s];
				}
			}
			if (pruned)
				continue;
			for (int s = 0; s < r->n_scored; s++)
				hit.score += contribution[s];
		}
		hit.key = -1;
		if (r->sort != 0)
		{
			const uint8 *keys = blocks.keys[block - blocks.low];

			if (keys)
				hit.key = le32(keys + slot * KEYS_BYTES + (r->sort == 1 ? 0 : 4));
			if (hit.key < 0)
				hit.key = -1;
		}
		if (state->n_heap < k)
		{
			heap_room(state);
			state->heap[state->n_heap] = hit;
			sift_up(state->heap, state->n_heap);
			state->n_heap++;
		}
		else if (state->n_heap > 0 && before(&hit, &state->heap[0]))
		{
			state->heap[0] = hit;
			sift_down(state->heap, state->n_heap, 0);
		}
	}
}
