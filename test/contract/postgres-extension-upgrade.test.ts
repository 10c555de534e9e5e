import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { emptyPaper } from '../../src/domain/paper.js';
import { type PrivateCluster, startPrivateCluster } from '../helpers/pg-cluster.js';

/**
 * alexandria_pg's upgrade path and privilege model (decision 0039) on a cluster of the test's own:
 * a database created at every released version and updated ends with the catalog of a fresh 1.4
 * install (functions, ACLs, settings), and the paper index updates an old database itself, grants
 * the role that creates it EXECUTE, and tells a role that may not grant which GRANT to ask for.
 */
let cluster: PrivateCluster;

async function run<T extends pg.QueryResultRow>(database: string, sql: string, user = 'postgres') {
  const client = new pg.Client({ connectionString: cluster.urlOf(database, user) });
  await client.connect();
  try {
    return await client.query<T>(sql);
  } finally {
    await client.end();
  }
}

/** The extension's functions as the catalog holds them: signature, C symbol, ACL, settings, flags. */
async function functions(database: string) {
  const found = await run(
    database,
    `SELECT p.oid::regprocedure::text AS signature, p.prosrc, p.proacl::text AS acl, p.proconfig::text AS config,
            p.provolatile, p.proparallel, p.proisstrict, p.proretset
     FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
     WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
       AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'alexandria_pg')
     ORDER BY 1`,
  );
  return found.rows;
}

const version = async (database: string) =>
  (
    await run<{ v: string }>(
      database,
      "SELECT extversion AS v FROM pg_extension WHERE extname = 'alexandria_pg'",
    )
  ).rows[0]?.v;

beforeAll(async () => {
  cluster = await startPrivateCluster();
});

afterAll(() => cluster?.stop());

describe('alexandria_pg upgrades', () => {
  it('updates a database created at 1.0, 1.1, 1.2 or 1.3 to the catalog of a fresh 1.4', async () => {
    await run('postgres', 'CREATE DATABASE fresh');
    await run('fresh', 'CREATE EXTENSION alexandria_pg');
    expect(await version('fresh')).toBe('1.4');
    const fresh = await functions('fresh');
    expect(fresh.map((row) => row.signature)).toHaveLength(7);
    // No function is executable by PUBLIC ("=X/…" in an ACL), the search by schema pins its search_path.
    for (const row of fresh) expect(row.acl, row.signature).not.toMatch(/(^|[{,])=X/);
    expect(
      fresh.find((row) => row.signature.startsWith('alexandria_inverted_search(regnamespace'))?.config,
    ).toBe('{"search_path=pg_catalog, pg_temp"}');
    // The functions of 1.4 that read the index's tables pin it too.
    for (const name of ['alexandria_compact(', 'alexandria_memory('])
      expect(fresh.find((row) => row.signature.startsWith(name))?.config, name).toBe(
        '{"search_path=pg_catalog, pg_temp"}',
      );
    for (const from of ['1.0', '1.1', '1.2', '1.3']) {
      const database = `from_${from.replace('.', '_')}`;
      await run('postgres', `CREATE DATABASE ${database}`);
      await run(database, `CREATE EXTENSION alexandria_pg VERSION '${from}'`);
      expect(await version(database)).toBe(from);
      await run(database, 'ALTER EXTENSION alexandria_pg UPDATE');
      expect(await version(database)).toBe('1.4');
      expect(await functions(database), `updated from ${from}`).toEqual(fresh);
    }
  });

  it('lets the paper index update a database at 1.0 and search it', async () => {
    await run('postgres', 'CREATE DATABASE adapter_update');
    await run('adapter_update', "CREATE EXTENSION alexandria_pg VERSION '1.0'");
    const index = await createPostgresPaperIndex(cluster.urlOf('adapter_update'), {
      schema: 'papers',
    });
    try {
      expect(await version('adapter_update')).toBe('1.4');
      await index.upsert([{ ...emptyPaper('Moss on granite boulders'), doi: '10.1/moss' }]);
      const page = await index.search({
        kind: 'paper',
        must: [],
        should: [{ kind: 'term', text: 'granite' }],
        peerReviewedOnly: false,
        sort: 'relevance',
        limit: 10,
        offset: 0,
      });
      expect(page.papers.map((paper) => paper.title)).toEqual(['Moss on granite boulders']);
    } finally {
      await index.close();
    }
  });
});

describe('alexandria_pg privileges through the paper index', () => {
  it('grants EXECUTE to the role that creates an index, which keeps it without superuser', async () => {
    await run('postgres', 'CREATE DATABASE granted');
    await run('postgres', 'CREATE ROLE operator LOGIN SUPERUSER');
    await run('granted', 'CREATE EXTENSION alexandria_pg; GRANT CREATE ON DATABASE granted TO operator');
    const url = cluster.urlOf('granted', 'operator');
    const index = await createPostgresPaperIndex(url, { schema: 'papers' });
    await index.close();
    const acl = (await functions('granted')).find((row) =>
      row.signature.startsWith('alexandria_slices'),
    )?.acl;
    expect(acl).toMatch(/operator=X\//);
    await run('postgres', 'ALTER ROLE operator NOSUPERUSER');
    const again = await createPostgresPaperIndex(url, { schema: 'papers' });
    try {
      await again.upsert([{ ...emptyPaper('Lichen on basalt'), doi: '10.1/lichen' }]);
      expect((await again.count()).papers).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('tells a role that may not grant itself which GRANT to ask for, and works once it is run', async () => {
    await run('postgres', 'CREATE DATABASE refused');
    await run('postgres', 'CREATE ROLE app LOGIN');
    await run('refused', 'CREATE EXTENSION alexandria_pg; GRANT CREATE ON DATABASE refused TO app');
    const url = cluster.urlOf('refused', 'app');
    const error = await createPostgresPaperIndex(url, { schema: 'papers' }).then(
      () => null,
      (failure: Error) => failure.message,
    );
    expect(error).toMatch(/may not execute/);
    const grants = error?.match(/GRANT EXECUTE ON FUNCTION [^;]+;/g) ?? [];
    expect(grants).toHaveLength(3);
    await run('refused', grants.join(' '));
    const index = await createPostgresPaperIndex(url, { schema: 'papers' });
    try {
      await index.upsert([{ ...emptyPaper('Ferns in shade'), doi: '10.1/fern' }]);
      expect((await index.count()).papers).toBe(1);
    } finally {
      await index.close();
    }
  });
});
