// Issue 16, packaging: `"private": true` blocked a global install of the CLI and nothing said what a
// tarball must hold. This packs the package as `npm pack` does and runs the packed `alexandria`.
//
// What it does not do, and why: `npm install -g <tgz>` resolves the dependencies' versions from the
// registry (the npm cache holds their tarballs but not their metadata, even with a shrinkwrap), so
// it cannot run offline. Instead the tarball's file list is checked against everything the bin needs
// at run time, and the bin is run from the extracted tarball with this repository's node_modules
// beside it (linked: ES modules ignore NODE_PATH), after the package's own postinstall step has
// built the SQLite extension from the shipped C source. docs/decisions/0027-folder-ingest-packaging-backup.md
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorialPdf } from '../helpers/generated-pdfs.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
let root: string;
let packed: string;
let files: string[];
const children = new Set<ChildProcess>();

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'alexandria-pack-'));
  // dist/ and web/dist/ are built by `npm ci` (the prepare script), as `npm pack` would build them.
  if (
    !existsSync(join(repo, 'dist', 'cli', 'main.js')) ||
    !existsSync(join(repo, 'web', 'dist', 'index.html'))
  ) {
    await run('npm', ['run', 'build', '--silent'], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  }
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', root], {
    cwd: repo,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [result] = JSON.parse(stdout) as PackResult[];
  if (!result) throw new Error(`npm pack said nothing: ${stdout}`);
  files = result.files.map((file) => file.path);
  await run('tar', ['xzf', join(root, result.filename), '-C', root]);
  packed = join(root, 'package');
  await symlink(join(repo, 'node_modules'), join(packed, 'node_modules'), 'dir');
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

function alexandria(args: string[], dataDir: string, env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [join(packed, 'bin', 'alexandria.js'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_HOST: '127.0.0.1',
      ALEXANDRIA_PORT: '0',
      ALEXANDRIA_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

describe('npm pack (issue 16)', () => {
  it('is publishable and installs a bin with a postinstall that builds the native extension', async () => {
    const manifest = JSON.parse(await readFile(join(packed, 'package.json'), 'utf8')) as {
      private?: boolean;
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ alexandria: 'bin/alexandria.js' });
    expect(manifest.scripts.postinstall).toBe('node scripts/build-sqlite-extension.mjs');
  });

  it('holds every compiled module, the web page, the native sources, and no sources or tests', async () => {
    const built = readdirSync(join(repo, 'dist'), { recursive: true })
      .map(String)
      .filter((name) => name.endsWith('.js'))
      .map((name) => `dist/${name.split('\\').join('/')}`);
    expect(built.length).toBeGreaterThan(100);
    expect(files).toEqual(expect.arrayContaining(built));
    const web = readdirSync(join(repo, 'web', 'dist'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(repo, join(entry.parentPath, entry.name)).split('\\').join('/'));
    expect(files).toEqual(expect.arrayContaining(web));
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'bin/alexandria.js',
        // Worker threads are started from files beside their callers.
        'dist/pdf/pdf-worker.js',
        'dist/bibliography/reference-worker.js',
        'dist/adapters/sqlite/sqlite-search-worker.js',
        'dist/adapters/embeddings/onnx-embedding-worker.js',
        'web/dist/index.html',
        'native/bm25-known-df.c',
        'scripts/build-sqlite-extension.mjs',
        'scripts/setup-model.mjs',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
      ]),
    );
    expect(
      files.filter((path) => /^(src|test|eval|bench|docs)\/|\.map$|\.test\.|^native\/build\//.test(path)),
    ).toEqual([]);
  });

  it('runs from the tarball: postinstall builds the extension, serve answers, ingest files a PDF', async () => {
    const postinstall = await run(process.execPath, ['scripts/build-sqlite-extension.mjs'], { cwd: packed });
    expect(existsSync(join(packed, 'native', 'build', 'bm25-known-df.so')), postinstall.stderr).toBe(true);

    const version = await exited(alexandria(['--version'], join(root, 'data')));
    expect(version.stdout.trim()).toBe('0.1.0');

    const dataDir = join(root, 'data');
    await mkdir(join(root, 'pdfs'));
    await writeFile(join(root, 'pdfs', 'editorial.pdf'), await editorialPdf());
    const ingested = await exited(alexandria(['ingest', join(root, 'pdfs'), '--no-embed'], dataDir));
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toMatch(/Filed 1 PDF .*: 1 added, 0 unchanged, 0 failed\./);

    const key = 'default:packaged-test-key-0123456789';
    const server = alexandria(['serve'], dataDir, { ALEXANDRIA_API_KEYS: key });
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      server.stderr?.on('data', (data: Buffer) => {
        stderr += data.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
    });
    const headers = { authorization: `Bearer ${key.split(':')[1]}` };
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const project = await fetch(`${url}/api/projects/gpt`, { headers });
    expect(project.status).toBe(200);
    const papers = ((await project.json()) as { papers: Array<{ title: string }> }).papers;
    expect(papers.map((paper) => paper.title)).toEqual([
      'Vaccination and treatment of COVID-19 in immunosuppressed patients',
    ]);
    server.kill('SIGTERM');
    expect(await new Promise((resolve) => server.once('exit', resolve))).toBe(0);
  }, 120_000);
});
