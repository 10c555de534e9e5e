import type pg from 'pg';

/**
 * The `alexandria_pg` extension as the paper index needs it (decisions 0024, 0039): created on
 * first use, updated when the server has a newer version, and callable by the index's role.
 * Since 1.3 no function is executable by PUBLIC: the role that creates an index grants itself
 * EXECUTE when it may (the extension's owner, a superuser, or a role granted EXECUTE with the
 * grant option); any other role needs an administrator's GRANT, which the error message spells out.
 */

/** The version whose functions the adapter calls (the search that takes the index's schema). */
export const requiredExtensionVersion = '1.3';

/** The functions the index calls, with their argument types. */
const indexFunctions = [
  'alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[], float8[], float8, int4, bool, int4, int4, int4, int4, int4)',
  'alexandria_docs_append(bytea, bytea)',
  'alexandria_slices(bytea, int4[])',
] as const;

/** Functions of later versions the index calls when present (alexandria_pg 1.4: compaction, memory). */
const optionalFunctions = [
  'alexandria_compact(regnamespace, int8, int8)',
  'alexandria_memory(regnamespace)',
] as const;

/** Runs `sql` in a savepoint: on failure, its message, and the transaction still usable. */
async function attempt(client: pg.PoolClient, sql: string): Promise<{ ok: boolean; error?: string }> {
  await client.query('SAVEPOINT alexandria_pg_step');
  try {
    await client.query(sql);
    await client.query('RELEASE SAVEPOINT alexandria_pg_step');
    return { ok: true };
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT alexandria_pg_step');
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether version `a` (e.g. `1.2`) is older than `b`. */
function older(a: string, b: string): boolean {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  for (let at = 0; at < Math.max(x?.length ?? 0, y?.length ?? 0); at += 1) {
    const difference = (x?.[at] ?? 0) - (y?.[at] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

/**
 * Creates the extension, or updates it when the server offers a newer version (that needs the
 * extension's owner; a role that may not keeps the installed version). Returns the version now
 * installed in this database and the schema holding its functions.
 */
export async function ensureExtension(client: pg.PoolClient): Promise<InstalledExtension> {
  const installed = async () =>
    (
      await client.query<{ version: string; schema: string; available: string | null }>(
        `SELECT e.extversion AS version, e.extnamespace::regnamespace::text AS schema, a.default_version AS available
         FROM pg_extension e LEFT JOIN pg_available_extensions a ON a.name = e.extname
         WHERE e.extname = 'alexandria_pg'`,
      )
    ).rows[0];
  let found = await installed();
  let updateError: string | undefined;
  if (!found) {
    const available = await client.query(
      "SELECT 1 FROM pg_available_extensions WHERE name = 'alexandria_pg'",
    );
    if (available.rowCount === 0) {
      throw new Error(
        'The PostgreSQL paper index needs the alexandria_pg extension on the database server: run `alexandria db install-extension` as root on that machine (it needs postgresql-server-dev-15), see README "Scaling out"',
      );
    }
    await client.query('CREATE EXTENSION IF NOT EXISTS alexandria_pg SCHEMA public');
    found = await installed();
  } else if (found.available && older(found.version, found.available)) {
    updateError = (await attempt(client, 'ALTER EXTENSION alexandria_pg UPDATE')).error;
    found = await installed();
  }
  if (!found) throw new Error('CREATE EXTENSION alexandria_pg did not install it');
  return { version: found.version, schema: found.schema, updateError };
}

/** The extension in this database: its version, its schema, and why updating it failed (if it did). */
export interface InstalledExtension {
  version: string;
  schema: string;
  updateError?: string | undefined;
}

/**
 * Makes sure the current role may execute the functions the index calls: when `grant` (the index is
 * being created), it first grants them to itself, which succeeds where it may grant. Throws with
 * the GRANT statement an administrator must run when the role still lacks one.
 */
export async function ensureExecute(
  client: pg.PoolClient,
  extension: InstalledExtension,
  grant: boolean,
): Promise<void> {
  if (older(extension.version, requiredExtensionVersion)) {
    throw new Error(
      `The PostgreSQL paper index needs alexandria_pg ${requiredExtensionVersion}; this database has ${extension.version}${extension.updateError ? ` and updating it failed (${extension.updateError})` : ''}: run \`alexandria db install-extension\` as root on the database server, then ALTER EXTENSION alexandria_pg UPDATE as the extension's owner`,
    );
  }
  // regnamespace's text is the schema's name quoted where it needs it.
  const signatures = indexFunctions.map((signature) => `${extension.schema}.${signature}`);
  const missing = async () => {
    const found = await client.query<{ signature: string; allowed: boolean | null }>(
      `SELECT signature, has_function_privilege(to_regprocedure(signature), 'EXECUTE') AS allowed
       FROM unnest($1::text[]) AS signature`,
      [signatures],
    );
    return found.rows.filter((row) => row.allowed !== true).map((row) => row.signature);
  };
  // Recorded in the functions' ACL even for a superuser, so that the index's role keeps its right
  // if it stops being one; a role that may not grant gets a warning from PostgreSQL and no right.
  if (grant) {
    for (const signature of signatures)
      await attempt(client, `GRANT EXECUTE ON FUNCTION ${signature} TO CURRENT_USER`);
    if (!older(extension.version, '1.4'))
      for (const signature of optionalFunctions)
        await attempt(client, `GRANT EXECUTE ON FUNCTION ${extension.schema}.${signature} TO CURRENT_USER`);
  }
  const lacking = await missing();
  if (lacking.length > 0) {
    const role =
      (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0]?.role ?? 'the role';
    throw new Error(
      `The PostgreSQL paper index's role ${role} may not execute the alexandria_pg functions it calls; as a superuser run: ${lacking
        .map((signature) => `GRANT EXECUTE ON FUNCTION ${signature} TO "${role}";`)
        .join(' ')}`,
    );
  }
}
