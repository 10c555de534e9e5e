/*
 * alexandria_pg, inverted layout: the arrays of decoded postings (filled by alexandria_stream.c),
 * and the lists of phrase clauses (positions in a row). Stored bytes are not trusted (decision 0039): a table can
 * be written by anyone who may write the index, or be damaged; every read is bounded by the
 * bytes' end, documents must ascend within the allowed range and frequencies fit int4, and
 * anything else ends the statement with ERRCODE_DATA_CORRUPTED naming the word.
 */
#include "alexandria_inverted.h"

#include "miscadmin.h"
#include "utils/memutils.h"

static void
check_array(int64 count, Size size)
{
	if (count < 0 || (uint64) count > MaxAllocSize / size)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("alexandria_inverted_search: a list of %lld elements exceeds the 1 GB allocation limit",
							   (long long) count)));
}

void *
alloc_array(int64 count, Size size)
{
	check_array(count, size);
	return scratch_alloc(Max(count, 1) * size);
}

void
postings_damaged(const Postings *p, const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
					errmsg("alexandria_inverted_search: the stored postings of word %lld are damaged (%s)",
						   (long long) p->word, what)));
}

void
postings_reserve(Postings *p, int64 more)
{
	int64		need = (int64) p->count + more;
	int64		capacity;

	if (need <= p->capacity)
		return;
	capacity = Max(need, (int64) p->capacity * 2);
	if (capacity > (int64) (MaxAllocSize / sizeof(int64)))
		capacity = need;
	check_array(capacity, 3 * sizeof(int32));
	{
		int64	   *doc = scratch_alloc(sizeof(int64) * capacity);
		int32	   *tf = scratch_alloc(sizeof(int32) * 3 * capacity);

		if (p->count > 0)
		{
			memcpy(doc, p->doc, sizeof(int64) * p->count);
			memcpy(tf, p->tf, sizeof(int32) * 3 * p->count);
		}
		p->doc = doc;
		p->tf = tf;
	}
	if (p->need_positions)
	{
		const uint8 **pos = scratch_alloc(sizeof(uint8 *) * capacity);
		const uint8 **pos_end = scratch_alloc(sizeof(uint8 *) * capacity);

		if (p->count > 0)
		{
			memcpy(pos, p->pos, sizeof(uint8 *) * p->count);
			memcpy(pos_end, p->pos_end, sizeof(uint8 *) * p->count);
		}
		p->pos = pos;
		p->pos_end = pos_end;
	}
	p->capacity = (int) capacity;
}

/* A posting's positions (delta varints between start and end, already counted) into out. */
static int
decode_positions(const Postings *p, const uint8 *cursor, const uint8 *end, int32 *out, int64 max)
{
	int			n = 0;
	int64		at = 0;

	while (cursor < end && n < max)
	{
		uint64		delta;

		if (!read_varint(&cursor, end, &delta) || delta > PG_INT32_MAX || at + (int64) delta > PG_INT32_MAX)
			postings_damaged(p, "a position past int4");
		at += (int64) delta;
		out[n++] = (int32) at;
	}
	return n;
}

static bool
holds_position(const int32 *positions, int count, int64 position)
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

/* Grows *buffer to hold n positions. */
static int32 *
positions_room(int32 *buffer, int64 *capacity, int64 n)
{
	if (n <= *capacity)
		return buffer;
	*capacity = Max(n, *capacity * 2);
	return alloc_array(*capacity, sizeof(int32));
}

void
clause_list(ClauseList *out, Postings **words, int length, const double *weight)
{
	Postings   *first = words[0];
	int		   *cursor;
	int32	   *firsts = NULL;
	int64		capacity = 0;
	int32	  **others;
	int		   *other_counts;
	int64	   *other_capacity;

	Assert(length >= 1);
	out->count = 0;
	out->fmax = 0;
	if (length == 1)
	{
		out->doc = first->doc;
		out->tf = first->tf;
		out->f = NULL;
		out->count = first->count;
		out->fmax = first->fmax;
		return;
	}
	out->doc = alloc_array(first->count, sizeof(int64));
	out->f = alloc_array(first->count, sizeof(double));
	out->tf = NULL;
	cursor = palloc0(sizeof(int) * length);
	others = palloc0(sizeof(int32 *) * length);
	other_counts = palloc0(sizeof(int) * length);
	other_capacity = palloc0(sizeof(int64) * length);
	for (int i = 0; i < first->count; i++)
	{
		int64		doc = first->doc[i];
		bool		all = true;
		int			n_first;
		int64		tfa = first->tf[i * 3];
		int64		tfb = first->tf[i * 3 + 1];
		double		f = 0;

		CHECK_FOR_INTERRUPTS();
		for (int j = 1; j < length && all; j++)
		{
			Postings   *w = words[j];

			while (cursor[j] < w->count && w->doc[cursor[j]] < doc)
				cursor[j]++;
			all = cursor[j] < w->count && w->doc[cursor[j]] == doc;
		}
		if (!all)
			continue;
		{
			int64		n = tfa + tfb + first->tf[i * 3 + 2];

			firsts = positions_room(firsts, &capacity, n);
			n_first = decode_positions(first, first->pos[i], first->pos_end[i], firsts, n);
		}
		for (int j = 1; j < length; j++)
		{
			Postings   *w = words[j];
			int			k = cursor[j];
			int64		n = (int64) w->tf[k * 3] + w->tf[k * 3 + 1] + w->tf[k * 3 + 2];

			others[j] = positions_room(others[j], &other_capacity[j], n);
			other_counts[j] = decode_positions(w, w->pos[k], w->pos_end[k], others[j], n);
		}
		for (int p = 0; p < n_first; p++)
		{
			bool		whole = true;

			for (int j = 1; j < length && whole; j++)
				whole = holds_position(others[j], other_counts[j], (int64) firsts[p] + j);
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
