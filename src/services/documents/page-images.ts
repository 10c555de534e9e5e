import { formatDocumentRef, parseDocumentRef } from '../../domain/document-ref.js';
import { AppError, invalid, isAppError, notFound } from '../../domain/errors.js';
import type { DocumentRecord } from '../../domain/project.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { PdfExtractor } from '../../ports/pdf-extractor.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { contentFolder } from '../storage/blob-layout.js';
import type { DocumentStorage } from './document-storage.js';
import type { RemoteDocuments } from './remote-documents.js';

/**
 * Widths a page image may be asked at, in pixels, and the default; and the few widths pages are
 * drawn and stored at (decision 0041). An asked width is rounded up to the next stored one, so an
 * image is never blown up from a smaller one, and a page costs at most five drawings.
 */
export const pageImageWidths = {
  min: 200,
  max: 2000,
  default: 1000,
  stored: [250, 500, 1000, 1500, 2000],
} as const;

/** The stored width a request for `width` pixels is answered with: the smallest stored width ≥ it. */
export function storedPageWidth(width: number): number {
  return pageImageWidths.stored.find((stored) => stored >= width) ?? pageImageWidths.max;
}

/**
 * Bump when drawn pages change (renderer, flags, encoding), so cached images of the older drawing
 * are not served (and the sweep removes them).
 */
export const pageRenderRevision = 'r1';

/** `pages/ab/<sha256>/r1/p3-w1000.png`: one drawn page of a stored PDF at one width. */
export function pageImageBlobKey(sha256: string, page: number, width: number): string {
  return `${contentFolder('pages', sha256)}/${pageRenderRevision}/p${page}-w${width}.png`;
}

/**
 * True for a drawn page's path inside its content folder (`r1/p3-w1000.png`) that no request can
 * read any more: of another revision, or at a width that is not stored (an older release cached
 * every width from 200 to 2000).
 */
export function isStalePageImage(pathInFolder: string): boolean {
  const match = /^([^/]+)\/p\d+-w(\d+)\.png$/.exec(pathInFolder);
  if (!match) return false;
  const [, revision, width] = match as unknown as [string, string, string];
  return (
    revision !== pageRenderRevision || !(pageImageWidths.stored as readonly number[]).includes(Number(width))
  );
}

/** A drawn page: the PNG and its size in pixels (read from the PNG's header). */
export interface PageImage {
  png: Uint8Array;
  /** The stored width asked for, or less for a page too long to draw that wide (12 Mpx at most). */
  width: number;
  height: number;
}

/** A page image with its size, read from the PNG's IHDR chunk (width and height at bytes 16–23). */
function pageImageOf(png: Uint8Array): PageImage {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return png.byteLength >= 24
    ? { png, width: view.getUint32(16), height: view.getUint32(20) }
    : { png, width: 0, height: 0 };
}

export interface PageImageRequest {
  /** 1-based. */
  page: number;
  /** Pixels (default 1000), rounded up to a stored width. */
  width?: number;
  /** The request parameter that carried the reference (errors name it). */
  param?: string;
}

export interface PageImageServiceOptions {
  store: Pick<ProjectStore, 'findProject' | 'getDocument' | 'listEntries' | 'findDocumentBySha256'>;
  documents: DocumentStorage;
  blobs: BlobStore;
  extractor: PdfExtractor;
  /** Remote PDFs read before: a url reference resolves to the tenant's stored copy, if any. */
  remote?: Pick<RemoteDocuments, 'knownHash'>;
}

/**
 * Page images of a tenant's stored PDFs (`GET /api/page_image`), for showing a quote or chunk on
 * its page: drawn in a PDF worker (PDFium) and kept in the BlobStore by (content hash, page,
 * width), so a page is drawn once and read from storage after that. Concurrent requests for the
 * same image share one drawing. Only stored PDFs are drawn: the caller's `PROJ:` documents, or a
 * url whose bytes the caller stored (add_to_project); a remote PDF only read is never downloaded
 * again for a picture.
 */
export class PageImageService {
  private readonly inflight = new Map<string, Promise<Uint8Array>>();

  constructor(private readonly options: PageImageServiceOptions) {}

  /**
   * The PNG of page `request.page` at the stored width the asked one rounds up to. 404 (naming the
   * reference's param) for no such stored PDF, 400 `page` past its last page.
   */
  async pageImage(tenantId: string, pdfRef: string, request: PageImageRequest): Promise<PageImage> {
    const param = request.param ?? 'pdf_id';
    const asked = request.width ?? pageImageWidths.default;
    if (!Number.isInteger(asked) || asked < pageImageWidths.min || asked > pageImageWidths.max) {
      throw invalid(
        'width',
        `width must be an integer from ${pageImageWidths.min} to ${pageImageWidths.max}`,
      );
    }
    const width = storedPageWidth(asked);
    if (!Number.isInteger(request.page) || request.page < 1) {
      throw invalid('page', 'page must be an integer from 1');
    }
    const record = await this.storedDocument(tenantId, pdfRef, param);
    const key = pageImageBlobKey(record.sha256, request.page, width);
    const cached = await this.options.blobs.get(key);
    if (cached) return pageImageOf(cached);
    let running = this.inflight.get(key);
    if (!running) {
      running = this.draw(record, key, request.page, width, param).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    return pageImageOf(await running);
  }

  private async draw(
    record: DocumentRecord,
    key: string,
    page: number,
    width: number,
    param: string,
  ): Promise<Uint8Array> {
    const bytes = await this.options.documents.bytes(record);
    let png: Uint8Array;
    try {
      // No caller's abort stops a drawing others may share; the extractor's deadline bounds it, and
      // a drawing whose caller left is kept for the next request.
      ({ png } = await this.options.extractor.renderPage(bytes, page, { width }));
    } catch (error) {
      // The extractor's errors name `page` when the page is out of range; the rest concern the document.
      if (isAppError(error) && error.param === undefined) {
        throw new AppError(error.code, error.message, { param, cause: error });
      }
      throw error;
    }
    await this.options.blobs.put(key, png, { contentType: 'image/png' });
    return png;
  }

  /**
   * The caller's stored PDF a reference names: a `PROJ:` document filed in one of the tenant's
   * projects (checked as /api/fulltext checks it), or a url whose bytes the tenant stored. Anything
   * else is a 404 that does not tell whether it exists elsewhere.
   */
  private async storedDocument(tenantId: string, pdfRef: string, param: string): Promise<DocumentRecord> {
    const ref = parseDocumentRef(pdfRef, param);
    const canonical = formatDocumentRef(ref);
    const { store } = this.options;
    if (ref.kind === 'project') {
      const missing = () => notFound(`No document ${canonical} in your projects`, param);
      const project = await store.findProject(tenantId, ref.project);
      if (!project) throw missing();
      const record = await store.getDocument(tenantId, ref.documentId);
      if (!record) throw missing();
      const entries = await store.listEntries(tenantId, project.id);
      if (!entries.some((entry) => entry.documentId === record.id)) throw missing();
      return record;
    }
    const sha256 = await this.options.remote?.knownHash(ref.url);
    const record = sha256 ? await store.findDocumentBySha256(tenantId, sha256) : null;
    if (!record) {
      throw notFound(
        `${canonical} is not stored in your projects: page images are drawn from stored PDFs (add it with add_to_project)`,
        param,
      );
    }
    return record;
  }
}
