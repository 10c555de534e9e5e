import { type HintVocabulary, restHints } from '../hint-vocabulary.js';
import type { DocumentText } from './document-text.js';

/**
 * The `hint` texts: what an agent should do next. They say facts and next steps only; they never
 * carry instructions beyond reading the document. The next step is named in the caller's vocabulary.
 */

/** After reading chunk `number` of `total` of document `pdfId`. */
export function readHint(
  number: number,
  total: number,
  pdfId = '',
  vocabulary: HintVocabulary = restHints,
): string {
  if (total === 1) return 'This document has a single chunk; you have read all of it.';
  if (number >= total) return `This is the last chunk (${total} of ${total}).`;
  return `Read chunk ${number + 1} of ${total} next with ${vocabulary.chunk(pdfId, number + 1)}.`;
}

/** Said when a question was answered before the document's passage vectors were ready. */
export const wordsOnlyNote =
  'Ranked by words only (BM25): the meaning-based vectors of this document are still being built, and later questions on it will use both.';

/**
 * After a question: which chunk(s) hold the best passages and where to read on; `wordsOnly` when
 * the ranking could not wait for the document's vectors (question deadline).
 */
export function questionHint(
  numbers: number[],
  total: number,
  matched: boolean,
  wordsOnly = false,
  pdfId = '',
  vocabulary: HintVocabulary = restHints,
): string {
  const note = wordsOnly ? ` ${wordsOnlyNote}` : '';
  const [best] = numbers;
  if (best === undefined || !matched) {
    const readOn = total > 1 ? `Read on with ${vocabulary.chunk(pdfId, 2)}, or rephrase` : 'Rephrase';
    return `No passage matched the question; chunk 1 of ${total} is returned. ${readOn} the question.${note}`;
  }
  const neighbours = [best - 1, best + 1].filter((number) => number >= 1 && number <= total);
  const around =
    neighbours.length > 0 ? ` For the surrounding text ${vocabulary.readAnyOf(pdfId, neighbours)}.` : '';
  const others = numbers.length > 1 ? ` Next best: chunks ${numbers.slice(1).join(', ')}.` : '';
  return `The most relevant passage is in chunk ${best} of ${total}.${others}${around}${note}`;
}

/** A document without text: a scan, or a PDF whose pages hold no text at all. */
export function scanHint(text: DocumentText, ocr: boolean): string {
  const pages = text.pageCount === 1 ? '1 page' : `${text.pageCount} pages`;
  const images = text.figures.length > 0 ? ' Its page images are listed in img_mds.' : '';
  if (!text.hasTextLayer) {
    return ocr
      ? `This PDF is a scanned image (${pages}) and OCR found no readable text.${images}`
      : `This PDF is a scanned image with no text layer (${pages}); no text can be read (OCR is off).${images}`;
  }
  return `No text could be extracted from this PDF (${pages}).${images}`;
}
