import type pg from 'pg';
import { isDatabaseOutage } from './postgres-pool.js';

/** Runs `work` in one transaction on a connection of `pool`: committed when it resolves, else rolled back. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection the server ended cannot roll back; it is closed rather than pooled again.
    if (isDatabaseOutage(error)) lost = error instanceof Error ? error : new Error(String(error));
    else await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(lost);
  }
}
