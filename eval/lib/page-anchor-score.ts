import { execFileSync } from 'node:child_process';
import { anchorOf } from '../../src/domain/page-anchors.js';
import type { ParsedDocument } from '../../src/ports/pdf-extractor.js';
import { findQuote, letterKey } from '../../src/text/letter-stream.js';
import { splitSentences } from '../../src/text/sentences.js';

/**
 * How well quotes are anchored on the page (decision 0034), judged against poppler's own word
 * boxes (`pdftotext -bbox`, an independent reading of the same PDF).
 */
export interface Word {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  key: string;
}

/** Every word poppler's pdftotext places on the pages, an independent reading of the same PDF. */
export function popplerWords(path: string): Word[] {
  const html = execFileSync('pdftotext', ['-bbox', path, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const words: Word[] = [];
  let page = 0;
  for (const match of html.matchAll(
    /<page |<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
  )) {
    if (match[0] === '<page ') {
      page++;
      continue;
    }
    const text = (match[5] ?? '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    words.push({
      page,
      x0: Number(match[1]),
      y0: Number(match[2]),
      x1: Number(match[3]),
      y1: Number(match[4]),
      key: letterKey(text),
    });
  }
  return words;
}

/**
 * Sentences of the chunks located on the page, scored against poppler's words: recall is the share
 * of the sentence's words that poppler prints inside the boxes, precision the share of the words
 * inside the boxes that belong to the sentence.
 */
export function scoreDocument(parsed: ParsedDocument, words: Word[]) {
  let sentences = 0;
  let anchored = 0;
  let recall = 0;
  let precision = 0;
  for (const chunk of parsed.chunks) {
    const candidates = splitSentences(chunk.text).filter(
      (sentence) => !sentence.startsWith('#') && sentence.split(/\s+/).length >= 8,
    );
    for (const sentence of candidates.filter((_, index) => index % 3 === 0)) {
      sentences++;
      const span = findQuote(chunk.text, sentence);
      const anchor = span ? anchorOf(chunk.lines, parsed.pageSizes, span.start, span.end) : null;
      if (!anchor) continue;
      anchored++;
      const inside = words.filter((word) =>
        anchor.boxes.some((box) => {
          const [width, height] = parsed.pageSizes?.[box.page - 1] ?? [1, 1];
          const cx = (word.x0 + word.x1) / 2 / width;
          const cy = (word.y0 + word.y1) / 2 / height;
          return word.page === box.page && cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1;
        }),
      );
      const insideKeys = inside.map((word) => word.key).join('');
      const sentenceKey = letterKey(sentence);
      const sentenceWords = sentence
        .split(/\s+/)
        .map(letterKey)
        .filter((key) => key.length >= 3);
      const insideWords = inside.filter((word) => word.key.length >= 3);
      recall +=
        sentenceWords.filter((key) => insideKeys.includes(key)).length / Math.max(1, sentenceWords.length);
      precision +=
        insideWords.filter((word) => sentenceKey.includes(word.key)).length / Math.max(1, insideWords.length);
    }
  }
  return { sentences, anchored, recall: recall / anchored, precision: precision / anchored };
}
