import { createRequire } from 'node:module';
import { dirname } from 'node:path';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<PdfJs> | undefined;

/**
 * Loads pdf.js (legacy build, the one that runs on Node 20) once per thread. Import it ONLY inside
 * a PDF worker thread: the legacy build installs core-js polyfills on the thread's globals,
 * including a spec-pedantic `Array.prototype.push` and `JSON.parse`/`JSON.stringify` replacements.
 * The natives are put back after loading: they behave the same for pdf.js, and the polyfilled
 * `push` alone costs about 10% of parsing time (measured with --cpu-prof).
 */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const natives = {
      push: Array.prototype.push,
      parse: JSON.parse,
      stringify: JSON.stringify,
    };
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    // pdf.js parses on this thread through its "fake worker"; loading the worker module now (rather
    // than at the first getDocument) lets its polyfills be undone below too.
    const workerModule = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
    const worker: unknown = await import(workerModule);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    Object.defineProperty(Array.prototype, 'push', {
      value: natives.push,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    JSON.parse = natives.parse;
    JSON.stringify = natives.stringify;
    return pdfjs;
  })();
  return loading;
}

/**
 * Folders of pdf.js' data files. pdf.js 5 has no Node defaults for them and accepts plain file
 * paths ending in '/': cMaps for CID fonts (CJK text), standard fonts for non-embedded Type1 fonts,
 * WASM decoders for JPX/JBIG2 images, ICC profiles.
 */
export function pdfJsDataPaths(): {
  cMapUrl: string;
  standardFontDataUrl: string;
  wasmUrl: string;
  iccUrl: string;
} {
  const root = `${dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/`;
  return {
    cMapUrl: `${root}cmaps/`,
    standardFontDataUrl: `${root}standard_fonts/`,
    wasmUrl: `${root}wasm/`,
    iccUrl: `${root}iccs/`,
  };
}
