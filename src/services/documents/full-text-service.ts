import { type DocumentRef, formatDocumentRef, parseDocumentRef } from '../../domain/document-ref.js';
import { invalid, notFound } from '../../domain/errors.js';
import { captionLabel, captionWords } from '../../domain/figure-labels.js';
import type { Chunk, FullTextResult } from '../../domain/fulltext.js';
import { normalizeArxivId, normalizeDoi, normalizePmcid } from '../../domain/identifiers.js';
import { anchorOf, type PageAnchor } from '../../domain/page-anchors.js';
import type { PaperIdentifiers } from '../../domain/paper.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { findPassage } from '../../text/letter-stream.js';
import type { FullTextReader, ReadOptions } from '../services.js';
import type { TenantShare } from '../tenant-share.js';
import type { DocumentStorage } from './document-storage.js';
import type { DocumentText } from './document-text.js';
import type { FigureLinks } from './figure-links.js';
import { questionHint, readHint, scanHint } from './hints.js';
import type { ParseCache } from './parse-cache.js';
import type { RemoteDocuments } from './remote-documents.js';
import type { SourceChain } from './source-chain.js';

/** Ranks a document's chunks for a question (dense + BM25 over short passages, vectors cached). */
export interface ChunkRanker {
  /**
   * The `topK` best chunks for `question`, best first. `documentKey` identifies the text (content
   * hash), so passage vectors are embedded once per document and reused.
   */
  rank(request: {
    documentKey: string;
    chunks: readonly string[];
    question: string;
    topK: number;
    signal?: AbortSignal;
    /** Longest wait for meaning-based ranking; past it, rank by words alone (`wordsOnly`). */
    deadlineMs?: number;
    /** Whose turn heavy work (embedding the document) takes: the tenant. */
    lane?: string;
    /** Told how the ranking was made: `warm`/`full` with every vector, `first` from candidates, `words` by BM25. */
    onTimings?: (timings: { path: string }) => void;
  }): Promise<RankedChunk[]>;
  /** Embeds and stores the document's passages ahead of its first question (optional). */
  prepare?(documentKey: string, chunks: readonly string[], options?: { lane?: string }): Promise<unknown>;
}

export interface RankedChunk {
  /** 0-based index into the chunks given. */
  index: number;
  score: number;
  /** The chunk's best passage (its text), when the ranker works on passages. */
  passage?: { text: string };
  /** Ranked by words (BM25) alone because the document's vectors were not ready by the deadline. */
  wordsOnly?: boolean;
}

export interface FullTextServiceOptions {
  store: ProjectStore;
  documents: DocumentStorage;
  parses: ParseCache;
  sources: SourceChain;
  remote: RemoteDocuments;
  figureLinks: FigureLinks;
  ranker: ChunkRanker;
  /** True when OCR of scans is configured (changes the scan hint). */
  ocr?: boolean;
  /**
   * Longest a question waits for the document's passage vectors once its text is read; past it the
   * answer is ranked by words (BM25) and says so in the hint. Absent: no deadline.
   */
  questionDeadlineMs?: number;
  /**
   * Each tenant's share of parses (decision 0042): reading a remote PDF that is not parsed yet
   * takes a place while it is fetched and parsed; past the share, 429. Unmetered without it.
   */
  parseShare?: TenantShare | undefined;
  /**
   * Told when a question on a stored document was answered before its passage vectors were ready
   * (from BM25's candidates, or by words): an API replica queues the worker's embedding job here.
   */
  onColdQuestion?: (tenantId: string, pdfRef: string) => void;
}

/** A document ready to read: its canonical reference and its text. */
interface OpenDocument {
  ref: string;
  text: DocumentText;
  /** The tenant whose stored PDF this text was parsed from; its figure links are tied to it. */
  owner?: string;
}

const maxTopK = 10;

/**
 * `/api/fulltext` and `/api/question`: resolves a document reference inside the caller's tenant
 * (or fetches a url SSRF-safely), reads the text from a full-text source or the parse cache (parsing
 * once on a miss), and shapes numbered chunks with signed figure links and a hint for the agent.
 */
export class FullTextService implements FullTextReader {
  constructor(private readonly options: FullTextServiceOptions) {}

  async readChunk(
    tenantId: string,
    pdfRef: string,
    chunk: number,
    options: ReadOptions = {},
  ): Promise<FullTextResult> {
    const document = await this.open(
      tenantId,
      pdfRef,
      options.param ?? 'pdf_url',
      options.signal,
      options.localOnly,
    );
    const total = document.text.chunks.length;
    if (total === 0) return this.emptyResult(document);
    const number = chunk <= 0 ? 1 : chunk;
    if (!Number.isInteger(number) || number > total) {
      throw invalid('chunk', `chunk must be between 1 and ${total} for this document (got ${chunk})`);
    }
    return {
      chunks: [this.chunkAt(document, number - 1)],
      total_chunk_num: total,
      hint: readHint(number, total, document.ref, options.hints),
    };
  }

  async ask(
    tenantId: string,
    pdfRef: string,
    question: string,
    options: ReadOptions & { topK?: number } = {},
  ): Promise<FullTextResult> {
    const trimmed = question.trim();
    if (trimmed.length === 0) throw invalid('question', 'question must not be empty');
    const topK = Math.min(Math.max(1, Math.floor(options.topK ?? 1)), maxTopK);
    const document = await this.open(
      tenantId,
      pdfRef,
      options.param ?? 'pdf_url',
      options.signal,
      options.localOnly,
    );
    const total = document.text.chunks.length;
    if (total === 0) return this.emptyResult(document);
    const deadlineMs = this.options.questionDeadlineMs;
    const ranked = await this.options.ranker.rank({
      ...rankingInput(document.text),
      question: trimmed,
      topK,
      lane: tenantId,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(options.signal ? { signal: options.signal } : {}),
      onTimings: (timings) => {
        if (timings.path === 'first' || timings.path === 'words')
          this.options.onColdQuestion?.(tenantId, document.ref);
      },
    });
    const indexes = [...new Set(ranked.map((item) => item.index))].filter(
      (index) => index >= 0 && index < total,
    );
    const wordsOnly = ranked.some((item) => item.wordsOnly === true);
    // Ranked by words alone, a question that shares no word with the document matched nothing.
    const matched = indexes.length > 0 && !(wordsOnly && ranked.every((item) => item.score <= 0));
    const best = matched ? indexes.slice(0, topK) : [0];
    const passages = new Map(
      matched
        ? ranked.flatMap((item) => (item.passage ? [[item.index, item.passage.text] as const] : []))
        : [],
    );
    return {
      chunks: best.map((index) => {
        const chunk = this.chunkAt(document, index);
        const passage = passages.get(index);
        return passage === undefined
          ? chunk
          : { ...chunk, passage: passageOf(document.text, index, passage) };
      }),
      total_chunk_num: total,
      hint: questionHint(
        best.map((index) => index + 1),
        total,
        matched,
        wordsOnly,
        document.ref,
        options.hints,
      ),
    };
  }

  async locate(tenantId: string, pdfRef: string, chunk: number, quote: string): Promise<PageAnchor | null> {
    let document: OpenDocument;
    try {
      document = await this.open(tenantId, pdfRef, 'pdf_url', undefined, true);
    } catch {
      return null;
    }
    const stored = document.text.chunks[chunk - 1];
    if (!stored || document.text.origin !== 'pdf') return null;
    const span = findPassage(stored.text, quote);
    return span ? anchorOf(stored.lines, document.text.pageSizes, span.start, span.end) : null;
  }

  /**
   * Readies a filed document for questions: its passages are embedded and stored now, so the first
   * question costs what the next ones do. Resolves when done; a failure only means the first
   * question does the work.
   */
  async prepareQuestions(tenantId: string, pdfRef: string): Promise<void> {
    const prepare = this.options.ranker.prepare?.bind(this.options.ranker);
    if (!prepare) return;
    const document = await this.open(tenantId, pdfRef, 'pdf_id');
    if (document.text.chunks.length === 0) return;
    const { documentKey, chunks } = rankingInput(document.text);
    await prepare(documentKey, chunks, { lane: tenantId });
  }

  /**
   * The whole text of a document, read as `readChunk` reads it (same tenant rules and errors): for
   * services that work on every chunk at once (references and citation contexts).
   */
  async openText(
    tenantId: string,
    pdfRef: string,
    options: Pick<ReadOptions, 'param' | 'signal' | 'localOnly'> = {},
  ): Promise<{ ref: string; text: DocumentText }> {
    const document = await this.open(
      tenantId,
      pdfRef,
      options.param ?? 'pdf_url',
      options.signal,
      options.localOnly,
    );
    return { ref: document.ref, text: document.text };
  }

  /** The PNG of a figure of a document with content hash `sha256`, or null. */
  figure(sha256: string, figureId: string): Promise<Uint8Array | null> {
    return this.options.parses.figure(sha256, figureId);
  }

  private chunkAt(document: OpenDocument, index: number): Chunk {
    const { text } = document;
    const chunk = text.chunks[index];
    const figures = new Map(text.figures.map((figure) => [figure.id, figure]));
    const imageLinks = (chunk?.figureIds ?? []).flatMap((id) => {
      const figure = figures.get(id);
      return figure ? [this.imageMarkdown(text.sha256, figure, document.owner)] : [];
    });
    const result: Chunk = {
      chunk_num: index + 1,
      chunk: chunk?.text ?? '',
      img_mds: imageLinks,
      pdf_url: document.ref,
    };
    if (!chunk || text.origin !== 'pdf') return result;
    const anchor = anchorOf(chunk.lines, text.pageSizes, 0, chunk.text.length);
    return { ...result, pages: chunk.pages, boxes: anchor?.boxes ?? [] };
  }

  /**
   * `![Figure 6, page 8: caption words](url)`: a figure is named by the label its caption prints
   * ("Figure 6", "Fig. S2", "Table 3"); an image without a caption by its place among the images
   * ("Image 1"), so a graphical abstract or a logo never takes a number the paper gives a figure.
   */
  private imageMarkdown(sha256: string, figure: DocumentText['figures'][number], owner?: string): string {
    // Parses made before labels were read have the caption only.
    const label = figure.label ?? (figure.caption ? captionLabel(figure.caption) : undefined);
    const words = (figure.caption ? captionWords(figure.caption) : '')
      .replace(/[[\]\n\r]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100);
    const caption = words ? `: ${words}` : '';
    const name = label ?? `Image ${figure.number}`;
    return `![${name}, page ${figure.page}${caption}](${this.options.figureLinks.url(sha256, figure.id, figure.format, owner)})`;
  }

  /** A scan (or a PDF with no text at all): one empty chunk with the page images, and a clear hint. */
  private emptyResult(document: OpenDocument): FullTextResult {
    const { text } = document;
    return {
      chunks: [
        {
          chunk_num: 1,
          chunk: '',
          img_mds: text.figures.map((figure) => this.imageMarkdown(text.sha256, figure, document.owner)),
          pdf_url: document.ref,
        },
      ],
      total_chunk_num: 1,
      hint: scanHint(text, this.options.ocr === true),
    };
  }

  /** Resolves the reference and returns the document's text, cheapest source first. */
  private async open(
    tenantId: string,
    pdfRef: string,
    param: string,
    signal?: AbortSignal,
    localOnly = false,
  ): Promise<OpenDocument> {
    const ref = parseDocumentRef(pdfRef, param);
    const canonical = formatDocumentRef(ref);
    if (ref.kind === 'project') {
      const { sha256, identifiers, record } = await this.projectDocument(tenantId, ref, param, canonical);
      const sourced =
        this.options.sources.isEmpty || localOnly
          ? null
          : await this.options.sources.find({ identifiers, sha256 }, signal);
      if (sourced) return { ref: canonical, text: sourced };
      const text = await this.options.parses.get(sha256, () => this.options.documents.bytes(record), {
        lane: tenantId,
        signal,
      });
      return { ref: canonical, text, owner: tenantId };
    }
    const identifiers = identifiersInUrl(ref.url);
    const sourced =
      this.options.sources.isEmpty || localOnly
        ? null
        : await this.options.sources.find({ url: ref.url, identifiers }, signal);
    if (sourced) return { ref: canonical, text: sourced };
    const known = await this.options.remote.knownHash(ref.url);
    if (known) {
      const parsed = await this.options.parses.lookup(known);
      if (parsed) return { ref: canonical, text: parsed };
    }
    // Offline reads stop here: nothing is fetched (docs/decisions/0030-chat-details.md).
    if (localOnly) {
      throw notFound(`${canonical} is not stored here, and remote PDFs are not fetched (offline)`, param);
    }
    const fetchAndParse = async () => {
      const downloaded = await this.options.remote.download(ref.url, param);
      return this.options.parses.get(downloaded.sha256, async () => downloaded.bytes, {
        lane: tenantId,
        signal,
      });
    };
    const share = this.options.parseShare;
    const text = share
      ? await share.within('Reading a remote PDF', tenantId, fetchAndParse)
      : await fetchAndParse();
    return { ref: canonical, text };
  }

  /**
   * A `PROJ:` document of the caller's tenant: the project must be the tenant's and the document
   * must be filed in it. Anything else is a 404 that does not tell whether it exists elsewhere.
   */
  private async projectDocument(
    tenantId: string,
    ref: Extract<DocumentRef, { kind: 'project' }>,
    param: string,
    canonical: string,
  ) {
    const missing = () => notFound(`No document ${canonical} in your projects`, param);
    const project = await this.options.store.findProject(tenantId, ref.project);
    if (!project) throw missing();
    const record = await this.options.store.getDocument(tenantId, ref.documentId);
    if (!record) throw missing();
    const entries = await this.options.store.listEntries(tenantId, project.id);
    const entry = entries.find((item) => item.documentId === record.id);
    if (!entry) throw missing();
    const paper = entry.paper;
    const identifiers: PaperIdentifiers = { ...paper.identifiers };
    if (paper.doi && !identifiers.doi) identifiers.doi = paper.doi;
    return { sha256: record.sha256, identifiers, record };
  }
}

/** Identifiers a url carries (arXiv, doi.org, PMC article urls), for the full-text sources. */
export function identifiersInUrl(url: string): PaperIdentifiers {
  const identifiers: PaperIdentifiers = {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return identifiers;
  }
  const host = parsed.hostname.toLowerCase();
  const path = decodeURIComponent(parsed.pathname);
  if (host === 'arxiv.org' || host.endsWith('.arxiv.org')) {
    const arxiv = normalizeArxivId(path.replace(/^\/(abs|pdf)\//, ''));
    if (arxiv) identifiers.arxiv = arxiv;
  }
  if (host === 'doi.org' || host === 'dx.doi.org') {
    const doi = normalizeDoi(path.slice(1));
    if (doi) identifiers.doi = doi;
  }
  const pmc = /\/(PMC\d+)(\/|$)/i.exec(path);
  if (pmc?.[1] && (host.endsWith('europepmc.org') || host.endsWith('ncbi.nlm.nih.gov'))) {
    const pmcid = normalizePmcid(pmc[1]);
    if (pmcid) identifiers.pmcid = pmcid;
  }
  return identifiers;
}

/**
 * The best passage of chunk `index` with where it is printed: its pages and boxes when the passage
 * is found in the chunk's printed lines, else the chunk's pages and no boxes.
 */
function passageOf(text: DocumentText, index: number, passage: string): NonNullable<Chunk['passage']> {
  const chunk = text.chunks[index];
  const span = chunk ? findPassage(chunk.text, passage) : null;
  const anchor = chunk && span ? anchorOf(chunk.lines, text.pageSizes, span.start, span.end) : null;
  return {
    text: passage,
    pages: anchor?.pages ?? (text.origin === 'pdf' ? (chunk?.pages ?? []) : []),
    boxes: anchor?.boxes ?? [],
  };
}

/** What the ranker knows a document by: its origin and content hash, and its chunks' text. */
function rankingInput(text: DocumentText): { documentKey: string; chunks: string[] } {
  return { documentKey: `${text.origin}:${text.sha256}`, chunks: text.chunks.map((item) => item.text) };
}
