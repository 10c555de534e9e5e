import { LRUCache } from 'lru-cache';
import { identifierKey, parsePaperIdentifier } from '../../domain/identifiers.js';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type {
  CitationContextsResult,
  CitingSentence,
  ReferencesResult,
  ReferenceView,
  VerifyReferencesResult,
} from '../../domain/references.js';
import { type CitationContext, findCitationContexts } from '../../pdf/citation-markers.js';
import { parseReferenceList, type ReferenceList } from '../../pdf/references.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { CitationFormat } from '../citation/citation-formats.js';
import type { DocumentText } from '../documents/document-text.js';
import { type HintVocabulary, restHints } from '../hint-vocabulary.js';
import { presentRecord } from '../search-service.js';
import type { HintedCallOptions, ReadOptions } from '../services.js';
import { checkReferences } from './reference-check.js';
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
}

/** A document's references: the list, the citing sentences and the links (with the index version they hold for). */
interface Analysis {
  list: ReferenceList | null;
  contexts: CitationContext[];
  links: Array<ReferenceLink | null>;
}

/** Bumped when parsing or linking changes, so stored links are recomputed. */
const referencesVersion = 'r1';

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
    const analysis = await this.analyse(text);
    const references = viewsOf(analysis, text);
    return {
      pdf_id: ref,
      style: analysis.list?.style ?? null,
      references,
      hint: referencesHint(references, text, ref, hints),
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

  /** `POST /api/verify_references`: every entry of a BibTeX/RIS/CSL file checked against the index. */
  async verify(text: string, format?: CitationFormat): Promise<VerifyReferencesResult> {
    const report = await checkReferences(this.options.index, text, format);
    const results = report.results.map((result) => ({
      ...result,
      paper: result.paper ? presentRecord(result.paper) : null,
    }));
    const { exists, mismatch, not_found } = report.counts;
    const hint = `${exists} entr${exists === 1 ? 'y exists' : 'ies exist'} as written, ${mismatch} differ from the record found (see fields), ${not_found} not found in the local index (possibly invented, or not indexed here).`;
    return { results, counts: report.counts, hint };
  }

  /** The analysis of a text, from memory, the BlobStore, or computed (and stored). */
  private async analyse(text: DocumentText): Promise<Analysis> {
    const version = `${referencesVersion}:${await this.options.index.dataVersion()}`;
    const key = `${text.origin}:${text.sha256}`;
    const remembered = this.memory.get(key);
    if (remembered?.version === version) return remembered.analysis;
    const list = parseReferenceList(text.chunks);
    const contexts = list ? findCitationContexts(text.chunks, list) : [];
    const blobKey = `references/${text.sha256.slice(0, 2)}/${text.sha256}/${text.origin.replace(/[^A-Za-z0-9._-]/g, '_')}-${referencesVersion}.json`;
    const stored = await this.options.blobs.get(blobKey);
    let links: Array<ReferenceLink | null> | null = null;
    if (stored) {
      const parsed = JSON.parse(Buffer.from(stored).toString('utf8')) as {
        version?: string;
        links?: unknown;
      };
      if (parsed.version === version && Array.isArray(parsed.links))
        links = parsed.links as Array<ReferenceLink | null>;
    }
    if (!links || links.length !== (list?.entries.length ?? 0)) {
      links = [];
      for (const entry of list?.entries ?? []) links.push(await this.linker.link(entry));
      await this.options.blobs.put(blobKey, Buffer.from(JSON.stringify({ version, links })), {
        contentType: 'application/json',
      });
    }
    const analysis = { list, contexts, links };
    this.memory.set(key, { version, analysis });
    return analysis;
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

function contextView(context: CitationContext, text: DocumentText) {
  const pages = text.chunks[context.chunk - 1]?.pages ?? [];
  return {
    sentence: context.sentence,
    marker: context.marker,
    chunk: context.chunk,
    page: pages.length === 1 ? (pages[0] ?? null) : null,
    pages,
  };
}

function referencesHint(
  references: ReferenceView[],
  text: DocumentText,
  ref: string,
  hints: HintVocabulary,
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
  return `${references.length} references, ${linked.length} linked to records of the local index, ${cited} cited in the text.${next}${read}`;
}
