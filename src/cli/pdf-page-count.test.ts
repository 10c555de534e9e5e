import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedData } from '../ingest/formats/test-support.js';
import { declaredPageCount } from './pdf-page-count.js';

const folder = join(sharedData, 'pdfs');
const manifest = readFileSync(join(folder, 'pdfs_manifest.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { file: string; pages: number });

describe('declaredPageCount (the pages of `alexandria ingest` progress lines)', () => {
  it.each(manifest)('$file has $pages pages, as pdfinfo says', ({ file, pages }) => {
    expect(declaredPageCount(readFileSync(join(folder, file)))).toBe(pages);
  });

  it('is undefined for bytes with no page tree, and for a PDF cut before it', () => {
    expect(declaredPageCount(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n'))).toBeUndefined();
    const whole = readFileSync(join(folder, 'novelty_controlled_paraphrase_aaai2022.pdf'));
    expect(declaredPageCount(whole.subarray(0, 2000))).toBeUndefined();
  });
});
