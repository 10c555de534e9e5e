/*
 * alexandria_pg: the search's scratch memory (decision 0039). A search of common words needs tens
 * of MB of arrays (decoded postings, matches, the heap) for a few milliseconds. Allocated with
 * palloc and freed at the end, glibc gives that memory back to the kernel and the next search
 * faults it in again page by page, which cost more than the decoding (decision 0024: 10 → 3 ms
 * for one common word at 100k records). Until 1.3 the extension changed glibc's thresholds for
 * the whole backend with mallopt; instead, the search now takes its arrays from one buffer of its
 * own, kept between searches: a bump allocator reset at each search and at each window of
 * documents (decision 0067: a window's arrays are bounded, whatever the words' frequency), grown
 * after a search to what its largest window needed, never kept above SCRATCH_KEEP_BYTES. What does
 * not fit is palloc'd in the window's memory, freed with the window.
 */
#include "alexandria_inverted.h"

#include "utils/memutils.h"

/* The most scratch memory a backend keeps between searches. */
#define SCRATCH_KEEP_BYTES ((Size) 64 * 1024 * 1024)
#define SCRATCH_ALIGN 16

static struct
{
	MemoryContext context;		/* holds `base`; child of TopMemoryContext */
	char	   *base;
	Size		size;
	Size		used;
	Size		wanted;			/* what this window asked for, fitting or not */
	Size		peak;			/* the most a window of this search asked for */
	MemoryContext window;		/* where what does not fit is palloc'd (NULL: the current context) */
}			scratch;

void
scratch_begin(void)
{
	scratch.used = 0;
	scratch.wanted = 0;
	scratch.peak = 0;
	scratch.window = NULL;
}

Size
scratch_used(void)
{
	return scratch.used;
}

void
scratch_window(MemoryContext window)
{
	scratch.peak = Max(scratch.peak, scratch.wanted);
	scratch.used = 0;
	scratch.wanted = 0;
	scratch.window = window;
}

void *
scratch_alloc(Size size)
{
	Size		rounded = TYPEALIGN(SCRATCH_ALIGN, Max(size, 1));

	scratch.wanted += rounded;
	if (scratch.base != NULL && rounded <= scratch.size - scratch.used)
	{
		void	   *at = scratch.base + scratch.used;

		scratch.used += rounded;
		return at;
	}
	return scratch.window ? MemoryContextAlloc(scratch.window, rounded) : palloc(rounded);
}

void
scratch_end(void)
{
	Size		want = Min(TYPEALIGN(1024 * 1024, Max(scratch.peak, scratch.wanted)), SCRATCH_KEEP_BYTES);

	scratch.window = NULL;
	if (want <= scratch.size)
		return;
	if (scratch.context == NULL)
		scratch.context = AllocSetContextCreate(TopMemoryContext, "alexandria_pg search scratch",
												ALLOCSET_SMALL_SIZES);
	if (scratch.base != NULL)
		pfree(scratch.base);
	scratch.base = NULL;
	scratch.size = 0;
	scratch.base = MemoryContextAllocExtended(scratch.context, want, MCXT_ALLOC_NO_OOM);
	if (scratch.base != NULL)
		scratch.size = want;
	scratch.used = 0;
}
