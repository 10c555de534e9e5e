// Issue 16: `alexandria ingest <folder of PDFs>` said "format not recognised" although the design
// promises folders of PDFs. Now the real CLI process files every PDF of a folder (recursively,
// recognised by its bytes) in a project through the add_to_project path, with a line per PDF, is
// idempotent on a re-run, reports a bad PDF and goes on, and streams record dumps of the same folder
// into the index. What it stored is then read back through the HTTP API.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf, scannedPdf } from '../helpers/generated-pdfs.js';
import { fixtures } from '../helpers/requirements.js';
import { spawnCli } from '../helpers/server-process.js';
import { offline, withKey } from '../helpers/test-app.js';

let root: string;
let folder: string;
let dataDir: string;
let firstTitle: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function finished(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => {
    stdout += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

const ingest = (...args: string[]) => finished(spawnCli(dataDir, ['ingest', ...args]));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'alexandria-ingest-pdfs-'));
  folder = join(root, 'reading');
  dataDir = join(root, 'data');
  await mkdir(join(folder, 'sub', 'deeper'), { recursive: true });
  // PDFs written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
  await writeFile(join(folder, 'editorial.pdf'), await editorialPdf());
  // The same bytes under another name: the same document, filed once.
  await writeFile(join(folder, 'sub', 'copy.pdf'), await editorialPdf());
  // A PDF is recognised by its bytes, not its name.
  await writeFile(join(folder, 'sub', 'deeper', 'download.bin'), await figurePaperPdf());
  await writeFile(join(folder, 'sub', 'scan.pdf'), await scannedPdf());
  // A PDF cut short: reported, skipped, and the run exits non-zero at the end.
  const whole = await gaugingReportPdf(40);
  await writeFile(join(folder, 'broken.pdf'), whole.subarray(0, 20_000));
  // Record dumps beside the PDFs go to the search index, and a stray note is skipped.
  const records = (await readFile(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8'))
    .split('\n')
    .slice(0, 25)
    .join('\n');
  await writeFile(join(folder, 'acl.jsonl'), `${records}\n`);
  firstTitle = (JSON.parse(records.split('\n')[0] ?? '{}') as { title: string }).title;
  await writeFile(join(folder, 'notes.txt'), 'to read first: the editorial\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('alexandria ingest <folder of PDFs> (issue 16)', () => {
  let firstRun: Run;

  it('files every PDF of the folder in the project, a line per PDF, and reports the bad one', async () => {
    firstRun = await ingest(folder, '--project', 'Thesis');
    const { code, stdout, stderr } = firstRun;
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('Filing 5 PDFs in project "Thesis" of tenant "default"');
    expect(stderr).toMatch(/^\[1\/5\] \S+broken\.pdf: failed, \d+\.\d s: .*not a readable PDF/m);
    expect(stderr).toMatch(/^\[2\/5\] \S+editorial\.pdf: added, 2 pages, \d+ chunks?, \d+\.\d s$/m);
    expect(stderr).toMatch(/^\[3\/5\] \S+sub\/copy\.pdf: unchanged, 2 pages, /m);
    expect(stderr).toMatch(/^\[4\/5\] \S+sub\/deeper\/download\.bin: added, 3 pages, \d+ chunks?, /m);
    expect(stderr).toMatch(/^\[5\/5\] \S+sub\/scan\.pdf: added, 2 pages, 1 chunk, .*no text layer/m);
    // The error is the last line and names the bad file.
    expect(stderr.trim().split('\n').at(-1)).toMatch(
      /^error: 1 of 5 PDFs could not be filed \(\S+broken\.pdf\)/,
    );
    expect(stdout).toMatch(
      /Filed 5 PDFs in \d+\.\d s in project "Thesis" \(prj_\w+\) of tenant "default": 3 added, 1 unchanged, 1 failed\./,
    );
    expect(stdout).toMatch(/Read 25 records .*25 inserted/);
    expect(stdout).toMatch(/notes\.txt: skipped: format not recognised/);
    // Embedded here, before each line was printed: the passage vectors are stored.
    const vectors = join(dataDir, 'blobs', 'question-vectors');
    expect(
      existsSync(vectors) &&
        readdirSync(vectors, { recursive: true }).some((name) => String(name).endsWith('.bin')),
    ).toBe(true);
  }, 300_000);

  it('is idempotent: the same folder again changes nothing', async () => {
    const { code, stdout } = await ingest(folder, '--project', 'Thesis', '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      records: { read: number; inserted: number; unchanged: number };
      pdfs: {
        added: number;
        unchanged: number;
        failed: number;
        files: Array<{ status: string; pdf_id?: string }>;
      };
    };
    expect(report.records).toMatchObject({ read: 25, inserted: 0, unchanged: 25 });
    expect(report.pdfs).toMatchObject({ added: 0, unchanged: 4, failed: 1 });
    // Without the broken file the run succeeds.
    await rm(join(folder, 'broken.pdf'));
    const clean = await ingest(folder, '--project', 'Thesis');
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/0 added, 4 unchanged, 0 failed/);
  }, 180_000);

  it('stored what the API then serves: the project, its PDFs read in chunks, the records searchable', async () => {
    const config = loadConfig({ ...offline, ALEXANDRIA_DATA_DIR: dataDir, ALEXANDRIA_LOG_LEVEL: 'silent' });
    const container = await createContainer(config, createLogger({ level: 'silent' }));
    const app = await createHttpApp(container);
    try {
      const { key } = await container.services.auth.createKey('default');
      const projects = await app.inject({ url: '/api/projects', headers: withKey(key) });
      const thesis = (projects.json() as Array<{ id: string; name: string; paper_count: number }>).find(
        (project) => project.name === 'Thesis',
      );
      expect(thesis?.paper_count).toBe(3);
      const project = await app.inject({ url: `/api/projects/${thesis?.id}`, headers: withKey(key) });
      const papers = (project.json() as { papers: Array<{ title: string; pdf_id: string }> }).papers;
      expect(papers.map((paper) => paper.title)).toContain(
        'Vaccination and treatment of COVID-19 in immunosuppressed patients',
      );
      const editorial = papers.find((paper) => paper.title.startsWith('Vaccination and treatment'));
      const text = await app.inject({
        url: `/api/fulltext?pdf_id=${encodeURIComponent(editorial?.pdf_id ?? '')}`,
        headers: withKey(key),
      });
      expect(text.statusCode).toBe(200);
      expect((text.json() as { chunks: Array<{ chunk: string }> }).chunks[0]?.chunk).toMatch(/vaccin/i);
      // Another tenant sees none of it.
      const other = await container.services.auth.createKey('other');
      const theirs = await app.inject({ url: '/api/projects', headers: withKey(other.key) });
      expect((theirs.json() as Array<{ name: string }>).map((each) => each.name)).not.toContain('Thesis');
      const search = await app.inject({
        url: `/api/abstracts?query=${encodeURIComponent(firstTitle)}&limit=5`,
        headers: withKey(key),
      });
      expect(search.statusCode).toBe(200);
      const found = (search.json() as Array<{ title: string }>).map((paper) => paper.title);
      expect(found).toContain(firstTitle);
    } finally {
      await app.close();
      await container.close();
    }
  }, 180_000);

  it('a single PDF without --project goes to the default project', async () => {
    const single = join(root, 'one.pdf');
    await writeFile(single, await editorialPdf());
    const { code, stdout, stderr } = await ingest(single, '--tenant', 'lab', '--no-progress');
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(
      /Filed 1 PDF in \d+\.\d s in project "gpt" of tenant "lab": 1 added, 0 unchanged, 0 failed\./,
    );
  }, 180_000);
});
