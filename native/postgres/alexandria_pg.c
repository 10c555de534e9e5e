/*
 * alexandria_pg: the BM25 of Alexandria's SQLite index (FTS5's formula: k1 1.2, b 0.75, FTS5's
 * IDF with its clamp, per-field weights, phrases counted by occurrence) for the PostgreSQL index,
 * whose documents are tsvectors written by Alexandria itself (its own tokeniser and stemmer, the
 * fields told apart by the tsvector weight labels A–D and separated by position gaps).
 *
 *   alexandria_bm25(doc tsvector, phrases text[], idf float8[], weights float8[],
 *                   doclen int4, avgdl float8) → float8
 *
 * phrases: one element per scored phrase, its lexemes separated by single spaces (a one-word
 * phrase is one lexeme), in the order the SQLite adapter's MATCH expression lists them (a clause
 * listed twice counts twice: the keyword boost). idf: one IDF per phrase, computed by the caller
 * from whole-index document frequencies. weights: the weight of labels D, C, B, A (in the order
 * of the label codes 0–3). doclen: the document's length in tokens, all fields (and FTS5's three
 * facet tokens) included; avgdl: the index's average of it.
 *
 * A phrase's frequency in a document is the sum, over its occurrences, of the weight of the field
 * it occurs in; an occurrence of a several-word phrase is a position of its first lexeme followed
 * by the others at the next positions. Score = Σ idf · f · (k1 + 1) / (f + k1 · (1 − b + b · doclen
 * / avgdl)) over phrases with f > 0, higher is better (FTS5 returns its negation).
 *
 * Build: `make` with PGXS (scripts/build-pg-extension.mjs, run by `alexandria db install-extension`).
 */
#include "alexandria_pg.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "tsearch/ts_type.h"
#include "tsearch/ts_utils.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_MODULE_MAGIC;

#define K1 1.2
#define B 0.75
#define MAX_LEXEMES 64
#define MAX_WEIGHT 1e6
#define FUNCTION "alexandria_bm25"

typedef struct Phrase
{
	int			count;
	char	   *lexeme[MAX_LEXEMES];
	int			length[MAX_LEXEMES];
	double		idf;
} Phrase;

typedef struct Ranking
{
	int			phrases;
	Phrase	   *phrase;
	double		weight[4];
} Ranking;

/*
 * Parses the phrase list, IDFs and weights (decision 0039: one dimension, no NULL element, finite
 * weights and IDFs in 0..MAX_WEIGHT). Kept for the statement when those arguments are constants or
 * parameters (the index's ranking query); parsed again on every call when they vary by row.
 */
static Ranking *
ranking_of(FunctionCallInfo fcinfo)
{
	Ranking    *ranking = (Ranking *) fcinfo->flinfo->fn_extra;
	bool		stable = get_fn_expr_arg_stable(fcinfo->flinfo, 1) && get_fn_expr_arg_stable(fcinfo->flinfo, 2) &&
		get_fn_expr_arg_stable(fcinfo->flinfo, 3);
	MemoryContext old;
	Datum	   *texts;
	double	   *idfs;
	double	   *ws;
	int			n;
	int			n_idf;
	int			n_w;

	if (ranking != NULL && stable)
		return ranking;
	old = MemoryContextSwitchTo(stable ? fcinfo->flinfo->fn_mcxt : CurrentMemoryContext);
	texts = argument_texts(FUNCTION, "phrases", PG_GETARG_ARRAYTYPE_P(1), &n);
	idfs = argument_floats(FUNCTION, "idf", PG_GETARG_ARRAYTYPE_P(2), &n_idf);
	ws = argument_floats(FUNCTION, "weights", PG_GETARG_ARRAYTYPE_P(3), &n_w);
	if (n != n_idf)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg(FUNCTION ": %d phrases but %d IDFs", n, n_idf)));
	if (n_w != 4)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg(FUNCTION ": 4 label weights expected, got %d", n_w)));
	for (int i = 0; i < n + 4; i++)
	{
		double		value = i < n ? idfs[i] : ws[i - n];

		if (value < 0 || value > MAX_WEIGHT)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg(FUNCTION ": %s must lie in 0..%g, got %g", i < n ? "an IDF" : "a label weight",
								   MAX_WEIGHT, value)));
	}
	ranking = palloc0(sizeof(Ranking));
	ranking->phrases = n;
	ranking->phrase = palloc0(sizeof(Phrase) * (n > 0 ? n : 1));
	for (int i = 0; i < 4; i++)
		ranking->weight[i] = ws[i];
	for (int i = 0; i < n; i++)
	{
		Phrase	   *phrase = &ranking->phrase[i];
		char	   *words = text_to_cstring(DatumGetTextPP(texts[i]));
		char	   *cursor = words;

		phrase->idf = idfs[i];
		/* A phrase of more than MAX_LEXEMES words is scored on its first MAX_LEXEMES. */
		while (*cursor != '\0' && phrase->count < MAX_LEXEMES)
		{
			char	   *end = strchr(cursor, ' ');
			int			length = end ? (int) (end - cursor) : (int) strlen(cursor);

			if (length > 0)
			{
				phrase->lexeme[phrase->count] = cursor;
				phrase->length[phrase->count] = length;
				phrase->count++;
			}
			if (!end)
				break;
			cursor = end + 1;
		}
	}
	if (stable)
		fcinfo->flinfo->fn_extra = ranking;
	MemoryContextSwitchTo(old);
	return ranking;
}

/* The entry of `lexeme` in `doc`, or NULL (entries are sorted by tsCompareString). */
static WordEntry *
find_entry(TSVector doc, char *lexeme, int length)
{
	WordEntry  *entries = ARRPTR(doc);
	char	   *strings = STRPTR(doc);
	int			low = 0;
	int			high = doc->size - 1;

	while (low <= high)
	{
		int			mid = low + (high - low) / 2;
		int			cmp = tsCompareString(lexeme, length, strings + entries[mid].pos, entries[mid].len, false);

		if (cmp == 0)
			return &entries[mid];
		if (cmp < 0)
			high = mid - 1;
		else
			low = mid + 1;
	}
	return NULL;
}

/* Whether the sorted positions hold `position`. */
static bool
has_position(WordEntryPos *positions, int count, int position)
{
	int			low = 0;
	int			high = count - 1;

	while (low <= high)
	{
		int			mid = low + (high - low) / 2;
		int			at = WEP_GETPOS(positions[mid]);

		if (at == position)
			return true;
		if (at < position)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return false;
}

/* The phrase's weighted frequency in `doc`. */
static double
frequency(TSVector doc, Phrase *phrase, const double *weight)
{
	WordEntry  *entries[MAX_LEXEMES];
	WordEntryPos *first;
	int			firsts;
	double		f = 0;

	if (phrase->count == 0)
		return 0;
	for (int j = 0; j < phrase->count; j++)
	{
		entries[j] = find_entry(doc, phrase->lexeme[j], phrase->length[j]);
		if (entries[j] == NULL || !entries[j]->haspos)
			return 0;
	}
	first = POSDATAPTR(doc, entries[0]);
	firsts = POSDATALEN(doc, entries[0]);
	for (int p = 0; p < firsts; p++)
	{
		int			at = WEP_GETPOS(first[p]);
		bool		whole = true;

		for (int j = 1; j < phrase->count && whole; j++)
			whole = has_position(POSDATAPTR(doc, entries[j]), POSDATALEN(doc, entries[j]), at + j);
		if (whole)
			f += weight[WEP_GETWEIGHT(first[p])];
	}
	return f;
}

PG_FUNCTION_INFO_V1(alexandria_bm25);

Datum
alexandria_bm25(PG_FUNCTION_ARGS)
{
	TSVector	doc;
	Ranking    *ranking;
	int32		doclen;
	double		avgdl;
	double		norm;
	double		score = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) ||
		PG_ARGISNULL(4) || PG_ARGISNULL(5))
		PG_RETURN_NULL();
	ranking = ranking_of(fcinfo);
	doc = PG_GETARG_TSVECTOR(0);
	/* A length below 0 counts as 0 and avgdl ≤ 0 as 1: the norm stays positive, the score finite. */
	doclen = Max(PG_GETARG_INT32(4), 0);
	avgdl = PG_GETARG_FLOAT8(5);
	require_finite(FUNCTION, "avgdl", avgdl);
	if (avgdl <= 0)
		avgdl = 1;
	norm = K1 * (1 - B + B * (double) doclen / avgdl);
	for (int i = 0; i < ranking->phrases; i++)
	{
		Phrase	   *phrase = &ranking->phrase[i];
		double		f = frequency(doc, phrase, ranking->weight);

		if (f > 0)
			score += phrase->idf * (f * (K1 + 1.0)) / (f + norm);
	}
	PG_FREE_IF_COPY(doc, 0);
	PG_RETURN_FLOAT8(score);
}
