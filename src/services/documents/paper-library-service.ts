import { AppError, notFound } from '../../domain/errors.js';
import { type IdentifierType, normalizeArxivId, normalizeDoi } from '../../domain/identifiers.js';
import { emptyPaper, type Paper, type PaperIdentifiers } from '../../domain/paper.js';
import { sha256Hex } from '../../platform/ids.js';
import type { PdfMetadata } from '../../ports/pdf-extractor.js';
import { restHints } from '../hint-vocabulary.js';
import type { ProjectSelector, ProjectService, ProjectTarget } from '../project-service.js';
import type { AddPaperInput, HintedCallOptions, PaperLibrary, PaperLookup } from '../services.js';
import { type DocumentStorage, looksLikePdf } from './document-storage.js';
import type { PdfParsing } from './pdf-parsing.js';
import type { RemoteDocuments } from './remote-documents.js';

/** A paper record as add_to_project returns it: the entry, plus a hint on what happened. */
export type AddedPaper = Paper & { hint?: string };

export interface PaperLibraryOptions {
  projects: ProjectService;
  documents: DocumentStorage;
  /** Parses in this process, or through a `parse-pdf` job when the job queue is shared. */
  parsing: PdfParsing;
  remote: RemoteDocuments;
  lookup: PaperLookup;
  /** Largest uploaded PDF in bytes. */
  uploadMaxBytes: number;
  /**
   * Told about each PDF filed with text (its `pdf_id`), after the response is decided: the
   * documents capability starts embedding its passages then, so the first question is warm.
   */
  onPdfFiled?: (tenantId: string, pdfId: string) => void;
}

interface PdfOrigin {
  /** The request parameter the PDF came from (named in 413/415/422 errors). */
  param: string;
  filename?: string | undefined;
  sourceUrl?: string | undefined;
  /** Metadata already known (from the index), preferred over what the PDF says. */
  known?: Paper;
}

/**
 * `add_to_project`: files a paper in a tenant's project from an upload, a PDF url or a typed
 * identifier. The PDF is parsed before anything is written (a broken one stores nothing; the parse
 * is cached for the first read), then the blob, then the document row and the entry, in one
 * transaction with the project a new `project_name` names; every step is idempotent, so adding the
 * same bytes or identifier again returns the same entry. A failed or killed add creates no project;
 * a blob left without its row by a kill is removed by the sweep (`storage/blob-sweep.ts`).
 */
export class PaperLibraryService implements PaperLibrary {
  constructor(private readonly options: PaperLibraryOptions) {}

  async add(
    tenantId: string,
    selector: ProjectSelector,
    input: AddPaperInput,
    options: HintedCallOptions = {},
  ): Promise<AddedPaper[]> {
    const project = await this.options.projects.target(tenantId, selector);
    switch (input.kind) {
      case 'upload':
        return [
          await this.addPdf(
            tenantId,
            project,
            input.bytes,
            { param: 'file', filename: input.filename },
            options,
          ),
        ];
      case 'url': {
        const remote = await this.options.remote.download(input.url, 'pdf_url');
        return [
          await this.addPdf(
            tenantId,
            project,
            remote.bytes,
            { param: 'pdf_url', sourceUrl: input.url },
            options,
          ),
        ];
      }
      case 'identifier':
        return [await this.addIdentifier(tenantId, project, input.identifier, options)];
    }
  }

  private async addIdentifier(
    tenantId: string,
    project: ProjectTarget,
    identifier: { type: IdentifierType; value: string },
    options: HintedCallOptions,
  ): Promise<AddedPaper> {
    const { signal, hints = restHints } = options;
    const label = `${identifier.type}:${identifier.value}`;
    const paper = await this.options.lookup.findByIdentifier(identifier, signal ? { signal } : {});
    if (!paper) throw notFound(`No paper with ${label} is known to this service's index`, 'paper_id');
    let reason = 'No open PDF is known for this paper';
    if (paper.pdf_url) {
      try {
        const remote = await this.options.remote.download(paper.pdf_url, 'paper_id');
        return await this.addPdf(
          tenantId,
          project,
          remote.bytes,
          { param: 'paper_id', sourceUrl: paper.pdf_url, known: paper },
          options,
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'internal' || signal?.aborted) throw error;
        reason = `Its open PDF (${paper.pdf_url}) could not be fetched (${error.message.replace(/\.$/, '')})`;
      }
    }
    const { paper: filed, created } = await project.file(paper, null);
    const stored = filed.pdf_id?.startsWith('PROJ:') ? filed.pdf_id : null;
    const where = `project "${project.name}"`;
    // Only a stored PDF (a PROJ: pdf_id) is advised for reading: a PDF_URL: one is the url that
    // just failed, and reading it would fail the same way.
    const hint = stored
      ? `Already in ${where} with its PDF; read it with ${hints.document(stored)}.`
      : `${created ? 'Filed in' : 'Already in'} ${where} with metadata only. ${reason}, so its full text is not available here; to read it, ${hints.providePdf()}.`;
    return { ...filed, hint };
  }

  private async addPdf(
    tenantId: string,
    project: ProjectTarget,
    bytes: Uint8Array,
    origin: PdfOrigin,
    options: HintedCallOptions,
  ): Promise<AddedPaper> {
    const { signal, hints = restHints } = options;
    if (bytes.byteLength > this.options.uploadMaxBytes && origin.param === 'file') {
      throw new AppError('payload_too_large', `file is larger than ${this.options.uploadMaxBytes} bytes`, {
        param: 'file',
      });
    }
    if (bytes.byteLength === 0)
      throw new AppError('unsupported_media_type', `${origin.param} is empty`, { param: origin.param });
    if (!looksLikePdf(bytes)) {
      throw new AppError('unsupported_media_type', `${origin.param} is not a PDF (no %PDF- header)`, {
        param: origin.param,
      });
    }
    const sha256 = sha256Hex(bytes);
    // Parse first: a broken or hostile PDF fails here (422) before anything is filed. A client that
    // goes away while the parse waits for its turn takes it out of the queue (and stores nothing);
    // with a shared queue it stops waiting, and the job parses on for the next try.
    const text = await this.options.parsing.parse(sha256, bytes, {
      lane: tenantId,
      signal,
      verifyStored: true,
    });
    signal?.throwIfAborted();
    const { documents } = this.options;
    const record = await documents.storeBytes(tenantId, bytes, {
      filename: origin.filename,
      sourceUrl: origin.sourceUrl,
      sha256,
    });
    const paper = origin.known
      ? { ...origin.known, pdf_url: origin.sourceUrl ?? origin.known.pdf_url ?? null }
      : await this.paperFromPdf(text.metadata, origin);
    const { paper: filed, project: filedIn, created, otherDocument } = await project.file(paper, record);
    if (otherDocument) {
      // Nothing holds these bytes (unless another tenant stores them): they are not kept.
      await documents.discardUnreferenced(sha256);
      // Same paper by identifier, other bytes: the entry keeps its PDF (its pdf_id stays valid).
      const hint = `Already in project "${filedIn.name}" with a different PDF (pdf_id=${filed.pdf_id ?? ''}); this PDF was not filed. To file this PDF instead, remove the entry (entry_id ${filed.entry_id ?? ''}) and add it again.`;
      return { ...filed, hint };
    }
    await documents.settle(record, bytes);
    if (filed.pdf_id && text.chunks.length > 0) this.options.onPdfFiled?.(tenantId, filed.pdf_id);
    const scan = text.hasTextLayer
      ? ''
      : ' It is a scan without a text layer, so no text can be read from it.';
    const hint = `${created ? 'Added to' : 'Already in'} project "${project.name}"; read it with ${hints.document(filed.pdf_id ?? '')}.${scan}`;
    return { ...filed, hint };
  }

  /** A record from what the PDF says, completed from the index when it names a known identifier. */
  private async paperFromPdf(metadata: PdfMetadata, origin: PdfOrigin): Promise<Paper> {
    const doi = normalizeDoi(metadata.doi);
    const arxiv = normalizeArxivId(metadata.arxivId);
    const candidates: Array<{ type: IdentifierType; value: string }> = [];
    if (doi) candidates.push({ type: 'DOI', value: doi });
    if (arxiv) candidates.push({ type: 'ARXIV', value: arxiv });
    for (const identifier of candidates) {
      const known = await this.options.lookup.findByIdentifier(identifier).catch(() => null);
      if (known) return { ...known, pdf_url: origin.sourceUrl ?? known.pdf_url ?? null };
    }
    const identifiers: PaperIdentifiers = {};
    if (doi) identifiers.doi = doi;
    if (arxiv) identifiers.arxiv = arxiv;
    const paper = emptyPaper(cleanTitle(metadata.title) || titleOfFile(origin) || 'Untitled document');
    return {
      ...paper,
      authors: metadata.authors ?? [],
      // As printed (decision 0050): the front matter's abstract, the year the paper prints (none
      // rather than the file's creation date).
      abstract: metadata.abstract ?? null,
      doi,
      year: metadata.year ?? null,
      publication_date: metadata.year ? String(metadata.year) : null,
      url: doi
        ? `https://doi.org/${doi}`
        : arxiv
          ? `https://arxiv.org/abs/${arxiv}`
          : (origin.sourceUrl ?? null),
      pdf_url: origin.sourceUrl ?? null,
      identifiers,
      source: origin.sourceUrl ? 'url' : 'upload',
    };
  }
}

/** A title as people type it: Unicode hyphens as `-`, single spaces. */
function cleanTitle(title: string | undefined): string | undefined {
  const cleaned = title
    ?.normalize('NFKC')
    .replace(/[\u2010\u2011]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned || undefined;
}

/** `my-paper_v2.pdf` → `my paper v2`, for PDFs that carry no title. */
function titleOfFile(origin: PdfOrigin): string | undefined {
  const name =
    origin.filename ?? (origin.sourceUrl ? new URL(origin.sourceUrl).pathname.split('/').pop() : undefined);
  const title = name
    ?.replace(/\.pdf$/i, '')
    .replace(/[_-]+/g, ' ')
    .trim();
  return title || undefined;
}
