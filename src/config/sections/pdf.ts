import { z } from 'zod';
import { pdfEngineNames } from '../../domain/pdf-engines.js';
import { booleanText, envVar, positiveInt } from '../env-var.js';

/** PDF parsing: the worker pool and the limits every document is parsed within. */
export const pdfSection = {
  engine: envVar('ALEXANDRIA_PDF_ENGINE', z.enum(pdfEngineNames), {
    default: 'pdfium',
    description:
      'PDF library the parser reads text and images with: pdfium (PDFium as WebAssembly, several times faster here) or pdfjs (Mozilla pdf.js). Both feed the same layout, chunking and figure stages.',
  }),
  workerThreads: envVar('ALEXANDRIA_PDF_WORKER_THREADS', positiveInt.optional(), {
    description:
      'Worker threads that parse PDFs (each parses one document at a time, off the event loop). More threads than CPU cores does not help. Unset: 2 (1 on one core); beside a local chat model, its share of ALEXANDRIA_CPU_THREADS (a quarter, at least 1).',
  }),
  timeoutMs: envVar('ALEXANDRIA_PDF_TIMEOUT_MS', positiveInt, {
    default: '60000',
    description:
      'Longest time one PDF may take to parse; the worker is then stopped and replaced, and the request fails with 504.',
  }),
  memoryMb: envVar('ALEXANDRIA_PDF_MEMORY_MB', z.coerce.number().int().min(64), {
    default: '1024',
    description:
      "JavaScript heap limit of each PDF worker thread, in MB, and the cap on PDFium's WebAssembly memory. A document that needs more fails with 422; the process is unaffected.",
  }),
  maxPages: envVar('ALEXANDRIA_PDF_MAX_PAGES', positiveInt, {
    default: '2000',
    description: 'Documents with more pages are refused with 413.',
  }),
  maxMb: envVar('ALEXANDRIA_PDF_MAX_MB', positiveInt, {
    default: '100',
    description: 'Largest PDF the parser accepts, in MB (413 above).',
  }),
  figureMegapixels: envVar('ALEXANDRIA_PDF_FIGURE_MEGAPIXELS', z.coerce.number().int().min(0), {
    default: '40',
    description:
      'Pixels of figures extracted per document, in millions (images are scaled to at most 2000 px a side); 0 turns figure extraction off.',
  }),
  ocr: envVar('ALEXANDRIA_PDF_OCR', booleanText, {
    default: 'false',
    description:
      'Recognise the text of scanned pages (no text layer) with Tesseract; needs the tesseract command (apt install tesseract-ocr). Off: a scan gets a hint instead of chunks.',
  }),
  ocrLanguages: envVar(
    'ALEXANDRIA_PDF_OCR_LANGUAGES',
    z.string().regex(/^[a-z_]+(\+[a-z_]+)*$/, 'expected e.g. eng or eng+deu'),
    {
      default: 'eng',
      description: 'Tesseract languages for OCR, joined by + (their traineddata packages must be installed).',
    },
  ),
};
