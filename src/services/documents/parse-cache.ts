import { LRUCache } from 'lru-cache';
import { AppError, type ErrorCode } from '../../domain/errors.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Cache } from '../../ports/cache.js';
import {
  type FigureFormat,
  figureFormats,
  type ParsedDocument,
  type PdfExtractor,
} from '../../ports/pdf-extractor.js';
import { FairSlots } from '../fair-lanes.js';
import { type DocumentText, figureBlobKey, parsedBlobKey } from './document-text.js';

export interface ParseCacheOptions {
  blobs: BlobStore;
  extractor: PdfExtractor;
  /** Remembers failed parses, so a hostile PDF sent again fails fast instead of parsing again. */
  cache: Cache;
  /** Changes whenever the parser's output changes; old parses are then ignored. */
  parserVersion: string;
  /** Parsed documents kept in memory (whole documents; a 40-page paper is ~150 kB). */
  memoryEntries?: number;
  /** How long a failed parse is remembered, in seconds. */
  failureTtlSeconds?: number;
  /**
   * Parses at once (the extractor's worker threads; default 2). Parses beyond it wait in their
   * tenant's lane and lanes take turns, so one tenant's big uploads do not hold up everyone else's.
   */
  concurrency?: number;
}

export interface ParseOptions {
  /** Whose turn the parse waits for (the tenant; default one shared lane). */
  lane?: string | undefined;
  /** Stops this caller waiting; a parse nobody waits for leaves its lane before it starts. */
  signal?: AbortSignal | undefined;
  /**
   * Trust a parse held in memory only while its stored copy exists (one `has`): for adds, whose
   * content may have been released (figures deleted) by another process since it was read here.
   */
  verifyStored?: boolean | undefined;
}

/** Failures that are a property of the bytes (not of load), and so worth remembering. */
const lastingFailures = new Set<ErrorCode>(['unprocessable', 'payload_too_large', 'timeout']);

/** True for a parse failure the cache remembers: parsing the same bytes again would fail the same way. */
export function isLastingParseFailure(error: unknown): error is AppError {
  return error instanceof AppError && lastingFailures.has(error.code);
}

/** A remembered failure as stored in the cache. */
interface StoredFailure {
  code: ErrorCode;
  message: string;
  param?: string;
}

/**
 * Parsed PDFs by content hash: memory, then the BlobStore, then the parser. Concurrent first reads
 * of one document share a single parse (single flight), whichever tenants ask. Parses take turns
 * between tenants (`FairSlots`, docs/decisions/0018-fair-questions.md): at most `concurrency` run,
 * and when one ends the next tenant in turn starts its oldest. Figures are written before the JSON,
 * which acts as the commit marker: a crash mid-write leaves no parse that points at missing figures.
 */
export class ParseCache {
  private readonly memory: LRUCache<string, DocumentText>;
  private readonly turns: FairSlots;

  constructor(private readonly options: ParseCacheOptions) {
    this.memory = new LRUCache({ max: options.memoryEntries ?? 64 });
    this.turns = new FairSlots(options.concurrency ?? 2);
  }

  /** Parses waiting for their turn, the lanes (tenants) they wait in, and parses running. */
  get parsing(): { waiting: number; lanes: number; running: number } {
    return this.turns.size;
  }

  get parserVersion(): string {
    return this.options.parserVersion;
  }

  /** The parse of the PDF with hash `sha256`, when stored; never parses. */
  async lookup(
    sha256: string,
    options: Pick<ParseOptions, 'verifyStored'> = {},
  ): Promise<DocumentText | null> {
    const key = parsedBlobKey(sha256, this.options.parserVersion);
    const remembered = this.memory.get(sha256);
    if (remembered && !(options.verifyStored && !(await this.options.blobs.has(key)))) return remembered;
    this.memory.delete(sha256);
    const stored = await this.options.blobs.get(key);
    if (!stored) return null;
    const text = JSON.parse(Buffer.from(stored).toString('utf8')) as DocumentText;
    this.memory.set(sha256, text);
    return text;
  }

  /**
   * The parse of the PDF with hash `sha256`, parsing `loadBytes()` on a miss, in `lane`'s turn. A
   * waiting parse is shared by every caller and waits in each of their lanes (it starts at the first
   * of their turns). A caller's abort stops its wait; a parse that has started is not cancelled (the
   * extractor's own time limit bounds it), so other callers and the cache still get it. The bytes are
   * loaded when the turn comes.
   */
  async get(
    sha256: string,
    loadBytes: () => Promise<Uint8Array>,
    options: ParseOptions = {},
  ): Promise<DocumentText> {
    const cached = await this.lookup(sha256, options);
    if (cached) return cached;
    return this.turns.run(options.lane ?? '', () => this.parseAndStore(sha256, loadBytes), {
      key: sha256,
      signal: options.signal,
    });
  }

  /**
   * The error a parse of these bytes failed with (for a reason of the bytes, in any process sharing
   * the cache) while it is remembered; null otherwise.
   */
  async rememberedFailure(sha256: string): Promise<AppError | null> {
    const failure = await this.options.cache.get<StoredFailure>(this.failureKey(sha256));
    if (!failure) return null;
    return new AppError(
      failure.code,
      failure.message,
      failure.param === undefined ? {} : { param: failure.param },
    );
  }

  private failureKey(sha256: string): string {
    return `parse-failure:${this.options.parserVersion}:${sha256}`;
  }

  private async parseAndStore(sha256: string, loadBytes: () => Promise<Uint8Array>): Promise<DocumentText> {
    const failure = await this.rememberedFailure(sha256);
    if (failure) throw failure;
    // Another process may have finished the parse while we waited for our turn.
    const stored = await this.lookup(sha256);
    if (stored) return stored;

    let parsed: ParsedDocument;
    try {
      // A private copy: extractors may transfer (detach) the buffer they get, and the caller still
      // needs its bytes (to store them). A Node Buffer's slice() would share memory, so copy here.
      parsed = await this.options.extractor.extract(new Uint8Array(await loadBytes()), { images: true });
    } catch (error) {
      if (isLastingParseFailure(error)) {
        const stored: StoredFailure = { code: error.code, message: error.message };
        if (error.param !== undefined) stored.param = error.param;
        await this.options.cache.set(this.failureKey(sha256), stored, this.options.failureTtlSeconds ?? 3600);
      }
      throw error;
    }
    const text: DocumentText = {
      sha256,
      origin: 'pdf',
      pageCount: parsed.pageCount,
      hasTextLayer: parsed.hasTextLayer,
      metadata: parsed.metadata,
      chunks: parsed.chunks,
      figures: parsed.figures.map(({ image: _image, ...figure }) => figure),
      ...(parsed.pageSizes ? { pageSizes: parsed.pageSizes } : {}),
    };
    for (const figure of parsed.figures) {
      await this.options.blobs.put(figureBlobKey(sha256, figure.id, figure.format), figure.image, {
        contentType: figureFormats[figure.format].mediaType,
      });
    }
    await this.options.blobs.put(
      parsedBlobKey(sha256, this.options.parserVersion),
      Buffer.from(JSON.stringify(text)),
      { contentType: 'application/json' },
    );
    this.memory.set(sha256, text);
    return text;
  }

  /** Drops the parse of `sha256` from memory (its content is being released). */
  forget(sha256: string): void {
    this.memory.delete(sha256);
  }

  /** The image file of a figure (PNG or JPEG), or null when absent. */
  figure(sha256: string, figureId: string, format: FigureFormat = 'png'): Promise<Uint8Array | null> {
    return this.options.blobs.get(figureBlobKey(sha256, figureId, format));
  }
}
