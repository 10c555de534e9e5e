/*
 * alexandria_pg: array arguments checked and copied into C arrays (decision 0039). An array of
 * more than one dimension, with a NULL element, or longer than MAX_ARGUMENT_ELEMENTS ends the
 * statement with an error naming the function and the argument.
 */
#include "alexandria_pg.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"

static Datum *
elements(const char *function, const char *name, ArrayType *array, Oid type, int width, bool byval,
		 char align, int *n)
{
	Datum	   *values;
	bool	   *nulls;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s: %s must have one dimension, not %d", function, name, ARR_NDIM(array))));
	if (ARR_ELEMTYPE(array) != type)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
						errmsg("%s: %s has elements of the wrong type", function, name)));
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > MAX_ARGUMENT_ELEMENTS)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("%s: %s has more than %d elements", function, name, MAX_ARGUMENT_ELEMENTS)));
	deconstruct_array(array, type, width, byval, align, &values, &nulls, n);
	for (int i = 0; i < *n; i++)
		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("%s: element %d of %s is null", function, i + 1, name)));
	return values;
}

int32 *
argument_ints(const char *function, const char *name, ArrayType *array, int *n)
{
	Datum	   *values = elements(function, name, array, INT4OID, 4, true, TYPALIGN_INT, n);
	int32	   *out = palloc(sizeof(int32) * Max(*n, 1));

	for (int i = 0; i < *n; i++)
		out[i] = DatumGetInt32(values[i]);
	return out;
}

int64 *
argument_bigints(const char *function, const char *name, ArrayType *array, int *n)
{
	Datum	   *values = elements(function, name, array, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, n);
	int64	   *out = palloc(sizeof(int64) * Max(*n, 1));

	for (int i = 0; i < *n; i++)
		out[i] = DatumGetInt64(values[i]);
	return out;
}

double *
argument_floats(const char *function, const char *name, ArrayType *array, int *n)
{
	Datum	   *values = elements(function, name, array, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, n);
	double	   *out = palloc(sizeof(double) * Max(*n, 1));

	for (int i = 0; i < *n; i++)
	{
		out[i] = DatumGetFloat8(values[i]);
		require_finite(function, name, out[i]);
	}
	return out;
}

Datum *
argument_texts(const char *function, const char *name, ArrayType *array, int *n)
{
	return elements(function, name, array, TEXTOID, -1, false, TYPALIGN_INT, n);
}

void
require_finite(const char *function, const char *name, double value)
{
	if (!isfinite(value))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s: %s must be finite, got %g", function, name, value)));
}
