import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImagePlacement, TextRun } from './layout-types.js';

/** How to run Tesseract (the `tesseract-ocr` package; its CLI reads a PNG and writes TSV). */
export interface OcrOptions {
  /** Executable, `tesseract` on PATH by default. */
  command: string;
  /** Tesseract languages, e.g. `eng` or `eng+deu` (their traineddata must be installed). */
  languages: string;
  timeoutMs: number;
}

/**
 * Recognises the text of a page scan and returns it as positioned runs in page space, one per
 * word, so the scan goes through the same line, column and paragraph stages as born-digital text.
 * Tesseract's TSV gives word boxes in image pixels; `placement` maps them onto the page. Words of
 * one Tesseract line share the line's height and bottom, so they form one line segment here too.
 */
export function recognizePage(
  png: Uint8Array,
  size: { width: number; height: number },
  placement: ImagePlacement,
  options: OcrOptions,
): TextRun[] {
  const folder = mkdtempSync(join(tmpdir(), 'alexandria-ocr-'));
  try {
    const input = join(folder, 'page.png');
    writeFileSync(input, png);
    const result = spawnSync(options.command, [input, 'stdout', '-l', options.languages, 'tsv'], {
      encoding: 'utf8',
      timeout: options.timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0 || typeof result.stdout !== 'string') return [];
    return toRuns(result.stdout, size, placement);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface Word {
  line: string;
  left: number;
  top: number;
  width: number;
  height: number;
  text: string;
}

function toRuns(tsv: string, size: { width: number; height: number }, placement: ImagePlacement): TextRun[] {
  const words: Word[] = [];
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t');
    // level page block paragraph line word left top width height confidence text
    if (cells[0] !== '5' || cells.length < 12) continue;
    const text = (cells[11] ?? '').trim();
    if (text.length === 0) continue;
    words.push({
      line: `${cells[2]}.${cells[3]}.${cells[4]}`,
      left: Number(cells[6]),
      top: Number(cells[7]),
      width: Number(cells[8]),
      height: Number(cells[9]),
      text,
    });
  }
  const scaleX = (placement.x1 - placement.x0) / size.width;
  const scaleY = (placement.bottom - placement.top) / size.height;
  const lines = new Map<string, { top: number; bottom: number }>();
  for (const word of words) {
    const line = lines.get(word.line) ?? { top: word.top, bottom: word.top + word.height };
    line.top = Math.min(line.top, word.top);
    line.bottom = Math.max(line.bottom, word.top + word.height);
    lines.set(word.line, line);
  }
  // Line boxes vary with ascenders and descenders; body lines get the page's median height so that
  // paragraphs read as one type size (headings and titles, clearly taller, keep their own).
  const heights = [...lines.values()].map((line) => line.bottom - line.top).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 1;
  return words.map((word) => {
    const line = lines.get(word.line) ?? { top: word.top, bottom: word.top + word.height };
    const height = line.bottom - line.top;
    return {
      text: word.text,
      x: placement.x0 + word.left * scaleX,
      y: placement.top + line.bottom * scaleY,
      width: word.width * scaleX,
      size: Math.max(1, (height < median * 1.4 ? median : height) * scaleY),
      font: 'ocr',
      spaceAfter: true,
    };
  });
}

/** Whether `command` runs (checked once when OCR is switched on, so a missing binary fails at start). */
export function ocrAvailable(command: string): boolean {
  const result = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0;
}
