// Crash safety (issue 13): the real server (and `alexandria ingest`) is killed with SIGKILL in the
// middle of uploads, a BibTeX import, a project delete and an ingest; after every restart the data
// folder must be consistent, and once each operation is repeated to completion the counts must equal
// those of an uninterrupted run in a fresh folder.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { fixtures } from '../helpers/requirements.js';
import { seededBetween } from '../helpers/seeded-random.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';

/**
 * Small PDFs (2–31 pages, two figures), written by pdfkit from our own texts, so a round of uploads
 * parses in a few seconds. Largest first: the first kill lands while it is being parsed.
 */
const pdfsToUpload: Array<[name: string, make: () => Promise<Buffer>]> = [
  ['report.pdf', () => gaugingReportPdf(30)],
  ['deltas.pdf', figurePaperPdf],
  ['editorial.pdf', editorialPdf],
];
const folders: string[] = [];
/** Every process this file starts, so a failed run leaves none behind. */
const children = new Set<ChildProcess>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cli(dataDir: string, args: string[]): ChildProcess {
  const child = spawnCli(dataDir, args, {
    ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
    ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

interface Server {
  url: string;
  key: string;
  child: ChildProcess;
}

/** `alexandria serve` on a free loopback port; the first start in a folder prints the admin key. */
async function startServer(dataDir: string, key?: string): Promise<Server> {
  const child = cli(dataDir, ['serve']);
  const { url, adminKey } = await serverListening(child);
  const apiKey = key ?? adminKey;
  if (!apiKey) throw new Error('no API key was printed on the first start');
  return { url, key: apiKey, child };
}

async function call(server: Server, method: string, path: string, body?: BodyInit, type?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-alexandria-api-key': server.key, ...(type ? { 'content-type': type } : {}) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

// The operations, each idempotent when repeated to completion.

async function uploadAll(server: Server, projectName: string, pdfs: Map<string, Buffer>): Promise<void> {
  for (const [name, bytes] of pdfs) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
    const answer = await call(
      server,
      'POST',
      `/api/add_to_project?project_name=${encodeURIComponent(projectName)}`,
      form,
    );
    if (answer.status !== 200) throw new Error(`upload of ${name}: ${answer.status} ${answer.text}`);
  }
}

async function createProject(server: Server, name: string): Promise<string> {
  const answer = await call(
    server,
    'POST',
    '/api/create_project',
    JSON.stringify({ project_name: name }),
    'application/json',
  );
  if (answer.status === 200) return JSON.parse(answer.text).id as string;
  if (answer.status !== 409) throw new Error(`create_project: ${answer.status} ${answer.text}`);
  const listed = await call(server, 'GET', '/api/projects');
  const projects = JSON.parse(listed.text) as
    | Array<{ id: string; name: string }>
    | { projects: Array<{ id: string; name: string }> };
  const list = Array.isArray(projects) ? projects : projects.projects;
  const found = list.find((project) => project.name === name);
  if (!found) throw new Error(`project ${name} conflicts but is not listed: ${listed.text}`);
  return found.id;
}

async function importBibtex(server: Server, projectId: string, bibtex: string): Promise<void> {
  const answer = await call(
    server,
    'POST',
    `/api/projects/${projectId}/import`,
    bibtex,
    'application/x-bibtex',
  );
  if (answer.status !== 200) throw new Error(`import: ${answer.status} ${answer.text}`);
}

async function deleteProject(server: Server, projectId: string): Promise<void> {
  const answer = await call(server, 'DELETE', `/api/projects/${encodeURIComponent(projectId)}`);
  if (answer.status !== 200 && answer.status !== 404)
    throw new Error(`delete: ${answer.status} ${answer.text}`);
}

async function ingestToCompletion(dataDir: string, file: string): Promise<void> {
  const child = cli(dataDir, ['ingest', file, '--no-progress', '--batch-size', '100']);
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`ingest exited with ${code}: ${stderr}`);
}

// What is checked after every restart and at the end.

async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((item) => item.isFile()).map((item) => join(item.parentPath, item.name));
}

function openReadonly(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

/**
 * Every way the folder can be inconsistent, as readable lines (empty = consistent): SQLite
 * integrity and foreign keys of every database, stored PDFs against document rows both ways, temp
 * files of interrupted writes, and projects that exist without having been finished.
 */
async function problemsIn(dataDir: string, finishedEmptyProjects: Set<string>): Promise<string[]> {
  const problems: string[] = [];
  const databases = (await readdir(dataDir)).filter((name) => name.endsWith('.db'));
  expect(databases).toEqual(expect.arrayContaining(['alexandria.db', 'index.db']));
  for (const name of databases) {
    const db = openReadonly(join(dataDir, name));
    try {
      const integrity = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
      if (integrity.map((row) => row.integrity_check).join() !== 'ok')
        problems.push(`${name}: integrity_check ${JSON.stringify(integrity)}`);
      const foreign = db.pragma('foreign_key_check') as unknown[];
      if (foreign.length > 0) problems.push(`${name}: foreign_key_check ${JSON.stringify(foreign)}`);
    } finally {
      db.close();
    }
  }
  const blobRoot = join(dataDir, 'blobs');
  const files = (await filesBelow(blobRoot)).map((path) => relative(blobRoot, path));
  for (const file of files.filter((path) => path.endsWith('.tmp'))) problems.push(`temp file left: ${file}`);
  const storedPdfs = new Set(files.filter((path) => path.startsWith('documents/') && !path.endsWith('.tmp')));
  const db = openReadonly(join(dataDir, 'alexandria.db'));
  try {
    const rows = db.prepare('SELECT tenant_id, id, blob_key FROM documents').all() as Array<{
      tenant_id: string;
      id: string;
      blob_key: string;
    }>;
    const referenced = new Set(rows.map((row) => row.blob_key));
    for (const row of rows)
      if (!storedPdfs.has(row.blob_key)) problems.push(`document ${row.id} has no blob ${row.blob_key}`);
    for (const pdf of storedPdfs) if (!referenced.has(pdf)) problems.push(`orphan blob ${pdf}`);
    const projects = db
      .prepare(
        `SELECT p.id, p.name, COUNT(e.entry_id) AS entries FROM projects p
         LEFT JOIN project_entries e ON e.tenant_id = p.tenant_id AND e.project_id = p.id
         GROUP BY p.tenant_id, p.id`,
      )
      .all() as Array<{ id: string; name: string; entries: number }>;
    for (const project of projects) {
      if (project.entries === 0 && project.id !== 'gpt' && !finishedEmptyProjects.has(project.name))
        problems.push(`half-created project "${project.name}" (no entries, no finished request created it)`);
    }
  } finally {
    db.close();
  }
  return problems;
}

/** Stored PDFs that no document row references (read beside the running server). */
async function unreferencedPdfs(dataDir: string): Promise<string[]> {
  const blobRoot = join(dataDir, 'blobs');
  const files = (await filesBelow(join(blobRoot, 'documents'))).map((path) => relative(blobRoot, path));
  const db = openReadonly(join(dataDir, 'alexandria.db'));
  try {
    const rows = db.prepare('SELECT blob_key FROM documents').all() as Array<{ blob_key: string }>;
    const referenced = new Set(rows.map((row) => row.blob_key));
    return files.filter((file) => !file.endsWith('.tmp') && !referenced.has(file));
  } finally {
    db.close();
  }
}

/** Waits (up to 10 s) for the sweep a restarted server runs to remove old unreferenced PDFs. */
async function afterStartupSweep(dataDir: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await unreferencedPdfs(dataDir)).length > 0 && Date.now() < deadline) await sleep(50);
}

/** What an uninterrupted run must also end with. */
function countsIn(dataDir: string) {
  const store = openReadonly(join(dataDir, 'alexandria.db'));
  const index = openReadonly(join(dataDir, 'index.db'));
  try {
    return {
      projects: store
        .prepare(
          `SELECT p.name, COUNT(e.entry_id) AS entries FROM projects p
           LEFT JOIN project_entries e ON e.tenant_id = p.tenant_id AND e.project_id = p.id
           GROUP BY p.tenant_id, p.id ORDER BY p.name`,
        )
        .all(),
      entryKeys: (store.prepare('SELECT COUNT(*) AS n FROM project_entry_keys').get() as { n: number }).n,
      documents: (store.prepare('SELECT COUNT(*) AS n FROM documents').get() as { n: number }).n,
      indexRecords: (index.prepare('SELECT COUNT(*) AS n FROM papers').get() as { n: number }).n,
    };
  } finally {
    store.close();
    index.close();
  }
}

/** Entries of the named project, or null while it does not exist (read beside the running server). */
function entryCount(dataDir: string, projectName: string): number | null {
  const db = openReadonly(join(dataDir, 'alexandria.db'));
  try {
    const row = db
      .prepare(
        `SELECT COUNT(e.entry_id) AS n FROM projects p
         LEFT JOIN project_entries e ON e.tenant_id = p.tenant_id AND e.project_id = p.id
         WHERE p.name = ? GROUP BY p.tenant_id, p.id`,
      )
      .get(projectName) as { n: number } | undefined;
    return row ? row.n : null;
  } finally {
    db.close();
  }
}

function indexCount(dataDir: string): number {
  try {
    const db = openReadonly(join(dataDir, 'index.db'));
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM papers').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/** The ACL Anthology sample `times` over, each copy's ids and titles numbered: distinct records. */
async function numberedCopies(times: number): Promise<string> {
  const records = (await readFile(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; title: string });
  const copies: string[] = [];
  for (let copy = 1; copy <= times; copy++) {
    for (const record of records) {
      // Without the ACL id, URL and PDF link, which would make the copies one record again.
      const numbered = {
        ...record,
        id: `${record.id}-${copy}`,
        title: `${record.title} (${copy})`,
        acl_id: null,
        url: null,
        pdf_url: null,
      };
      copies.push(JSON.stringify(numbered));
    }
  }
  return `${copies.join('\n')}\n`;
}

/** Real ACL Anthology metadata as a BibTeX file (braces and backslashes dropped from values). */
async function bibtexFile(records: number): Promise<string> {
  const lines = (await readFile(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .slice(0, records);
  const clean = (text: unknown) => String(text ?? '').replace(/[{}\\%]/g, '');
  return lines
    .map((line, index) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      const fields = [
        `  title = {${clean(record.title)}}`,
        `  author = {${((record.authors as string[]) ?? []).map(clean).join(' and ')}}`,
        `  year = {${clean(record.year)}}`,
        `  booktitle = {${clean(record.venue)}}`,
        record.doi ? `  doi = {${clean(record.doi)}}` : '',
        record.url ? `  url = {${clean(record.url)}}` : '',
      ].filter(Boolean);
      return `@inproceedings{acl${index},\n${fields.join(',\n')}\n}\n`;
    })
    .join('\n');
}

afterAll(async () => {
  await Promise.all([...children].map(killHard));
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('SIGKILL during writes', () => {
  it('leaves consistent databases and blobs after every kill, and the same counts as an uninterrupted run', async () => {
    const pdfs = new Map<string, Buffer>();
    for (const [name, make] of pdfsToUpload) pdfs.set(name, await make());
    const bibtex = await bibtexFile(400);
    const work = await mkdtemp(join(tmpdir(), 'alexandria-crash-work-'));
    folders.push(work);
    // 8,000 records, large enough to be killed mid-way: the 500 ACL Anthology records of the
    // fixtures, sixteen times over as distinct records (ids and titles numbered).
    const corpus = join(work, 'acl-8000.jsonl');
    await writeFile(corpus, await numberedCopies(16));

    // The uninterrupted run.
    const reference = await mkdtemp(join(tmpdir(), 'alexandria-crash-reference-'));
    folders.push(reference);
    const clean = await startServer(reference);
    await uploadAll(clean, 'uploads', pdfs);
    await importBibtex(clean, await createProject(clean, 'imported'), bibtex);
    await uploadAll(clean, 'doomed', pdfs);
    await importBibtex(clean, await createProject(clean, 'doomed'), bibtex);
    await deleteProject(clean, 'doomed');
    await ingestToCompletion(reference, corpus);
    await killHard(clean.child);
    const expected = countsIn(reference);
    expect(await problemsIn(reference, new Set(['imported']))).toEqual([]);

    // The same operations, killed at fixed pseudo-random points, restarted, then finished.
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-crash-'));
    folders.push(dataDir);
    const delay = seededBetween(13);
    let server = await startServer(dataDir);
    const key = server.key;
    const finished = new Set<string>();
    const kills: string[] = [];
    const restartAndCheck = async (label: string) => {
      await killHard(server.child);
      if (kills.length === 0) {
        // What a kill between a PDF's blob and its row leaves (too narrow to hit by timing): the
        // restarted server's sweep must remove it.
        const planted = join(dataDir, 'blobs', 'documents', 'ee', `${'e'.repeat(64)}.pdf`);
        await mkdir(dirname(planted), { recursive: true });
        await writeFile(planted, '%PDF-1.4 stored, then killed before its row');
      }
      // Restarted later: files written before the kill are older than any in-flight write.
      const past = new Date(Date.now() - 3 * 3600_000);
      for (const file of await filesBelow(join(dataDir, 'blobs')))
        await utimes(file, past, past).catch(() => {});
      server = await startServer(dataDir, key);
      await afterStartupSweep(dataDir);
      kills.push(label);
      expect(await problemsIn(dataDir, finished), `after a kill during ${label}`).toEqual([]);
    };
    /** Starts the operation, waits until `reached` sees its progress on disk, then `ms` more, then kills. */
    const killDuring = async (
      label: string,
      operation: () => Promise<unknown>,
      reached: () => boolean,
      ms: number,
      alsoKill?: ChildProcess,
    ) => {
      let done = false;
      const running = operation()
        .catch(() => undefined)
        .finally(() => {
          done = true;
        });
      const deadline = Date.now() + 30_000;
      while (!done && !reached() && Date.now() < deadline) await sleep(10);
      await sleep(ms);
      if (alsoKill) await killHard(alsoKill);
      await restartAndCheck(`${label} (+${ms} ms${done ? ', already done' : ''})`);
      await running;
    };
    const entriesOf = (name: string) => () => (entryCount(dataDir, name) ?? -1) >= 0;

    // Uploads: killed as soon as the project exists (mid-parse of the first PDF), then after two entries.
    await killDuring('upload', () => uploadAll(server, 'uploads', pdfs), entriesOf('uploads'), delay(0, 20));
    await killDuring(
      'upload',
      () => uploadAll(server, 'uploads', pdfs),
      () => (entryCount(dataDir, 'uploads') ?? 0) >= 2,
      delay(0, 400),
    );
    await uploadAll(server, 'uploads', pdfs);

    const imported = await createProject(server, 'imported');
    finished.add('imported');
    for (let round = 1; round <= 2; round += 1) {
      // One transaction (decision 0049): no progress shows on disk, so the kill comes at a time.
      await killDuring(
        'import',
        () => importBibtex(server, imported, bibtex),
        () => true,
        delay(20, 600),
      );
      expect([0, 400], 'an import is all or nothing').toContain(entryCount(dataDir, 'imported') ?? 0);
    }
    await importBibtex(server, imported, bibtex);

    // Delete: one transaction, killed right after the request is sent.
    await uploadAll(server, 'doomed', pdfs);
    await importBibtex(server, await createProject(server, 'doomed'), bibtex);
    for (let round = 0; round < 2; round += 1) {
      await killDuring(
        'delete',
        () => deleteProject(server, 'doomed'),
        () => true,
        delay(0, 20),
      );
    }
    await deleteProject(server, 'doomed');

    // Ingest: a separate process; it and the server are killed once batches are landing.
    for (let round = 1; round <= 2; round += 1) {
      const ingesting = cli(dataDir, ['ingest', corpus, '--no-progress', '--batch-size', '100']);
      await killDuring(
        'ingest',
        async () => {
          await once(ingesting, 'exit');
        },
        () => indexCount(dataDir) >= round * 2000,
        delay(0, 100),
        ingesting,
      );
    }
    await ingestToCompletion(dataDir, corpus);
    await killHard(server.child);

    expect(kills).toHaveLength(8);
    expect(await problemsIn(dataDir, finished)).toEqual([]);
    expect(countsIn(dataDir)).toEqual(expected);
  }, 240_000); // About a minute on an idle 2-core machine; generous for a loaded one.
});
