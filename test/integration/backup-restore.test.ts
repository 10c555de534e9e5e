// Issue 16: no documented backup, restore and upgrade path for the data folder. `alexandria backup`
// copies a live data folder (SQLite online backup API, then the blobs) while `alexandria serve`
// answers requests on it; `alexandria restore` puts the copy into a new data folder; a server there
// gives the same search answers, the same projects and the same full text.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorialPdf, figurePaperPdf, scannedPdf } from '../helpers/generated-pdfs.js';
import { fixtures } from '../helpers/requirements.js';
import { finished, serverListening, spawnCli } from '../helpers/server-process.js';

const apiKey = 'backup-test-key-0123456789abcdef';
const headers = { authorization: `Bearer ${apiKey}` };
const children = new Set<ChildProcess>();
let root: string;
let live: string;
let restored: string;
let backup: string;

function cli(dataDir: string, args: string[]): ChildProcess {
  const child = spawnCli(dataDir, args, {
    ALEXANDRIA_API_KEYS: `default:${apiKey}`,
    // Not what is tested here, and it saves the machine's two cores.
    ALEXANDRIA_EMBED_ON_ADD: 'false',
    // The readers below must not run the key out of its rate limit.
    ALEXANDRIA_RATE_LIMIT_BURST: '100000',
    ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '100000',
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

async function upload(url: string, file: string, bytes: Buffer): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), file);
  const response = await fetch(`${url}/api/add_to_project?project_name=Reading`, {
    method: 'POST',
    headers,
    body: form,
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** What a client sees of a data folder: searches, the project with its papers, a PDF's text. */
async function observe(url: string, queries: string[]) {
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers });
    expect(response.status, path).toBe(200);
    return response.json() as Promise<unknown>;
  };
  const searches = [];
  for (const query of queries) {
    const papers = (await get(`/api/abstracts?query=${encodeURIComponent(query)}&limit=10`)) as Array<{
      title: string;
      year: number | null;
    }>;
    searches.push(papers.map((paper) => `${paper.title} (${paper.year})`));
  }
  const project = (await get('/api/projects/Reading')) as {
    papers: Array<{ title: string; pdf_id: string; entry_id: string }>;
  };
  const texts = [];
  for (const paper of project.papers) {
    const text = (await get(`/api/fulltext?pdf_id=${encodeURIComponent(paper.pdf_id)}&chunk=1`)) as {
      chunks: Array<{ chunk: string }>;
      total_chunk_num: number;
    };
    texts.push({ chunks: text.total_chunk_num, first: text.chunks[0]?.chunk });
  }
  return { searches, papers: project.papers, texts };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'alexandria-backup-'));
  live = join(root, 'live');
  restored = join(root, 'restored');
  backup = join(root, 'backup');
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

describe('alexandria backup / restore (issue 16)', () => {
  it('backs up a data folder while it is served; the restored copy answers the same', async () => {
    const records = (await readFile(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8'))
      .split('\n')
      .slice(0, 200)
      .join('\n');
    await writeFile(join(root, 'acl.jsonl'), `${records}\n`);
    const ingested = await finished(cli(live, ['ingest', join(root, 'acl.jsonl'), '--no-progress']));
    expect(ingested.code, ingested.stderr).toBe(0);

    const server = cli(live, ['serve']);
    const { url } = await serverListening(server);
    await upload(url, 'editorial.pdf', await editorialPdf());
    await upload(url, 'deltas.pdf', await figurePaperPdf());
    const queries = ['annotation tool', '"machine translation"', 'dialogue generation'];
    const before = await observe(url, queries);
    expect(before.papers).toHaveLength(2);
    expect(before.searches.flat().length).toBeGreaterThan(5);

    // Readers keep the server busy while the backup runs.
    let searching = true;
    const load = (async () => {
      let count = 0;
      while (searching && count < 2000) {
        await fetch(`${url}/api/abstracts?query=${count++ % 2 ? 'parsing' : 'neural'}`, { headers });
      }
      return count;
    })();
    const backedUp = await finished(cli(live, ['backup', backup]));
    searching = false;
    expect(await load).toBeGreaterThan(0);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(backedUp.stdout).toMatch(
      /Backed up .* \(project store, paper index, blobs\)\. Restore it with: alexandria restore /,
    );
    expect((await readdir(backup)).sort()).toEqual([
      'alexandria-backup.json',
      'alexandria.db',
      'blobs',
      'index.db',
    ]);

    // A paper filed after the backup is not in it: the copy is the folder as it was.
    await upload(url, 'scan.pdf', await scannedPdf());
    await stop(server);

    // Restoring over a folder with data is refused.
    const over = await finished(cli(live, ['restore', backup]));
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(
      /^error: .*alexandria\.db already exists: restore only into a data folder without data/m,
    );

    const restoring = await finished(cli(restored, ['restore', backup]));
    expect(restoring.code, restoring.stderr).toBe(0);
    const copy = cli(restored, ['serve']);
    const restoredUrl = (await serverListening(copy)).url;
    const after = await observe(restoredUrl, queries);
    expect(after).toEqual(before);
    await stop(copy);
  }, 240_000);

  it('refuses a folder that is not a backup, and a non-empty backup target', async () => {
    const notBackup = await finished(cli(join(root, 'other'), ['restore', root]));
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toMatch(/holds no alexandria-backup\.json: it is not a finished backup/);
    const nonEmpty = await finished(cli(live, ['backup', backup]));
    expect(nonEmpty.code).toBe(1);
    expect(nonEmpty.stderr).toMatch(/is not empty; give a new or empty folder/);
  }, 120_000);
});
