/*
 * alexandria_pg, inverted layout: the byte-string helpers of the index's writes (decision 0039:
 * both decode their input defensively and refuse what does not decode).
 *
 *   alexandria_docs_append(head bytea, tail bytea) → bytea: a docs list (alexandria_inverted.c
 *   describes the format) followed by another whose documents all come after it, the tail's first
 *   delta rebased on the head's last document. NULL or empty on either side: the other list.
 *
 *   alexandria_slices(blob bytea, lengths int4[]) → bytea[]: the blob cut into consecutive pieces
 *   of these lengths (−1: NULL, no bytes); the lengths must use the whole blob. A batch's thousands
 *   of small byte strings travel as one binary parameter instead of a text array of hex strings
 *   (parsing that cost more than the write).
 */
#include "alexandria_pg.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

static void
undecodable(const char *which, const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("alexandria_docs_append: the %s list does not decode (%s)", which, what)));
}

/*
 * Walks a docs list (its first delta from 0) and returns its last document (−1: empty), refusing
 * what does not decode, does not ascend or passes MAX_DOC.
 */
static int64
walk_docs(const char *which, const uint8 *cursor, const uint8 *end)
{
	int64		postings = 0;
	int64		last = -1;

	while (cursor < end)
	{
		uint64		delta;
		int32		tf[3];

		if ((++postings & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!read_varint(&cursor, end, &delta) || delta > (uint64) MAX_DOC)
			undecodable(which, "a document number that does not decode or is too large");
		if (postings > 1 && delta == 0)
			undecodable(which, "documents out of order");
		last = (postings == 1 ? 0 : last) + (int64) delta;
		if (last > MAX_DOC)
			undecodable(which, "a document number past the largest");
		if (!read_tf(&cursor, end, tf))
			undecodable(which, "term frequencies cut short or too large");
	}
	return last;
}

PG_FUNCTION_INFO_V1(alexandria_docs_append);

Datum
alexandria_docs_append(PG_FUNCTION_ARGS)
{
	bytea	   *head;
	bytea	   *tail;
	const uint8 *cursor;
	const uint8 *end;
	int64		last;
	uint64		first = 0;
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
	head_bytes = VARSIZE_ANY_EXHDR(head);
	if (VARSIZE_ANY_EXHDR(tail) == 0)
		PG_RETURN_BYTEA_P(head);
	cursor = (const uint8 *) VARDATA_ANY(tail);
	end = cursor + VARSIZE_ANY_EXHDR(tail);
	(void) walk_docs("second", cursor, end);
	if (head_bytes == 0)
		PG_RETURN_BYTEA_P(tail);
	last = walk_docs("first", (const uint8 *) VARDATA_ANY(head), (const uint8 *) VARDATA_ANY(head) + head_bytes);
	/* The tail decodes (walked above): its first varint is a document number ≤ MAX_DOC. */
	if (!read_varint(&cursor, end, &first))
		undecodable("second", "no first document");
	if ((int64) first <= last)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("alexandria_docs_append: document %lld does not follow %lld",
							   (long long) first, (long long) last)));
	rest = cursor;
	n = write_varint(varint, first - (uint64) last);
	rest_bytes = end - rest;
	if (head_bytes + n + rest_bytes > MaxAllocSize - VARHDRSZ)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("alexandria_docs_append: the joined list would exceed 1 GB")));
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
	int32	   *lengths = argument_ints("alexandria_slices", "lengths", PG_GETARG_ARRAYTYPE_P(1), &n);
	const char *cursor = VARDATA_ANY(blob);
	const char *end = cursor + VARSIZE_ANY_EXHDR(blob);
	Datum	   *pieces = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1];
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
	{
		bytea	   *piece;

		CHECK_FOR_INTERRUPTS();
		if (lengths[i] < -1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("alexandria_slices: length %d of piece %d is below -1", lengths[i], i + 1)));
		nulls[i] = lengths[i] == -1;
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
	if (cursor != end)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("alexandria_slices: the lengths leave %lld bytes of the blob unused",
							   (long long) (end - cursor))));
	dims[0] = n;
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BYTEAOID));
	PG_RETURN_ARRAYTYPE_P(construct_md_array(pieces, nulls, 1, dims, lbs, BYTEAOID, -1, false, TYPALIGN_INT));
}
