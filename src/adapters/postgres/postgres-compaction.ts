import type pg from 'pg';

/**
 * Tombstones compacted (decision 0067): the postings of document numbers no longer live (a record
 * deleted, or its text changed) removed by the extension's `alexandria_compact` (alexandria_pg 1.4),
 * a range of word ids per statement, so that each transaction locks only its own words' rows for
 * as long as it takes to rewrite them.
 */

/** Word ids compacted per statement (one transaction each). */
const wordsPerStatement = 5000;

/** What a compaction did: words visited, rows rewritten, postings removed and kept. */
export interface CompactionResult {
  words: number;
  rowsRewritten: number;
  removed: number;
  kept: number;
}

const signature = 'alexandria_compact(regnamespace, int8, int8)';

/**
 * Compacts the index in `schema`; null when the database's extension is older than 1.4 or the
 * index's role may not execute the function (and may not grant it to itself).
 */
export async function compactTombstones(pool: pg.Pool, schema: string): Promise<CompactionResult | null> {
  const extension = (
    await pool.query<{ schema: string; version: string }>(
      `SELECT extnamespace::regnamespace::text AS schema, extversion AS version FROM pg_extension WHERE extname = 'alexandria_pg'`,
    )
  ).rows[0];
  if (!extension || !atLeast(extension.version, [1, 4])) return null;
  const qualified = `${extension.schema}.${signature}`;
  const allowed = async () =>
    (
      await pool.query<{ allowed: boolean | null }>(
        `SELECT has_function_privilege(to_regprocedure($1), 'EXECUTE') AS allowed`,
        [qualified],
      )
    ).rows[0]?.allowed === true;
  if (!(await allowed())) {
    await pool.query(`GRANT EXECUTE ON FUNCTION ${qualified} TO CURRENT_USER`).catch(() => undefined);
    if (!(await allowed())) return null;
  }
  const range = (
    await pool.query<{ low: string | null; high: string | null }>(
      `SELECT min(id)::text AS low, max(id)::text AS high FROM ${quoted(schema)}.paper_words`,
    )
  ).rows[0];
  const result: CompactionResult = { words: 0, rowsRewritten: 0, removed: 0, kept: 0 };
  if (!range?.low || !range.high) return result;
  // One connection: it keeps the index's live documents between statements (for one data version).
  const client = await pool.connect();
  try {
    for (let first = BigInt(range.low); first <= BigInt(range.high); first += BigInt(wordsPerStatement)) {
      const last = first + BigInt(wordsPerStatement - 1);
      const row = (
        await client.query<{
          words: string;
          rows_rewritten: string;
          postings_removed: string;
          postings_kept: string;
        }>(
          `SELECT * FROM ${extension.schema}.alexandria_compact((SELECT oid FROM pg_namespace WHERE nspname = $1)::regnamespace, $2, $3)`,
          [schema, first.toString(), last.toString()],
        )
      ).rows[0];
      result.words += Number(row?.words ?? 0);
      result.rowsRewritten += Number(row?.rows_rewritten ?? 0);
      result.removed += Number(row?.postings_removed ?? 0);
      result.kept += Number(row?.postings_kept ?? 0);
    }
  } finally {
    client.release();
  }
  return result;
}

function atLeast(version: string, wanted: number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let at = 0; at < wanted.length; at += 1) {
    const difference = (parts[at] ?? 0) - (wanted[at] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
