import type { ReferenceReader } from '../../bibliography/reference-reading.js';
import { AppError } from '../../domain/errors.js';
import { identifierKey, parsePaperIdentifier } from '../../domain/identifiers.js';
import { identityKeys } from '../../domain/paper.js';
import type {
  CitationContextsResult,
  CitingSentence,
  ReferencesResult,
  VerifyReferencesResult,
} from '../../domain/references.js';
import { sha256Hex } from '../../platform/ids.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Cache } from '../../ports/cache.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { looksLikePdf } from '../documents/document-storage.js';
import type { DocumentText } from '../documents/document-text.js';
import type { PdfParsing } from '../documents/pdf-parsing.js';
import type { CitationFormat } from '../export/citation-formats.js';
import type { HeavyRunOptions, HeavyWork } from '../heavy-work.js';
import { restHints } from '../hint-vocabulary.js';
import { presentRecord } from '../search-service.js';
import type { HintedCallOptions, ReadOptions } from '../services.js';
import { HeavyResults } from './heavy-results.js';
import type { OnlineRecords } from './online-records.js';
import { ReferenceAnalyses } from './reference-analyses.js';
import {
  type CheckProgress,
  type CheckReport,
  checkReferenceEntries,
  checkReferences,
} from './reference-check.js';
import { scoreCandidate } from './reference-linker.js';
import { referenceEntriesOfText } from './reference-text.js';
import { contextView, partialHint, presentCheck, referencesHint, viewsOf } from './reference-views.js';
import { memoizedSearches } from './search-memo.js';

/** Reads a document's whole text under the full-text rules (the full-text service does). */
export interface DocumentTextReader {
  openText(
    tenantId: string,
    pdfRef: string,
    options?: Pick<ReadOptions, 'param' | 'signal' | 'localOnly'>,
  ): Promise<{ ref: string; text: DocumentText }>;
}

export interface ReferenceServiceOptions {
  documents: DocumentTextReader;
  index: PaperIndex;
  blobs: BlobStore;
  store: ProjectStore;
  /** Parses an uploaded PDF whose references are checked (the parse cache; nothing is filed). */
  parsing?: PdfParsing;
  /** Largest uploaded PDF a check reads (bytes). */
  uploadMaxBytes?: number;
  /**
   * The federated sources, when some are enabled: entries the local index does not resolve are
   * looked up there (DOI, arXiv id, then title) with the same checks (decision 0032). Absent
   * offline, and nothing leaves the machine.
   */
  online?: OnlineRecords;
  /** How long one request may spend asking the sources while linking a list (default 20 s). */
  onlineBudgetMs?: number;
  /** Reads big reference lists off the event loop (default: in this thread). */
  reader?: ReferenceReader;
  /**
   * The price of these requests (decision 0042): a tenant's share, the process's slots and each
   * request's time budget. Without it requests run as they come, unbounded.
   */
  budget?: HeavyWork;
  /** Where checks and citation contexts are kept, by content (decision 0042); none when absent. */
  cache?: Cache;
  /** How long they are kept, in seconds (default one day). */
  cacheTtlSeconds?: number;
}

/** What `verify` checks: a bibliography file, an uploaded PDF, or a stored or fetched PDF. */
export type VerifyInput =
  | { kind: 'bibliography'; text: string; format?: CitationFormat | undefined }
  /** A plain-text reference list (decision 0048), read by the PDF reference parser. */
  | { kind: 'text'; text: string; param?: string }
  | { kind: 'upload'; bytes: Uint8Array; param?: string }
  | { kind: 'document'; pdfRef: string; param?: string };

/** Bumped when a check's or citation contexts' output changes, so cached answers are not served. */
const resultsVersion = 'v1';

/**
 * References and citation contexts of stored PDFs, and reference checking (issue 17, decisions
 * 0031, 0032). A document's list and citing sentences are read from its stored text on first
 * request and its entries linked to the local index (`ReferenceAnalyses`). The public calls are
 * heavy work with a price (decision 0042): they run within the tenant's share and a time budget,
 * and checks and citation contexts are cached by content.
 */
export class ReferenceService {
  private readonly analyses: ReferenceAnalyses;
  private readonly results: HeavyResults;

  constructor(private readonly options: ReferenceServiceOptions) {
    this.analyses = new ReferenceAnalyses({
      index: options.index,
      blobs: options.blobs,
      reader: options.reader,
      online: options.online,
      onlineBudgetMs: options.onlineBudgetMs,
    });
    this.results = new HeavyResults(options.cache, options.cacheTtlSeconds ?? 86_400);
  }

  /** `GET /api/references`: the parsed reference list of a document with links and contexts. */
  async references(
    tenantId: string,
    pdfRef: string,
    options: HintedCallOptions & { param?: string } = {},
  ): Promise<ReferencesResult> {
    return this.heavy('references', tenantId, options.signal, { resumable: true }, (signal) =>
      this.documentReferences(tenantId, pdfRef, { ...options, signal }),
    );
  }

  /**
   * `references` outside the heavy-work budget, for callers that are heavy work themselves (the
   * project graph reads every stored PDF's list within its own budget).
   */
  async documentReferences(
    tenantId: string,
    pdfRef: string,
    options: HintedCallOptions & { param?: string } = {},
  ): Promise<ReferencesResult> {
    const hints = options.hints ?? restHints;
    const { ref, text } = await this.options.documents.openText(tenantId, pdfRef, {
      param: options.param ?? 'pdf_id',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const analysis = await this.analyses.analyse(text, options.signal);
    const references = viewsOf(analysis, text);
    return {
      pdf_id: ref,
      style: analysis.list?.style ?? null,
      references,
      hint: referencesHint(references, text, ref, hints, analysis),
    };
  }

  /**
   * `GET /api/citation_contexts`: sentences of the tenant's stored PDFs that cite the paper. An
   * entry cites it when its DOI or arXiv id is the paper's, when its stored link is to the paper,
   * or when it passes linking's checks against the paper itself (title, year, first author): no
   * list is linked for it, so a first call costs reading the lists, not a search per entry.
   */
  async citationContexts(
    tenantId: string,
    paperId: string,
    options: HintedCallOptions = {},
  ): Promise<CitationContextsResult> {
    const stoppedHint =
      'The reference lists read so far are remembered, so asking again is quicker; or file fewer PDFs per project.';
    return this.heavy('citation_contexts', tenantId, options.signal, { stoppedHint }, (signal) =>
      this.contextsWithin(tenantId, paperId, { ...options, signal }),
    );
  }

  private async contextsWithin(
    tenantId: string,
    paperId: string,
    options: HintedCallOptions & { signal: AbortSignal },
  ): Promise<CitationContextsResult> {
    const hints = options.hints ?? restHints;
    const identifier = parsePaperIdentifier(paperId, 'paper_id');
    const key = identifierKey(identifier);
    const found = await this.options.index.findByKeys([key]);
    const paper = found ? presentRecord(found) : null;
    const cited = new Set(paper ? identityKeys(paper) : [key]);
    const documents = await this.storedDocuments(tenantId);
    const cacheKey = this.results.contextsKey(
      tenantId,
      `${resultsVersion}:${key}:${options.hints ? 'mcp' : 'rest'}`,
      documents.map((document) => `${document.pdfId}\u0001${document.title}`),
      await this.analyses.version(),
    );
    const remembered = await this.results.get<CitationContextsResult>(cacheKey);
    if (remembered) return remembered;
    const contexts: CitingSentence[] = [];
    for (const document of documents) {
      options.signal.throwIfAborted();
      const { text } = await this.options.documents.openText(tenantId, document.pdfId, {
        param: 'paper_id',
        signal: options.signal,
      });
      const { list, contexts: citing } = await this.analyses.reading(text, options.signal);
      if (!list) continue;
      const links = await this.analyses.storedLinks(text);
      list.entries.forEach((entry, at) => {
        const link = links?.[at];
        const keys = [
          ...(link ? identityKeys(link.paper) : []),
          ...(entry.doi ? [`doi:${entry.doi}`] : []),
          ...(entry.arxiv ? [`arxiv:${entry.arxiv}`] : []),
        ];
        const citesIt =
          keys.some((candidate) => cited.has(candidate)) ||
          (found !== null && !link && scoreCandidate(entry, found) !== null);
        if (!citesIt) return;
        for (const context of citing.filter((item) => item.entry === at)) {
          contexts.push({
            pdf_id: document.pdfId,
            document_title: document.title,
            reference: entry.raw,
            ...contextView(context, text),
          });
        }
      });
    }
    const documentCount = new Set(contexts.map((context) => context.pdf_id)).size;
    const hint =
      contexts.length > 0
        ? `${contexts.length} sentence(s) in ${documentCount} of your stored PDFs cite this paper. Read one in place with ${hints.chunk('<pdf_id>', contexts[0]?.chunk ?? 1)}.`
        : `None of your stored PDFs cites ${paperId}${paper ? '' : ' (and the local index does not know it)'}; see a PDF's references with ${hints.references('<pdf_id>')}.`;
    const result = { paper, contexts, hint };
    await this.results.set(cacheKey, result);
    return result;
  }

  /**
   * `POST /api/verify_references`: every entry of a BibTeX/RIS/CSL file, or of a PDF's reference
   * list (uploaded, or stored/fetched as `pdf_id`), checked against the index — and the federated
   * sources when online. Answers are cached by content; a check stopped by its time budget keeps
   * what it did, and the same request goes on from there.
   */
  async verify(
    request: VerifyInput,
    options: HintedCallOptions & { tenantId?: string } = {},
  ): Promise<VerifyReferencesResult> {
    return this.heavy(
      'verify_references',
      options.tenantId ?? '',
      options.signal,
      { resumable: true },
      (signal) => this.verifyWithin(request, { ...options, signal }),
    );
  }

  private async verifyWithin(
    request: VerifyInput,
    options: HintedCallOptions & { tenantId?: string; signal: AbortSignal },
  ): Promise<VerifyReferencesResult> {
    const online = this.options.online;
    // Linking and checking an entry search the same title: one search serves both.
    const index = memoizedSearches(this.options.index);
    const context = {
      index,
      online,
      signal: options.signal,
      onlineUntil: performance.now() + (this.options.onlineBudgetMs ?? 20_000),
    };
    const version = `${resultsVersion}:${await this.analyses.version()}`;
    if (request.kind === 'bibliography') {
      const content = { bibliography: request.text, format: request.format };
      const key = this.results.checkKey(content, version);
      const remembered = await this.results.get<VerifyReferencesResult>(key);
      if (remembered) return remembered;
      const report = await this.checkKept(key, (progress) =>
        checkReferences(context, request.text, request.format, progress),
      );
      return this.keepCheck(key, content, presentCheck(report, true, online !== undefined));
    }
    if (request.kind === 'text') {
      const entries = referenceEntriesOfText(request.text, request.param ?? 'text');
      const content = { bibliography: request.text, format: 'text' };
      const key = this.results.checkKey(content, version);
      const remembered = await this.results.get<VerifyReferencesResult>(key);
      if (remembered) return remembered;
      const report = await this.checkKept(key, (progress) =>
        checkReferenceEntries(context, entries, [], progress),
      );
      return this.keepCheck(key, content, presentCheck(report, true, online !== undefined));
    }
    const text =
      request.kind === 'upload'
        ? await this.parseUpload(request.bytes, request.param ?? 'file', options)
        : await this.openDocument(request, options);
    const pdfId = request.kind === 'document' ? { pdf_id: text.ref } : {};
    const content = { documentText: `${text.text.origin}:${text.text.sha256}` };
    const key = this.results.checkKey(content, version);
    const remembered = await this.results.get<VerifyReferencesResult>(key);
    if (remembered) return { ...pdfId, ...remembered };
    const analysis = await this.analyses.analyse(text.text, options.signal, index);
    const report = await this.checkKept(key, (progress) =>
      checkReferenceEntries(context, analysis.list?.entries ?? [], analysis.links, progress),
    );
    const result = presentCheck(report, analysis.list !== null, online !== undefined);
    return { ...pdfId, ...(await this.keepCheck(key, content, result, analysis.pending)) };
  }

  /** Runs a check from where a stopped one left it; keeps its progress when it is stopped again. */
  private async checkKept(
    key: string,
    check: (progress: CheckProgress) => Promise<CheckReport>,
  ): Promise<CheckReport> {
    const progress = await this.results.progress(key);
    try {
      return await check(progress);
    } catch (error) {
      await this.results.keepProgress(key, progress);
      throw error;
    }
  }

  /**
   * Caches a finished check, unless some source did not answer (a later try may find more). Online
   * lookups move the index's version on: the answer is kept under the version it leaves.
   */
  private async keepCheck(
    key: string,
    content: Parameters<HeavyResults['checkKey']>[0],
    result: VerifyReferencesResult,
    pending = false,
  ): Promise<VerifyReferencesResult> {
    await this.results.forgetProgress(key);
    if (!result.hint.includes(partialHint) && !pending) {
      const leftAt = `${resultsVersion}:${await this.analyses.version()}`;
      await this.results.set(this.results.checkKey(content, leftAt), result);
    }
    return result;
  }

  /** Runs heavy work within the budget, when there is one. */
  private heavy<T>(
    operation: string,
    tenantId: string,
    signal: AbortSignal | undefined,
    options: Omit<HeavyRunOptions, 'signal'>,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const budget = this.options.budget;
    if (budget) return budget.run(operation, tenantId, work, { ...options, signal });
    return work(signal ?? new AbortController().signal);
  }

  private async openDocument(
    request: Extract<VerifyInput, { kind: 'document' }>,
    options: HintedCallOptions & { tenantId?: string },
  ): Promise<{ ref: string; text: DocumentText }> {
    const param = request.param ?? 'pdf_id';
    if (!options.tenantId)
      throw new AppError('unauthorized', 'Checking a stored PDF needs a tenant', { param });
    return this.options.documents.openText(options.tenantId, request.pdfRef, {
      param,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** The parse of an uploaded PDF (cached by content hash as add_to_project's; nothing is filed). */
  private async parseUpload(
    bytes: Uint8Array,
    param: string,
    options: HintedCallOptions & { tenantId?: string },
  ): Promise<{ ref: string; text: DocumentText }> {
    const limit = this.options.uploadMaxBytes;
    if (limit !== undefined && bytes.byteLength > limit) {
      throw new AppError('payload_too_large', `${param} is larger than ${limit} bytes`, { param });
    }
    if (bytes.byteLength === 0) throw new AppError('unsupported_media_type', `${param} is empty`, { param });
    if (!looksLikePdf(bytes)) {
      throw new AppError('unsupported_media_type', `${param} is not a PDF (no %PDF- header)`, { param });
    }
    if (!this.options.parsing)
      throw new AppError('unsupported_media_type', 'PDF checks are not available', { param });
    const sha256 = sha256Hex(bytes);
    try {
      const text = await this.options.parsing.parse(sha256, bytes, {
        lane: options.tenantId,
        signal: options.signal,
      });
      return { ref: `sha256:${sha256}`, text };
    } catch (error) {
      // A PDF that does not parse (broken, encrypted, too many pages) is the upload's fault: name it.
      if (error instanceof AppError && error.param === undefined && error.code !== 'internal') {
        throw new AppError(error.code, error.message, {
          param,
          cause: error,
          ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
        });
      }
      throw error;
    }
  }

  /** Drops the analyses of content `sha256` from memory: its blobs are being released (decision 0041). */
  forget(sha256: string): void {
    this.analyses.forget(sha256);
  }

  /** Every stored PDF of the tenant once (a document filed in two projects is read once). */
  private async storedDocuments(tenantId: string): Promise<Array<{ pdfId: string; title: string }>> {
    const seen = new Set<string>();
    const documents: Array<{ pdfId: string; title: string }> = [];
    for (const project of await this.options.store.listProjects(tenantId)) {
      for (const entry of await this.options.store.listEntries(tenantId, project.id)) {
        if (!entry.documentId || seen.has(entry.documentId)) continue;
        seen.add(entry.documentId);
        documents.push({ pdfId: `PROJ:${project.id}/${entry.documentId}`, title: entry.paper.title });
      }
    }
    return documents;
  }
}
