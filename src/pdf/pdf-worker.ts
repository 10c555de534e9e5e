import { type ErrorCode, isAppError } from '../domain/errors.js';
import type { ParsedDocument } from '../ports/pdf-extractor.js';
import { type ParseOptions, parseDocument } from './parse-document.js';

/** One parse request sent to a PDF worker thread. */
export interface PdfTask {
  bytes: Uint8Array;
  options: ParseOptions;
}

/**
 * What a worker sends back. Errors travel as data because an Error crossing a thread boundary
 * loses its class and fields (AppError's code among them).
 */
export type PdfTaskResult =
  | { ok: true; document: ParsedDocument }
  | { ok: false; code: ErrorCode; message: string };

// pdf.js leaves some internal promises unobserved when a broken document makes it give up (font
// and image loads of a page it no longer needs). Each parse reports its own outcome, so such a
// rejection must not end the thread, let alone abort a neighbouring task.
process.on('unhandledRejection', () => undefined);

/** The piscina entry point: parses one PDF inside this worker thread. */
export default async function parsePdfTask(task: PdfTask): Promise<PdfTaskResult> {
  try {
    return { ok: true, document: await parseDocument(task.bytes, task.options) };
  } catch (error) {
    if (isAppError(error)) return { ok: false, code: error.code, message: error.message };
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'unprocessable', message: `The PDF could not be parsed (${detail}).` };
  }
}
