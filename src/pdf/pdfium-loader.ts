import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';

/**
 * The PDFium entry points the engine calls, straight on the WebAssembly exports. The package's own
 * wrappers go through Emscripten's `ccall` (argument conversion, stack save and restore), which
 * costs about a microsecond a call: a third of a page's time when asked for every character. The
 * raw exports take and return plain numbers (pointers into the WASM memory, 32-bit ints, doubles).
 */
export interface PdfiumApi {
  malloc(size: number): number;
  free(pointer: number): void;
  FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  FPDF_GetLastError(): number;
  FPDF_CloseDocument(document: number): void;
  FPDF_GetPageCount(document: number): number;
  FPDF_LoadPage(document: number, index: number): number;
  FPDF_ClosePage(page: number): void;
  FPDF_GetPageBoundingBox(page: number, rect: number): number;
  FPDFPage_GetRotation(page: number): number;
  FPDFText_LoadPage(page: number): number;
  FPDFText_ClosePage(textPage: number): void;
  FPDFText_CountChars(textPage: number): number;
  FPDFText_GetText(textPage: number, start: number, count: number, buffer: number): number;
  FPDFText_GetUnicode(textPage: number, index: number): number;
  FPDFText_GetTextObject(textPage: number, index: number): number;
  FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): number;
  FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): number;
  FPDFText_GetMatrix(textPage: number, index: number, matrix: number): number;
  FPDFText_GetFontSize(textPage: number, index: number): number;
  FPDFTextObj_GetFont(textObject: number): number;
  FPDFFont_GetBaseFontName(font: number, buffer: number, length: number): number;
  FPDFFont_GetWeight(font: number): number;
  FPDFFont_GetFlags(font: number): number;
  FPDFPage_CountObjects(page: number): number;
  FPDFPage_GetObject(page: number, index: number): number;
  FPDFPageObj_GetType(object: number): number;
  FPDFPageObj_GetBounds(object: number, left: number, bottom: number, right: number, top: number): number;
  FPDFPageObj_GetMatrix(object: number, matrix: number): number;
  FPDFPageObj_HasTransparency(object: number): number;
  FPDFFormObj_CountObjects(form: number): number;
  FPDFFormObj_GetObject(form: number, index: number): number;
  FPDFImageObj_GetImagePixelSize(image: number, width: number, height: number): number;
  FPDFImageObj_GetBitmap(image: number): number;
  FPDFImageObj_GetRenderedBitmap(document: number, page: number, image: number): number;
  FPDFImageObj_GetImageFilterCount(image: number): number;
  FPDFImageObj_GetImageFilter(image: number, index: number, buffer: number, length: number): number;
  FPDFImageObj_GetImageMetadata(image: number, page: number, metadata: number): number;
  FPDFImageObj_GetImageDataRaw(image: number, buffer: number, length: number): number;
  FPDFBitmap_GetWidth(bitmap: number): number;
  FPDFBitmap_GetHeight(bitmap: number): number;
  FPDFBitmap_GetStride(bitmap: number): number;
  FPDFBitmap_GetFormat(bitmap: number): number;
  FPDFBitmap_GetBuffer(bitmap: number): number;
  FPDFBitmap_Destroy(bitmap: number): void;
  FPDFBitmap_Create(width: number, height: number, alpha: number): number;
  FPDFBitmap_FillRect(
    bitmap: number,
    left: number,
    top: number,
    width: number,
    height: number,
    color: number,
  ): number;
  FPDF_RenderPageBitmap(
    bitmap: number,
    page: number,
    startX: number,
    startY: number,
    sizeX: number,
    sizeY: number,
    rotate: number,
    flags: number,
  ): void;
}

/** One PDFium instance: its exports, typed views of its memory, and a scratch area for out-parameters. */
export class PdfiumRuntime {
  readonly api: PdfiumApi;
  /** The package's wrappers, for the few calls that take strings (metadata keys). */
  readonly wrapped: WrappedPdfiumModule;
  /** 64 bytes for out-parameters (rectangles, matrices, coordinates). */
  readonly scratch: number;
  readonly #memory: WebAssembly.Memory;
  #buffer: ArrayBuffer | undefined;
  #u8 = new Uint8Array(0);
  #f32 = new Float32Array(0);
  #f64 = new Float64Array(0);
  #u32 = new Uint32Array(0);
  /** Set when PDFium trapped (out of memory, a bug): the instance must not be used again. */
  broken = false;

  constructor(wrapped: WrappedPdfiumModule, memory: WebAssembly.Memory) {
    this.wrapped = wrapped;
    this.api = wrapped.pdfium.wasmExports as unknown as PdfiumApi;
    this.#memory = memory;
    this.scratch = this.api.malloc(64);
  }

  /** WASM memory in bytes (it grows while a document needs it and never shrinks). */
  get memoryBytes(): number {
    return this.#memory.buffer.byteLength;
  }

  get u8(): Uint8Array {
    this.#refresh();
    return this.#u8;
  }

  get f32(): Float32Array {
    this.#refresh();
    return this.#f32;
  }

  get f64(): Float64Array {
    this.#refresh();
    return this.#f64;
  }

  get u32(): Uint32Array {
    this.#refresh();
    return this.#u32;
  }

  /** The `index`-th 32-bit float of the scratch area (an out-parameter PDFium wrote). */
  scratchFloat(index: number): number {
    return this.f32[(this.scratch >> 2) + index] as number;
  }

  /** The `index`-th unsigned 32-bit integer of the scratch area. */
  scratchUint(index: number): number {
    return this.u32[(this.scratch >> 2) + index] as number;
  }

  /** The views are rebuilt when the memory grew (growth replaces the ArrayBuffer). */
  #refresh(): void {
    // Growing WebAssembly memory detaches the old buffer (its length becomes 0): while the views'
    // buffer still has its bytes it is the current one, with no call into the Memory object, which
    // every coordinate read paid (decision 0053).
    if (this.#buffer !== undefined && this.#buffer.byteLength !== 0) return;
    const buffer = this.#memory.buffer;
    if (buffer === this.#buffer) return;
    this.#buffer = buffer;
    this.#u8 = new Uint8Array(buffer);
    this.#f32 = new Float32Array(buffer);
    this.#f64 = new Float64Array(buffer);
    this.#u32 = new Uint32Array(buffer);
  }
}

let compiled: Promise<WebAssembly.Module> | undefined;
let current: { runtime: PdfiumRuntime; limit: number } | undefined;

/**
 * The thread's PDFium instance, created on first use (load it ONLY inside a PDF worker thread). The
 * WebAssembly binary comes from the package's own file, never from the network, and is compiled
 * once per thread; a fresh instance (after a trap, or to give memory back) costs only its
 * instantiation. `memoryLimitBytes` caps the instance's memory: WASM memory lives outside the V8
 * heap, so the worker's heap limit does not bound it.
 */
export async function loadPdfium(memoryLimitBytes: number): Promise<PdfiumRuntime> {
  if (current && !current.runtime.broken && current.limit === memoryLimitBytes) return current.runtime;
  current = undefined;
  compiled ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm');
    return WebAssembly.compile(readFileSync(path));
  })();
  const module = await compiled;
  const { init } = await import('@embedpdf/pdfium');
  let memory: WebAssembly.Memory | undefined;
  const quiet = () => undefined;
  const overrides = {
    print: quiet,
    printErr: quiet,
    instantiateWasm(
      imports: Record<string, Record<string, unknown>>,
      receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) {
      const env = imports.env as Record<string, unknown>;
      const resize = env.emscripten_resize_heap as (requested: number) => number | boolean;
      // Refusing to grow makes PDFium's allocation fail; PDFium then traps, and the document fails.
      env.emscripten_resize_heap = (requested: number) =>
        requested >>> 0 > memoryLimitBytes ? 0 : resize(requested);
      // Synchronous (allowed off the browser's main thread), so a failure rejects init() rather than
      // leaving it pending; Emscripten then takes the returned exports as the instance's.
      const instance = new WebAssembly.Instance(module, imports as WebAssembly.Imports);
      memory = instance.exports.memory as WebAssembly.Memory;
      receive(instance, module);
      return instance.exports;
    },
  };
  const wrapped = await init(overrides as unknown as Parameters<typeof init>[0]);
  if (!memory) throw new Error('PDFium: the WebAssembly memory was not exported');
  wrapped.FPDF_InitLibrary();
  current = { runtime: new PdfiumRuntime(wrapped, memory), limit: memoryLimitBytes };
  return current.runtime;
}

/**
 * Drops the thread's instance when it trapped or holds more memory than `keepBytes` (a large
 * document grew it); the next document gets a fresh one and the old memory is garbage.
 */
export function releasePdfium(keepBytes: number): void {
  if (current && (current.runtime.broken || current.runtime.memoryBytes > keepBytes)) current = undefined;
}
