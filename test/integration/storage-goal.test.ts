// The goal of "storage only grows" (decision 0041), on a real `alexandria serve` process and its
// data folder: upload a PDF, read it, ask it a question, draw one page at 101 widths, delete it —
// and the data folder is back within 1 MB of its size before the upload. Before the fix there was
// no way to delete a stored PDF, and the 101 widths alone stored 101 drawings.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePaperPdf } from '../helpers/sample-paper.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { sharedData } from '../helpers/test-app.js';

const megabyte = 1024 * 1024;
const children = new Set<ChildProcess>();
const folders: string[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** What the folder takes on disk (allocated blocks, folders included) and the bytes its files hold. */
async function folderSize(root: string): Promise<{ disk: number; files: number; count: number }> {
  const size = { disk: 0, files: 0, count: 0 };
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const stats = await lstat(path);
      size.disk += stats.blocks * 512;
      if (entry.isDirectory()) await walk(path);
      else {
        size.files += stats.size;
        size.count += 1;
      }
    }
  };
  await walk(root);
  return size;
}

const sharedPdf = join(sharedData, 'pdfs', 'beyond_summarization_2304.02623v1.pdf');
const cases = [
  {
    name: 'a paper built by the tests',
    bytes: async () => samplePaperPdf({ seed: 41, pages: 6 }),
    absent: false,
  },
  // The shared data tier: a real 4-page arXiv paper (0.9 MB) when ../shared/data is present.
  {
    name: 'a real arXiv paper (shared data)',
    bytes: () => readFile(sharedPdf),
    absent: !existsSync(sharedPdf),
  },
];

describe('upload, read, draw 101 widths, delete: the data folder returns to its size', () => {
  it.for(cases)('with $name', { timeout: 300_000 }, async ({ bytes: load, absent }, context) => {
    if (absent) context.skip(`${sharedPdf} is absent: the shared data tier is not installed`);
    const bytes = await load();
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-storage-goal-'));
    folders.push(dataDir);
    const child = spawnCli(dataDir, ['serve'], {
      ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
      ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
    });
    children.add(child);
    try {
      const { url, adminKey } = await serverListening(child);
      const call = async (method: string, path: string, body?: FormData) => {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: { 'x-alexandria-api-key': adminKey ?? '' },
          ...(body ? { body } : {}),
        });
        return {
          status: response.status,
          body: Buffer.from(await response.arrayBuffer()),
          headers: response.headers,
        };
      };
      // The tenant and its default project exist before the measurement starts.
      expect((await call('GET', '/api/projects')).status).toBe(200);
      const before = await folderSize(dataDir);

      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'paper.pdf');
      const added = await call('POST', '/api/add_to_project?project_name=Goal', form);
      expect(added.status, added.body.toString()).toBe(200);
      const pdfId = JSON.parse(added.body.toString())[0].pdf_id as string;
      const ref = encodeURIComponent(pdfId);
      const read = await call('GET', `/api/fulltext?pdf_id=${ref}&chunk=1`);
      expect(read.status).toBe(200);
      const asked = await call(
        'GET',
        `/api/question?pdf_id=${ref}&question=${encodeURIComponent('What was measured?')}`,
      );
      expect(asked.status).toBe(200);
      // The passage vectors the add started in the background are stored.
      const vectors = join(dataDir, 'blobs', 'question-vectors');
      await expect
        .poll(async () => (existsSync(vectors) ? (await folderSize(vectors)).count : 0), {
          timeout: 120_000,
          interval: 200,
        })
        .toBeGreaterThan(0);
      const widths = new Set<string>();
      for (let index = 0; index < 101; index++) {
        const drawn = await call('GET', `/api/page_image?pdf_id=${ref}&page=1&width=${200 + 18 * index}`);
        expect(drawn.status).toBe(200);
        widths.add(drawn.headers.get('x-image-width') ?? '');
      }
      expect(widths.size).toBe(5);
      const peak = await folderSize(dataDir);

      const deleted = await call('DELETE', `/api/documents/${ref}`);
      expect(deleted.status, deleted.body.toString()).toBe(200);
      const after = await folderSize(dataDir);
      const figures = {
        pdfBytes: bytes.byteLength,
        before,
        peak,
        after,
        grewBy: { disk: after.disk - before.disk, files: after.files - before.files },
      };
      process.stdout.write(`storage goal (${context.task.name}): ${JSON.stringify(figures)}\n`);
      expect(peak.files - before.files).toBeGreaterThan(bytes.byteLength);
      expect(Math.abs(after.disk - before.disk)).toBeLessThan(megabyte);
      expect(Math.abs(after.files - before.files)).toBeLessThan(megabyte);
      // Nothing is left under the blob folder but what was there before (no PDF, no derived file).
      expect(existsSync(join(dataDir, 'blobs', 'documents'))).toBe(false);
      expect(existsSync(join(dataDir, 'blobs', 'pages'))).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      children.delete(child);
    }
  });
});
