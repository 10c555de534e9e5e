import { Piscina } from 'piscina';
import { AppError } from '../domain/errors.js';
import type { PdfEngineName } from '../domain/pdf-engines.js';
import type { Logger } from '../platform/logger.js';
import { workerModule } from '../platform/worker-file.js';
import type {
  ParsedDocument,
  PdfExtractOptions,
  PdfExtractor,
  PdfRenderOptions,
  RenderedPage,
} from '../ports/pdf-extractor.js';
import { defaultChunkSizes } from './chunker.js';
import { defaultFigureLimits } from './figures.js';
import { ocrAvailable } from './ocr.js';
import { defaultParseOptions, type ParseOptions } from './parse-document.js';
import type { PdfTask, PdfTaskResult } from './pdf-worker.js';

/** Largest page image drawn (pixels): 2000 px wide up to a 1:3 page; longer pages are drawn narrower. */
const renderMaxPixels = 12_000_000;

export interface WorkerPdfExtractorOptions {
  /** The PDF library the workers read text and images with (default pdfium; decision 0011). */
  engine?: PdfEngineName;
  /** Worker threads (documents parsed at once). */
  threads: number;
  /** Per-document deadline; the worker is stopped (and replaced) when it passes. */
  timeoutMs: number;
  /**
   * JavaScript heap limit of each worker, in MB; PDFium's WebAssembly memory (outside the heap) is
   * capped at the same figure.
   */
  memoryMb: number;
  maxPages: number;
  maxBytes: number;
  /** Figure pixels per document; 0 disables figure extraction. */
  figurePixels: number;
  /** How long an idle worker stays alive (it keeps its PDF engine loaded), in ms. */
  idleTimeoutMs?: number;
  /** Told about a worker that failed between documents (the pool replaces it). */
  logger?: Pick<Logger, 'warn'>;
  /** OCR pages without a text layer with Tesseract (`tesseract` on PATH), in these languages. */
  ocr?: { languages: string; command?: string };
}

/**
 * `PdfExtractor` in a piscina pool of worker threads, on PDFium (WebAssembly) or pdf.js. Each worker
 * parses one document at a time with a heap limit (and a WASM memory cap); a document that overruns
 * its deadline or its memory has its worker stopped, and the pool starts a fresh one for the next
 * request. The engines are loaded only inside the workers (pdf.js' legacy build patches globals),
 * never on the event loop's thread.
 */
export class WorkerPdfExtractor implements PdfExtractor {
  readonly #pool: Piscina<PdfTask, PdfTaskResult>;
  readonly #options: WorkerPdfExtractorOptions;
  readonly #parseOptions: ParseOptions;

  constructor(options: WorkerPdfExtractorOptions) {
    this.#options = options;
    const ocrCommand = options.ocr?.command ?? 'tesseract';
    if (options.ocr && !ocrAvailable(ocrCommand)) {
      throw new Error(
        `ALEXANDRIA_PDF_OCR is on but "${ocrCommand} --version" does not run: install tesseract-ocr (and its language data) or turn OCR off.`,
      );
    }
    this.#parseOptions = {
      ...defaultParseOptions,
      engine: options.engine ?? defaultParseOptions.engine,
      engineMemoryMb: options.memoryMb,
      maxPages: options.maxPages,
      figures: { ...defaultFigureLimits, maxTotalPixels: options.figurePixels },
      chunks: defaultChunkSizes,
      ...(options.ocr
        ? { ocr: { command: ocrCommand, languages: options.ocr.languages, timeoutMs: options.timeoutMs } }
        : {}),
    };
    this.#pool = new Piscina({
      ...workerModule(new URL('./pdf-worker.js', import.meta.url)),
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      atomics: 'disabled',
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, stackSizeMb: 8 },
    });
    // A worker that fails while idle is reported here; without a listener the event would throw.
    this.#pool.on('error', (error: unknown) => {
      options.logger?.warn({ err: error }, 'a PDF worker thread failed between documents; it is replaced');
    });
  }

  async extract(bytes: Uint8Array, options: PdfExtractOptions = {}): Promise<ParsedDocument> {
    if (bytes.byteLength > this.#options.maxBytes) {
      throw new AppError(
        'payload_too_large',
        `The PDF is ${bytes.byteLength} bytes; at most ${this.#options.maxBytes} are parsed (ALEXANDRIA_PDF_MAX_MB).`,
        { param: 'file' },
      );
    }
    if (!looksLikePdf(bytes)) {
      throw new AppError('unprocessable', 'The file is not a PDF (no %PDF- header).', { param: 'file' });
    }
    // The engine may detach the buffer it parses, so the worker gets its own copy, moved rather than
    // cloned. (A copy by construction: a Buffer's slice() is a view that would move the caller's bytes.)
    const copy = new Uint8Array(bytes);
    const images = (options.images ?? true) && this.#options.figurePixels > 0;
    const task: PdfTask = { bytes: copy, options: { ...this.#parseOptions, images } };
    const result = await this.#run(task, options.signal, 'Parsing the PDF', 'parse');
    if (!result.ok) throw new AppError(result.code, result.message, { param: 'file' });
    if (!('document' in result))
      throw new AppError('internal', 'The PDF worker answered a parse with no document');
    return result.document;
  }

  async renderPage(bytes: Uint8Array, page: number, options: PdfRenderOptions): Promise<RenderedPage> {
    if (bytes.byteLength > this.#options.maxBytes) {
      throw new AppError(
        'payload_too_large',
        `The PDF is ${bytes.byteLength} bytes; at most ${this.#options.maxBytes} are read (ALEXANDRIA_PDF_MAX_MB).`,
      );
    }
    if (!looksLikePdf(bytes)) throw new AppError('unprocessable', 'The file is not a PDF (no %PDF- header).');
    const copy = new Uint8Array(bytes);
    const task: PdfTask = {
      kind: 'render',
      bytes: copy,
      options: {
        page,
        width: options.width,
        maxPixels: renderMaxPixels,
        maxImagePixels: this.#parseOptions.maxImagePixels,
        maxStreamBytes: this.#parseOptions.maxStreamBytes,
        engineMemoryMb: this.#options.memoryMb,
      },
    };
    const result = await this.#run(task, options.signal, 'Drawing the page', 'draw');
    if (!result.ok) {
      throw new AppError(result.code, result.message, result.param === 'page' ? { param: 'page' } : {});
    }
    if (!('page' in result)) throw new AppError('internal', 'The PDF worker answered a drawing with no page');
    return result.page;
  }

  /**
   * Runs a task on a worker under the per-document deadline: a worker that passes it, or its memory,
   * is stopped (the pool replaces it). `task.bytes` is moved to the worker.
   */
  async #run(task: PdfTask, callerSignal: AbortSignal | undefined, doing: string, verb: string) {
    callerSignal?.throwIfAborted();
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
    try {
      return await this.#pool.run(task, { signal, transferList: [task.bytes.buffer as ArrayBuffer] });
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (deadline.aborted) {
        throw new AppError(
          'timeout',
          `${doing} took longer than ${this.#options.timeoutMs} ms (ALEXANDRIA_PDF_TIMEOUT_MS).`,
          { ...(verb === 'parse' ? { param: 'file' } : {}), cause: error },
        );
      }
      throw workerFailure(error, this.#options.memoryMb, verb);
    }
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}

/** The header may follow some junk bytes; readers accept it within the first kilobyte. */
function looksLikePdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString(
    'latin1',
  );
  return head.includes('%PDF-');
}

function workerFailure(error: unknown, memoryMb: number, verb: string): AppError {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new AppError(
      'unprocessable',
      `The PDF needs more than ${memoryMb} MB of memory to ${verb} (ALEXANDRIA_PDF_MEMORY_MB).`,
      { ...(verb === 'parse' ? { param: 'file' } : {}), cause: error },
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new AppError(
    'unprocessable',
    `The PDF could not be ${verb === 'parse' ? 'parsed' : 'drawn'} (${detail}).`,
    {
      ...(verb === 'parse' ? { param: 'file' } : {}),
      cause: error,
    },
  );
}
