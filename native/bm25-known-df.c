/*
 * alexandria_bm25: FTS5's own BM25 (same formula, k1 1.2, b 0.75, same IDF clamp, same per-column
 * weights) except that the caller passes each phrase's document frequency instead of FTS5
 * counting it. FTS5's built-in bm25() finds those counts by running every phrase of the MATCH
 * expression as a query of its own, once per statement: for a word in half of a million records
 * that walks half a million doclist entries before a single row is ranked. Alexandria keeps the
 * counts per data version, so a common word costs its walk once, not once per search.
 *
 *   alexandria_bm25(<fts table>, <blob>, <weight of column 0>, ...)
 *
 * The blob holds float64 values in native byte order:
 *   [0] records N the frequencies are counted over (0: this table's row count),
 *   [1] their average length in tokens (0: this table's),
 *   [2] K: the statement keeps only its K best rows, or 0 (every row scored exactly),
 *   [3] what orders those rows: 0 the score alone (ORDER BY score LIMIT K); 1 a sort key first,
 *       larger first and NULL last, then the score (ORDER BY key IS NULL, key DESC, score LIMIT K)
 *       — the key is then the function's last argument,
 *   [4…] one document frequency per phrase, in the order of the phrases in the MATCH expression.
 * An index split into shards passes the figures of the whole index, so a record scores exactly as
 * in one table, whichever shard holds it. A blob whose length does not match the phrase count is
 * an error (the caller built the wrong list), never a different score.
 *
 * With K > 0 a row that cannot reach the K best seen so far in this statement is not scored
 * exactly. By score: its upper bound (its score at length 0) is returned instead, still below
 * every one of the final K best. By key: a row whose key is below the K-th best key gets 0 (it
 * sorts after them whatever its score). Either way the statement's result is unchanged, and the
 * row's length lookup (a %_docsize read, most of the cost of a broad ranking) is skipped.
 *
 * alexandria_bm25_rows() returns how many rows the connection's last ranking statement scored
 * (every row it matched): the page's total, without matching the expression a second time to
 * count. Valid after a statement that returned at least one row.
 *
 * Build: cc -O2 -shared -fPIC -I<dir of sqlite3ext.h> bm25-known-df.c -o bm25-known-df.so -lm
 * (scripts/build-sqlite-extension.mjs does it at `npm ci`; without a C compiler the index
 * falls back to bm25()). -DK1=… -DB=… builds other constants, for measuring them only
 * (docs/decisions/0036-hybrid-paper-search.md: FTS5's stay).
 */
#include <math.h>
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#ifndef K1
#define K1 1.2
#endif
#ifndef B
#define B 0.75
#endif
#define HEADER 4

/* Per connection: rows seen by the last ranking statement. */
typedef struct Connection {
  sqlite3_int64 rows;
} Connection;

/* One of the K best rows so far: its sort key (a copy; 0 for NULL or when ordering by score) and score. */
typedef struct Best {
  sqlite3_value *key;
  double score;
} Best;

/* What one statement computes once: IDFs, average length, and the K best rows so far. */
typedef struct Ranking {
  int phrases;
  double average;
  double *idf;
  double *frequencies;
  int keep;     /* K (0: every row scored exactly) */
  int byKey;    /* ordered by a key first (the last argument) */
  int kept;     /* rows in the heap */
  Best *heap;   /* min-heap: the root is the worst of the K best */
  sqlite3_int64 lastRowid;
  int hasLast;
  double lastResult;
} Ranking;

static void ranking_free(void *pointer) {
  Ranking *ranking = (Ranking *)pointer;
  for (int i = 0; i < ranking->kept; i++) sqlite3_value_free(ranking->heap[i].key);
  sqlite3_free(ranking);
}

/* SQLite's order of two non-NULL sort keys (numbers by value before text, text by bytes). */
static int key_compare(sqlite3_value *a, sqlite3_value *b) {
  int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
  int na = ta == SQLITE_INTEGER || ta == SQLITE_FLOAT, nb = tb == SQLITE_INTEGER || tb == SQLITE_FLOAT;
  if (na && nb) {
    double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (na != nb) return na ? -1 : 1;
  int la = sqlite3_value_bytes(a), lb = sqlite3_value_bytes(b);
  const void *pa = ta == SQLITE_BLOB ? sqlite3_value_blob(a) : (const void *)sqlite3_value_text(a);
  const void *pb = tb == SQLITE_BLOB ? sqlite3_value_blob(b) : (const void *)sqlite3_value_text(b);
  int c = memcmp(pa, pb, (size_t)(la < lb ? la : lb));
  return c != 0 ? c : la - lb;
}

/* Compares keys as the ORDER BY ranks them: > 0 when `a` comes first (larger; NULL last). */
static int key_rank(sqlite3_value *a, sqlite3_value *b) {
  if (a == 0 || b == 0) return (a != 0) - (b != 0);
  return key_compare(a, b);
}

/* > 0 when row `a` ranks before row `b` (key first when ordering by key, then score). */
static int best_rank(const Best *a, const Best *b, int byKey) {
  if (byKey) {
    int c = key_rank(a->key, b->key);
    if (c != 0) return c;
  }
  return a->score > b->score ? 1 : a->score < b->score ? -1 : 0;
}

/* Reads float64 number `index` of the blob (it need not be aligned). */
static double blob_value(const unsigned char *blob, int index) {
  double value;
  memcpy(&value, blob + (size_t)index * sizeof(double), sizeof(double));
  return value;
}

static Ranking *ranking_new(const Fts5ExtensionApi *api, Fts5Context *fts, const unsigned char *blob,
                            int phrases, int *rc) {
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  double givenRows = blob_value(blob, 0);
  double givenAverage = blob_value(blob, 1);
  double keep = blob_value(blob, 2);
  if (givenRows <= 0 || givenAverage <= 0) {
    *rc = api->xRowCount(fts, &rows);
    if (*rc == SQLITE_OK) *rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (*rc != SQLITE_OK) return 0;
  }
  int heapSize = keep > 0 && keep < 1e6 ? (int)keep : 0;
  /* One allocation: the struct, then heap[heapSize], idf[phrases], frequencies[phrases]. */
  size_t size = sizeof(Ranking) + sizeof(Best) * (size_t)heapSize + sizeof(double) * (size_t)phrases * 2;
  Ranking *ranking = (Ranking *)sqlite3_malloc64(size);
  if (ranking == 0) {
    *rc = SQLITE_NOMEM;
    return 0;
  }
  memset(ranking, 0, size);
  ranking->phrases = phrases;
  ranking->heap = (Best *)(ranking + 1);
  ranking->idf = (double *)(ranking->heap + heapSize);
  ranking->frequencies = ranking->idf + phrases;
  ranking->keep = heapSize;
  ranking->byKey = blob_value(blob, 3) == 1.0;
  double n = givenRows > 0 ? givenRows : (double)rows;
  ranking->average = givenAverage > 0 ? givenAverage : rows > 0 ? (double)tokens / (double)rows : 1.0;
  for (int i = 0; i < phrases; i++) {
    double hits = blob_value(blob, HEADER + i);
    double idf = log((n - hits + 0.5) / (hits + 0.5));
    ranking->idf[i] = idf <= 0.0 ? 1e-6 : idf;
  }
  *rc = SQLITE_OK;
  return ranking;
}

/* Offers a scored row to the K best (the heap keeps the worst of them at its root). `key` is the
 * row's sort key, copied when kept. Returns SQLITE_NOMEM when the copy fails. */
static int heap_offer(Ranking *ranking, sqlite3_value *key, double score) {
  Best *heap = ranking->heap;
  Best row = {0, score};
  if (ranking->kept == ranking->keep) {
    row.key = key;
    if (best_rank(&row, &heap[0], ranking->byKey) <= 0) return SQLITE_OK;
  }
  row.key = 0;
  if (ranking->byKey && key != 0) {
    row.key = sqlite3_value_dup(key);
    if (row.key == 0) return SQLITE_NOMEM;
  }
  int at;
  if (ranking->kept < ranking->keep) {
    at = ranking->kept++;
    while (at > 0 && best_rank(&heap[(at - 1) / 2], &row, ranking->byKey) > 0) {
      heap[at] = heap[(at - 1) / 2];
      at = (at - 1) / 2;
    }
    heap[at] = row;
    return SQLITE_OK;
  }
  sqlite3_value_free(heap[0].key);
  at = 0;
  for (;;) {
    int child = 2 * at + 1;
    if (child >= ranking->kept) break;
    if (child + 1 < ranking->kept && best_rank(&heap[child + 1], &heap[child], ranking->byKey) < 0) child++;
    if (best_rank(&heap[child], &row, ranking->byKey) >= 0) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = row;
  return SQLITE_OK;
}

static double bm25_row(const Fts5ExtensionApi *api, Fts5Context *fts, Ranking *ranking, int argc,
                       sqlite3_value **argv, int *rcOut);

static void bm25_known_df(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                          int argc, sqlite3_value **argv) {
  if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
    sqlite3_result_error(context, "alexandria_bm25: the first argument must be a blob of document frequencies", -1);
    return;
  }
  int phrases = api->xPhraseCount(fts);
  const unsigned char *blob = (const unsigned char *)sqlite3_value_blob(argv[0]);
  if (sqlite3_value_bytes(argv[0]) != (phrases + HEADER) * (int)sizeof(double)) {
    sqlite3_result_error(context, "alexandria_bm25: one document frequency per phrase expected", -1);
    return;
  }
  int rc = SQLITE_OK;
  Connection *connection = (Connection *)api->xUserData(fts);
  Ranking *ranking = (Ranking *)api->xGetAuxdata(fts, 0);
  if (ranking == 0) {
    connection->rows = 0; /* a new statement: its first row */
    ranking = ranking_new(api, fts, blob, phrases, &rc);
    if (ranking == 0) {
      sqlite3_result_error_code(context, rc);
      return;
    }
    rc = api->xSetAuxdata(fts, ranking, ranking_free);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(context, rc);
      return;
    }
  }

  /* The same row again (an expression used twice): the same answer, offered to the heap once. */
  sqlite3_int64 rowid = api->xRowid(fts);
  if (ranking->hasLast && ranking->lastRowid == rowid) {
    sqlite3_result_double(context, ranking->lastResult);
    return;
  }
  double result = bm25_row(api, fts, ranking, argc, argv, &rc);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(context, rc);
    return;
  }
  connection->rows++;
  ranking->hasLast = 1;
  ranking->lastRowid = rowid;
  ranking->lastResult = result;
  sqlite3_result_double(context, result);
}

/* The value of one row: minus its score, or a stand-in for a row that cannot reach the K best. */
static double bm25_row(const Fts5ExtensionApi *api, Fts5Context *fts, Ranking *ranking, int argc,
                       sqlite3_value **argv, int *rcOut) {
  int phrases = ranking->phrases;
  int weights = ranking->byKey ? argc - 2 : argc - 1;
  sqlite3_value *key = 0;
  if (ranking->byKey && sqlite3_value_type(argv[argc - 1]) != SQLITE_NULL) key = argv[argc - 1];
  int rc = SQLITE_OK;
  *rcOut = SQLITE_OK;
  if (ranking->byKey && ranking->keep > 0 && ranking->kept == ranking->keep &&
      key_rank(key, ranking->heap[0].key) < 0) {
    return 0.0; /* below the K-th best key: out of the result whatever its score */
  }

  /* Weighted phrase frequency in this row: each instance counts its column's weight. Phrase by
   * phrase (xPhraseFirst/xPhraseNext) rather than bm25()'s xInst, which first merges the instances
   * of all phrases into one sorted list; the sums are the same. */
  double *frequencies = ranking->frequencies;
  for (int phrase = 0; rc == SQLITE_OK && phrase < phrases; phrase++) {
    Fts5PhraseIter iterator;
    int column = 0, offset = 0;
    double sum = 0.0;
    rc = api->xPhraseFirst(fts, phrase, &iterator, &column, &offset);
    for (; rc == SQLITE_OK && column >= 0; api->xPhraseNext(fts, &iterator, &column, &offset)) {
      sum += (weights > column) ? sqlite3_value_double(argv[1 + column]) : 1.0;
    }
    frequencies[phrase] = sum;
  }
  if (rc != SQLITE_OK) {
    *rcOut = rc;
    return 0.0;
  }

  if (!ranking->byKey && ranking->keep > 0 && ranking->kept == ranking->keep) {
    /* At length 0 the norm is smallest, so this bounds the row's score from above. */
    double bound = 0.0;
    double norm = K1 * (1.0 - B);
    for (int i = 0; i < phrases; i++) {
      double f = frequencies[i];
      if (f > 0) bound += ranking->idf[i] * (f * (K1 + 1.0)) / (f + norm);
    }
    if (bound < ranking->heap[0].score) return -1.0 * bound;
  }

  int length = 0;
  rc = api->xColumnSize(fts, -1, &length);
  if (rc != SQLITE_OK) {
    *rcOut = rc;
    return 0.0;
  }
  double score = 0.0;
  double norm = K1 * (1.0 - B + B * (double)length / ranking->average);
  for (int i = 0; i < phrases; i++) {
    double f = frequencies[i];
    score += ranking->idf[i] * (f * (K1 + 1.0)) / (f + norm);
  }
  if (ranking->keep > 0) *rcOut = heap_offer(ranking, key, score);
  return -1.0 * score;
}

/* The fts5_api of this connection (the documented `SELECT fts5(?)` pointer handshake). */
static fts5_api *fts5_api_of(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *statement = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
  }
  sqlite3_finalize(statement);
  return api;
}

static void ranked_rows(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  Connection *connection = (Connection *)sqlite3_user_data(context);
  sqlite3_result_int64(context, connection->rows);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *routines) {
  SQLITE_EXTENSION_INIT2(routines);
  fts5_api *api = fts5_api_of(db);
  if (api == 0 || api->iVersion < 2) {
    *error = sqlite3_mprintf("alexandria_bm25: this SQLite has no FTS5");
    return SQLITE_ERROR;
  }
  Connection *connection = (Connection *)sqlite3_malloc(sizeof(Connection));
  if (connection == 0) return SQLITE_NOMEM;
  connection->rows = 0;
  int rc = sqlite3_create_function(db, "alexandria_bm25_rows", 0, SQLITE_UTF8, connection, ranked_rows, 0, 0);
  if (rc != SQLITE_OK) {
    sqlite3_free(connection);
    return rc;
  }
  /* The FTS5 function owns the state: FTS5 frees it when the connection closes. */
  return api->xCreateFunction(api, "alexandria_bm25", connection, bm25_known_df, sqlite3_free);
}
