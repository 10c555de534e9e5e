import type { CitationContext } from '../../bibliography/citation-markers.js';
import { anchorOf } from '../../domain/page-anchors.js';
import type { Paper } from '../../domain/paper.js';
import type { ReferenceView, VerifyReferencesResult } from '../../domain/references.js';
import { findQuote } from '../../text/letter-stream.js';
import type { DocumentText } from '../documents/document-text.js';
import type { HintVocabulary } from '../hint-vocabulary.js';
import { presentRecord } from '../search-service.js';
import type { Analysis } from './reference-analyses.js';
import type { CheckReport } from './reference-check.js';
import { typedIdOf } from './typed-id.js';

/** How reference lists, citing sentences and checks are answered: views and hints. */

/** A document's entries as the API answers them: fields, link and citing sentences. */
export function viewsOf(analysis: Analysis, text: DocumentText): ReferenceView[] {
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
export function contextView(context: CitationContext, text: DocumentText) {
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

/** The hint of a document's reference list: how many, how linked, and what to call next. */
export function referencesHint(
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

/** The end of a check's hint when some source did not answer (such an answer is not cached). */
export const partialHint =
  ' Some federated sources did not answer, so a not_found may be found on a later try.';

/** A check's report as the API answers it (records presented, counts, hint). */
export function presentCheck(report: CheckReport, listed: boolean, online: boolean): VerifyReferencesResult {
  const results = report.results.map((result) => ({
    ...result,
    paper: result.paper ? presentRecord(result.paper) : null,
    preprint: result.preprint ? presentRecord(result.preprint) : null,
    published: result.published ? presentRecord(result.published) : null,
  }));
  return { results, counts: report.counts, hint: verifyHint(report, listed, online) };
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
  const partial = report.complete ? '' : partialHint;
  return `${exists} entr${exists === 1 ? 'y exists' : 'ies exist'} as written, ${mismatch} differ from the record found (see fields), ${not_found} not found in ${where} (possibly invented, or not indexed here).${preprints}${partial}`;
}
