import { type ErrorCode, isAppError } from '../domain/errors.js';
import type { ParsedDocument, RenderedPage } from '../ports/pdf-extractor.js';
import { type ParseOptions, parseDocument } from './parse-document.js';
import { type RenderOptions, renderPage } from './render-page.js';

/** One request sent to a PDF worker thread: parse a PDF (the default), or draw one of its pages. */
export type PdfTask = ParseTask | RenderTask;

export interface ParseTask {
  kind?: 'parse';
  bytes: Uint8Array;
  options: ParseOptions;
}

export interface RenderTask {
  kind: 'render';
  bytes: Uint8Array;
  options: RenderOptions;
}

/**
 * What a worker sends back. Errors travel as data because an Error crossing a thread boundary
 * loses its class and fields (AppError's code and param among them).
 */
export type PdfTaskResult =
  | { ok: true; document: ParsedDocument }
  | { ok: true; page: RenderedPage }
  | { ok: false; code: ErrorCode; message: string; param?: string };

// pdf.js leaves some internal promises unobserved when a broken document makes it give up (font
// and image loads of a page it no longer needs). Each parse reports its own outcome, so such a
// rejection must not end the thread, let alone abort a neighbouring task.
process.on('unhandledRejection', () => undefined);

/** The piscina entry point: parses one PDF, or draws one page, inside this worker thread. */
export default async function parsePdfTask(task: PdfTask): Promise<PdfTaskResult> {
  try {
    if (task.kind === 'render') return { ok: true, page: await renderPage(task.bytes, task.options) };
    return { ok: true, document: await parseDocument(task.bytes, task.options) };
  } catch (error) {
    if (isAppError(error)) {
      return {
        ok: false,
        code: error.code,
        message: error.message,
        ...(error.param === undefined ? {} : { param: error.param }),
      };
    }
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'unprocessable', message: `The PDF could not be parsed (${detail}).` };
  }
}
