import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/errors.js';
import { identifierKey, parsePaperIdentifier } from '../../domain/identifiers.js';
import { anchorOf } from '../../domain/page-anchors.js';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type {
  CitationContextsResult,
  CitingSentence,
  ReferencesResult,
  ReferenceView,
  VerifyReferencesResult,
} from '../../domain/references.js';
import { type CitationContext, findCitationContexts } from '../../pdf/citation-markers.js';
import { parseReferenceList, type ReferenceEntry, type ReferenceList } from '../../pdf/references.js';
import { sha256Hex } from '../../platform/ids.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { findQuote } from '../../text/letter-stream.js';
import type { CitationFormat } from '../citation/citation-formats.js';
import { looksLikePdf } from '../documents/document-storage.js';
import type { DocumentText } from '../documents/document-text.js';
import type { PdfParsing } from '../documents/pdf-parsing.js';
import { type HintVocabulary, restHints } from '../hint-vocabulary.js';
import { presentRecord } from '../search-service.js';
import type { HintedCallOptions, ReadOptions } from '../services.js';
import { contentFolder, safeSegment } from '../storage/blob-layout.js';
import type { OnlineRecords } from './online-records.js';
import { type CheckReport, checkReferenceEntries, checkReferences } from './reference-check.js';
import { type ReferenceLink, ReferenceLinker } from './reference-linker.js';
import { typedIdOf } from './typed-id.js';

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
}

/** What `verify` checks: a bibliography file, an uploaded PDF, or a stored or fetched PDF. */
export type VerifyInput =
  | { kind: 'bibliography'; text: string; format?: CitationFormat | undefined }
  | { kind: 'upload'; bytes: Uint8Array; param?: string }
  | { kind: 'document'; pdfRef: string; param?: string };

/** A document's references: the list, the citing sentences and the links (with the index version they hold for). */
interface Analysis {
  list: ReferenceList | null;
  contexts: CitationContext[];
  links: Array<ReferenceLink | null>;
  /** Entries online linking has not finished with (a source failed, or the time budget ran out). */
  pending: boolean;
}

/** Bumped when parsing or linking changes, so stored links are recomputed. */
const referencesVersion = 'r1';
/** Entries linked through the sources at once. */
const onlineConcurrency = 4;

/**
 * References and citation contexts of stored PDFs, and reference checking (issue 17, decision 0031).
 * A document's list and citing sentences are parsed from its stored text on first request (a few
 * ms) and its entries linked to the local index (a search per entry); the links are stored beside
 * the document in the BlobStore with the index's data version, and linked again when the index
 * has changed since.
 */
export class ReferenceService {
  private readonly linker: ReferenceLinker;
  private readonly memory = new LRUCache<string, { version: string; analysis: Analysis }>({ max: 64 });

  constructor(private readonly options: ReferenceServiceOptions) {
    this.linker = new ReferenceLinker(options.index);
  }

  /** `GET /api/references`: the parsed reference list of a document with links and contexts. */
  async references(
    tenantId: string,
    pdfRef: string,
    options: HintedCallOptions & { param?: string } = {},
  ): Promise<ReferencesResult> {
    const hints = options.hints ?? restHints;
    const { ref, text } = await this.options.documents.openText(tenantId, pdfRef, {
      param: options.param ?? 'pdf_id',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const analysis = await this.analyse(text, options.signal);
    const references = viewsOf(analysis, text);
    return {
      pdf_id: ref,
      style: analysis.list?.style ?? null,
      references,
      hint: referencesHint(references, text, ref, hints, analysis),
    };
  }

  /** `GET /api/citation_contexts`: sentences of the tenant's stored PDFs that cite the paper. */
  async citationContexts(
    tenantId: string,
    paperId: string,
    options: HintedCallOptions = {},
  ): Promise<CitationContextsResult> {
    const hints = options.hints ?? restHints;
    const identifier = parsePaperIdentifier(paperId, 'paper_id');
    const key = identifierKey(identifier);
    const found = await this.options.index.findByKeys([key]);
    const paper = found ? presentRecord(found) : null;
    const cited = new Set(paper ? identityKeys(paper) : [key]);
    const contexts: CitingSentence[] = [];
    for (const document of await this.storedDocuments(tenantId)) {
      options.signal?.throwIfAborted();
      const { text } = await this.options.documents.openText(tenantId, document.pdfId, { param: 'paper_id' });
      const analysis = await this.analyse(text);
      analysis.list?.entries.forEach((entry, at) => {
        const link = analysis.links[at];
        const keys = [
          ...(link ? identityKeys(link.paper) : []),
          ...(entry.doi ? [`doi:${entry.doi}`] : []),
          ...(entry.arxiv ? [`arxiv:${entry.arxiv}`] : []),
        ];
        if (!keys.some((candidate) => cited.has(candidate))) return;
        for (const context of analysis.contexts.filter((item) => item.entry === at)) {
          contexts.push({
            pdf_id: document.pdfId,
            document_title: document.title,
            reference: entry.raw,
            ...contextView(context, text),
          });
        }
      });
    }
    const documents = new Set(contexts.map((context) => context.pdf_id)).size;
    const hint =
      contexts.length > 0
        ? `${contexts.length} sentence(s) in ${documents} of your stored PDFs cite this paper. Read one in place with ${hints.chunk('<pdf_id>', contexts[0]?.chunk ?? 1)}.`
        : `None of your stored PDFs cites ${paperId}${paper ? '' : ' (and the local index does not know it)'}; see a PDF's references with ${hints.references('<pdf_id>')}.`;
    return { paper, contexts, hint };
  }

  /**
   * `POST /api/verify_references`: every entry of a BibTeX/RIS/CSL file, or of a PDF's reference
   * list (uploaded, or stored/fetched as `pdf_id`), checked against the index — and the federated
   * sources when online.
   */
  async verify(
    request: VerifyInput,
    options: HintedCallOptions & { tenantId?: string } = {},
  ): Promise<VerifyReferencesResult> {
    const context = {
      index: this.options.index,
      online: this.options.online,
      signal: options.signal,
      onlineUntil: performance.now() + (this.options.onlineBudgetMs ?? 20_000),
    };
    let report: CheckReport;
    let pdfId: string | undefined;
    let listed = true;
    if (request.kind === 'bibliography') {
      report = await checkReferences(context, request.text, request.format);
    } else {
      const text =
        request.kind === 'upload'
          ? await this.parseUpload(request.bytes, request.param ?? 'file', options)
          : await this.openDocument(request, options);
      if (request.kind === 'document') pdfId = text.ref;
      const analysis = await this.analyse(text.text, options.signal);
      listed = analysis.list !== null;
      report = await checkReferenceEntries(context, analysis.list?.entries ?? [], analysis.links);
    }
    const results = report.results.map((result) => ({
      ...result,
      paper: result.paper ? presentRecord(result.paper) : null,
      preprint: result.preprint ? presentRecord(result.preprint) : null,
      published: result.published ? presentRecord(result.published) : null,
    }));
    return {
      ...(pdfId ? { pdf_id: pdfId } : {}),
      results,
      counts: report.counts,
      hint: verifyHint(report, listed, this.options.online !== undefined),
    };
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
    for (const key of [...this.memory.keys()]) if (key.endsWith(`:${sha256}`)) this.memory.delete(key);
  }

  /** The analysis of a text, from memory, the BlobStore, or computed (and stored). */
  private async analyse(text: DocumentText, signal?: AbortSignal): Promise<Analysis> {
    const online = this.options.online;
    const version = `${referencesVersion}:${await this.options.index.dataVersion()}${online ? ':online' : ''}`;
    const key = `${text.origin}:${text.sha256}`;
    const remembered = this.memory.get(key);
    if (remembered?.version === version && !remembered.analysis.pending) return remembered.analysis;
    const list = parseReferenceList(text.chunks);
    const contexts = list ? findCitationContexts(text.chunks, list) : [];
    const blobKey = `${contentFolder('references', text.sha256)}/${safeSegment(text.origin)}-${referencesVersion}.json`;
    const entries = list?.entries ?? [];
    let links: Array<ReferenceLink | null> | null = null;
    let pending = false;
    let changed = false;
    if (remembered?.version === version) {
      links = remembered.analysis.links;
      pending = true;
    } else {
      const stored = await this.options.blobs.get(blobKey);
      if (stored) {
        const parsed = JSON.parse(Buffer.from(stored).toString('utf8')) as {
          version?: string;
          links?: unknown;
          pending?: unknown;
        };
        if (parsed.version === version && Array.isArray(parsed.links)) {
          links = parsed.links as Array<ReferenceLink | null>;
          pending = parsed.pending === true;
        }
      }
    }
    if (!links || links.length !== entries.length) {
      links = [];
      for (const entry of entries) links.push(await this.linker.link(entry));
      pending = online !== undefined && links.some((link) => link === null);
      changed = true;
    }
    if (pending && online) {
      pending = await this.linkOnline(entries, links, online, signal);
      changed = true;
    }
    if (changed) {
      // Online lookups keep the records they resolve in the index (its version moves on): the links
      // are stored under the version they leave, so the next read does not link them all again.
      const stored = online
        ? `${referencesVersion}:${await this.options.index.dataVersion()}:online`
        : version;
      await this.options.blobs.put(
        blobKey,
        Buffer.from(JSON.stringify({ version: stored, links, pending })),
        {
          contentType: 'application/json',
        },
      );
    }
    const analysis = { list, contexts, links, pending };
    this.memory.set(key, {
      version: online ? `${referencesVersion}:${await this.options.index.dataVersion()}:online` : version,
      analysis,
    });
    return analysis;
  }

  /**
   * Links the entries the local index left unlinked through the federated sources, a few at once,
   * within the time budget. Returns whether some are still pending (a source failed or was
   * skipped, or time ran out): the next request goes on with those.
   */
  private async linkOnline(
    entries: readonly ReferenceEntry[],
    links: Array<ReferenceLink | null>,
    online: OnlineRecords,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const deadline = performance.now() + (this.options.onlineBudgetMs ?? 20_000);
    const todo = entries.flatMap((entry, at) => (links[at] === null ? [{ entry, at }] : []));
    let pending = false;
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const item = todo[next++];
        if (!item) break;
        if (performance.now() > deadline) {
          pending = true;
          continue;
        }
        signal?.throwIfAborted();
        const { link, complete } = await this.linker.linkOnline(item.entry, online, signal);
        links[item.at] = link;
        if (!complete) pending = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(onlineConcurrency, todo.length) }, worker));
    return pending;
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

function viewsOf(analysis: Analysis, text: DocumentText): ReferenceView[] {
  return (analysis.list?.entries ?? []).map((entry, at) => {
    const link = analysis.links[at] ?? null;
    const paper: Paper | null = link ? presentRecord(link.paper) : null;
    return {
      number: entry.number,
      label: entry.label,
      raw: entry.raw,
      title: entry.title,
      authors: entry.authors,
      year: entry.year,
      venue: entry.venue,
      doi: entry.doi,
      arxiv: entry.arxiv,
      paper,
      paper_id: paper ? typedIdOf(paper) : null,
      match_confidence: link?.confidence ?? null,
      contexts: analysis.contexts
        .filter((context) => context.entry === at)
        .map((context) => contextView(context, text)),
    };
  });
}

/**
 * A citing sentence with where it is printed: its own page and boxes when the chunk's printed lines
 * hold it (decision 0034), else the chunk's pages (and its page when it has only one).
 */
function contextView(context: CitationContext, text: DocumentText) {
  const chunk = text.chunks[context.chunk - 1];
  const pages = chunk?.pages ?? [];
  const span = chunk ? findQuote(chunk.text, context.sentence) : null;
  const anchor = chunk && span ? anchorOf(chunk.lines, text.pageSizes, span.start, span.end) : null;
  const page = anchor ? (anchor.pages[0] ?? null) : pages.length === 1 ? (pages[0] ?? null) : null;
  return {
    sentence: context.sentence,
    marker: context.marker,
    chunk: context.chunk,
    page,
    pages,
    boxes: anchor?.boxes ?? [],
  };
}

function referencesHint(
  references: ReferenceView[],
  text: DocumentText,
  ref: string,
  hints: HintVocabulary,
  analysis: Analysis,
): string {
  if (references.length === 0) {
    return text.hasTextLayer
      ? 'No reference list was found (no "References" or "Bibliography" heading followed by entries).'
      : 'This PDF has no text layer (a scan), so no references can be read.';
  }
  const linked = references.filter((reference) => reference.paper);
  const cited = references.filter((reference) => reference.contexts.length > 0).length;
  const example = linked.find((reference) => reference.paper_id)?.paper_id;
  const next = example
    ? ` Open a linked paper with ${hints.paper(example)}; the sentences of all your PDFs citing it: ${hints.citationContexts(example)}.`
    : '';
  const firstChunk = references[0]?.contexts[0]?.chunk;
  const read = firstChunk ? ` Read a citing sentence in place with ${hints.chunk(ref, firstChunk)}.` : '';
  const online = analysis.links.filter((link) => link?.online === true).length;
  const where =
    online > 0
      ? `${linked.length} linked (${linked.length - online} to records of the local index, ${online} through the federated sources)`
      : `${linked.length} linked to records of the local index`;
  const more = analysis.pending
    ? ' Some entries were not yet looked up in the federated sources (a source did not answer, or time ran out); ask again to go on.'
    : '';
  return `${references.length} references, ${where}, ${cited} cited in the text.${next}${read}${more}`;
}

function verifyHint(report: CheckReport, listed: boolean, online: boolean): string {
  if (!listed) {
    return 'No reference list was found in this PDF (no "References" or "Bibliography" heading followed by entries), so nothing was checked.';
  }
  const { exists, mismatch, not_found, preprint_now_published } = report.counts;
  const where = online ? 'the local index or the federated sources' : 'the local index';
  const preprints =
    preprint_now_published > 0
      ? ` ${preprint_now_published} cite${preprint_now_published === 1 ? 's' : ''} a preprint whose published version is known (see published).`
      : '';
  const partial = report.complete
    ? ''
    : ' Some federated sources did not answer, so a not_found may be found on a later try.';
  return `${exists} entr${exists === 1 ? 'y exists' : 'ies exist'} as written, ${mismatch} differ from the record found (see fields), ${not_found} not found in ${where} (possibly invented, or not indexed here).${preprints}${partial}`;
}
