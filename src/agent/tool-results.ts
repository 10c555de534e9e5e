// What the agent's tools show the model: records and chunks, fenced and clipped, added to the ledger.
import { parseDocumentRef } from '../domain/document-ref.js';
import { AppError } from '../domain/errors.js';
import type { FullTextResult } from '../domain/fulltext.js';
import { emptyPaper, type Paper } from '../domain/paper.js';
import type { SearchResult } from '../domain/search.js';
import { figureUrls } from './retrieval.js';
import { citationMarkdown, type RetrievedSource, type SourceLedger } from './source-ledger.js';
import type { ToolContext } from './tool-call.js';

/** How much of each result a tool set shows. */
export interface ToolLimits {
  /** Records a search shows. */
  papers: number;
  /** Characters of an abstract shown. */
  abstractChars: number;
  /** Characters of a full-text chunk shown. */
  chunkChars: number;
  /** Chunks ask_pdf returns. */
  askChunks: number;
}

/**
 * The document a pdf_id argument names: a document reference, or — as small models write — the
 * record's id ("S2") or its citation url, resolved through the run's records.
 */
export function documentOf(pdfId: string, context: ToolContext): string {
  const ref = pdfId.trim().replace(/^\[(.*)\]$/, '$1');
  const record = /^S\d+$/i.test(ref)
    ? context.ledger.sources().find((source) => source.id === ref.toUpperCase())
    : context.ledger.findByUrl(ref);
  if (/^S\d+$/i.test(ref) && !record) {
    throw new AppError('invalid_request', `There is no record ${ref} in this conversation`, {
      param: 'pdf_id',
    });
  }
  if (record && !record.paper.pdf_id) {
    throw new AppError('invalid_request', `Record ${record.id} has no pdf_id: its full text cannot be read`, {
      param: 'pdf_id',
    });
  }
  return checkedRef(record?.paper.pdf_id ?? ref);
}

function checkedRef(pdfRef: string): string {
  parseDocumentRef(pdfRef, 'pdf_id');
  return pdfRef.trim();
}

export function renderSearch(result: SearchResult, context: ToolContext, limits: ToolLimits): string {
  if (result.papers.length === 0) return `No records found. ${result.hint}`.trim();
  return `${result.total} match(es); ${result.papers.length} shown. Cite a record with its "cite as" link exactly.\n\n${renderPapers(result.papers, context, limits)}`;
}

export function renderPapers(papers: Paper[], context: ToolContext, limits: ToolLimits): string {
  return papers
    .map((paper) => {
      const source = context.ledger.add(paper);
      if (paper.abstract) context.ledger.addEvidence({ source, text: paper.abstract, kind: 'abstract' });
      const facts = [
        `[${source.id}] cite as ${citationMarkdown(source)}`,
        paper.cited_by_count !== null && paper.cited_by_count !== undefined
          ? `cited by ${paper.cited_by_count}`
          : '',
        paper.pdf_id ? `pdf_id: ${paper.pdf_id}` : 'no full text',
      ].filter(Boolean);
      const abstract = clip(paper.abstract ?? '(no abstract)', limits.abstractChars);
      return `${facts.join(' · ')}\n${context.fence.wrap(`Title: ${paper.title}\nVenue: ${paper.venue ?? ''}\nAbstract: ${abstract}`)}`;
    })
    .join('\n\n');
}

export function renderChunks(
  pdfRef: string,
  result: FullTextResult,
  context: ToolContext,
  limits: ToolLimits,
): string {
  const source = sourceOfDocument(pdfRef, result, context.ledger);
  const parts = result.chunks.map((chunk) => {
    for (const url of figureUrls(chunk.img_mds)) context.ledger.addFigure(url);
    context.ledger.addEvidence({ source, text: chunk.chunk, kind: 'fulltext', chunk: chunk.chunk_num });
    const figures = chunk.img_mds.length ? `\nFigures:\n${chunk.img_mds.join('\n')}` : '';
    return `Chunk ${chunk.chunk_num} of ${result.total_chunk_num}:\n${context.fence.wrap(clip(chunk.chunk, limits.chunkChars) + figures)}`;
  });
  return `From [${source.id}], cite as ${citationMarkdown(source)}. ${result.hint}\n\n${parts.join('\n\n')}`;
}

/** The ledger source a document belongs to; a document never seen in a search becomes its own record. */
function sourceOfDocument(pdfRef: string, result: FullTextResult, ledger: SourceLedger): RetrievedSource {
  const known = ledger.findByDocument(pdfRef.trim());
  if (known) return known;
  const ref = parseDocumentRef(pdfRef, 'pdf_id');
  const firstLine = result.chunks[0]?.chunk.split('\n').find((line) => line.trim().length > 0) ?? '';
  const title =
    firstLine.replace(/^#+\s*/, '').slice(0, 200) ||
    (ref.kind === 'url' ? decodeURIComponent(ref.url.split('/').pop() ?? ref.url) : ref.documentId);
  return ledger.add({
    ...emptyPaper(title),
    pdf_id: pdfRef.trim(),
    ...(ref.kind === 'url' ? { pdf_url: ref.url } : {}),
  });
}

/** The text cut to `limit` characters, at a word boundary, marked "…" when cut. */
function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${space > limit * 0.8 ? cut.slice(0, space) : cut} …`;
}
