/*
 * alexandria_pg: what the extension's C files share (decision 0039: every argument and every
 * stored byte string is validated before it is used; a bad one ends the statement with an
 * ereport, never with a read or write outside the bytes given).
 */
#ifndef ALEXANDRIA_PG_H
#define ALEXANDRIA_PG_H

#include "postgres.h"

#include "utils/array.h"

/* The most elements an array argument may hold (a query's words, clauses, phrases, lengths). */
#define MAX_ARGUMENT_ELEMENTS 65536

/*
 * The largest document number: metadata rows hold 1024 documents each and are numbered by int4,
 * and a block's number times 1024 plus a slot must stay well inside int64.
 */
#define DOCS_PER_BLOCK 1024
#define MAX_DOC (((int64) PG_INT32_MAX) * DOCS_PER_BLOCK - 1)

/*
 * Reads one varint (7 bits a byte, low first) at *cursor, before end. False when the bytes end
 * inside it or it runs past 10 bytes / 64 bits; *cursor then points past what was read.
 */
static inline bool
read_varint(const uint8 **cursor, const uint8 *end, uint64 *value)
{
	uint64		result = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8		byte;

		if (*cursor >= end)
			return false;
		byte = *(*cursor)++;
		if (shift == 63 && byte > 1)
			return false;
		result |= (uint64) (byte & 0x7f) << shift;
		if ((byte & 0x80) == 0)
		{
			*value = result;
			return true;
		}
	}
	return false;
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

/*
 * Reads a posting's term frequencies in the title, abstract and other fields: one byte A:2 B:3 C:3
 * bits, or a 0 byte and three varints. False when the bytes end inside them or one exceeds int4.
 */
static inline bool
read_tf(const uint8 **cursor, const uint8 *end, int32 *tf)
{
	uint8		byte;

	if (*cursor >= end)
		return false;
	byte = *(*cursor)++;
	if (byte != 0)
	{
		tf[0] = byte >> 6;
		tf[1] = (byte >> 3) & 7;
		tf[2] = byte & 7;
		return true;
	}
	for (int i = 0; i < 3; i++)
	{
		uint64		value;

		if (!read_varint(cursor, end, &value) || value > PG_INT32_MAX)
			return false;
		tf[i] = (int32) value;
	}
	return true;
}

/* Array arguments as C arrays: one dimension (or none: empty), no NULL element, at most MAX_ARGUMENT_ELEMENTS. */
extern int32 *argument_ints(const char *function, const char *name, ArrayType *array, int *n);
extern int64 *argument_bigints(const char *function, const char *name, ArrayType *array, int *n);
extern double *argument_floats(const char *function, const char *name, ArrayType *array, int *n);
extern Datum *argument_texts(const char *function, const char *name, ArrayType *array, int *n);

/* Ends the statement: a finite number was expected (NaN and infinities would poison the ranking's order). */
extern void require_finite(const char *function, const char *name, double value);

#endif
