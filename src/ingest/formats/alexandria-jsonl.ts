import type { PaperType } from '../../domain/paper.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';
import { buildPaper, cleanText, toInteger } from './paper-builder.js';

/**
 * "Our own JSONL": the record shape of `corpus/*.jsonl.gz` (converted ACL Anthology and ML Anthology):
 * `{id, title, authors[], abstract, year, venue, doi, url, pdf_url, acl_id, venue_acronym,
 * openreview_id, source, source_id, …}`. It is also what a user writes by hand, so the reader accepts
 * the spec's own field names (`publication_date`, `cited_by_count`, `ss_id`, `identifiers`, `type`)
 * as well. The ML Anthology has no DOIs: `openreview_id`, a PMLR `source_id` and the PMLR/JMLR page
 * url (read by `buildPaper`) are its identity.
 */
export function mapAlexandriaRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  const ids = isObject(value.identifiers) ? value.identifiers : {};
  const authors = Array.isArray(value.authors) ? value.authors.map(authorName) : [];
  const aclId = cleanText(value.acl_id) ?? cleanText(ids.acl);
  return buildPaper(
    {
      title: cleanText(value.title),
      authors,
      abstract: cleanText(value.abstract),
      publication_date: cleanText(value.publication_date),
      year: toInteger(value.year),
      venue: cleanText(value.venue),
      type: recordType(value, aclId),
      url: cleanText(value.url) ?? cleanText(value.landing_page_url),
      pdf_url: cleanText(value.pdf_url),
      cited_by_count: toInteger(value.cited_by_count),
      identifiers: {
        doi: cleanText(value.doi) ?? cleanText(ids.doi),
        arxiv: cleanText(value.arxiv_id) ?? cleanText(ids.arxiv),
        pmid: cleanText(value.pmid) ?? cleanText(ids.pmid),
        pmcid: cleanText(ids.pmcid),
        ss_id: cleanText(value.ss_id) ?? cleanText(ids.ss_id),
        corpus_id: cleanText(ids.corpus_id),
        mag: cleanText(ids.mag),
        acl: aclId,
        openalex: cleanText(ids.openalex),
        patent_number: cleanText(ids.patent_number),
        openreview: cleanText(value.openreview_id) ?? cleanText(ids.openreview),
        pmlr: (value.source === 'pmlr' ? cleanText(value.source_id) : null) ?? cleanText(ids.pmlr),
        jmlr: cleanText(ids.jmlr),
      },
    },
    { source: 'jsonl' },
  );
}

function authorName(author: unknown): string | null {
  if (typeof author === 'string') return author;
  if (isObject(author)) return cleanText(author.name) ?? cleanText([author.given, author.family].join(' '));
  return null;
}

/**
 * The anthologies hold proceedings and journals (TACL, CL, JMLR, TMLR) only, so their records are
 * peer-reviewed: journals by venue name, everything else a conference/workshop paper. An explicit
 * `type` wins.
 */
function recordType(value: Record<string, unknown>, aclId: string | null): PaperType {
  const explicit = cleanText(value.type);
  if (explicit) return explicit as PaperType;
  const venue = `${cleanText(value.venue) ?? ''} ${cleanText(value.venue_acronym) ?? ''}`;
  if (/\b(journal|transactions|TACL|TMLR|JMLR|computational linguistics$|^cl\b)/i.test(venue.trim())) {
    return 'journal-article';
  }
  if (
    aclId ||
    cleanText(value.openreview_id) ||
    /\b(proceedings|conference|workshop|ICLR|ICML|NeurIPS)\b/i.test(venue)
  ) {
    return 'conference-paper';
  }
  return 'other';
}

/** Reads our own JSONL (see `mapAlexandriaRecord`). */
export const readAlexandriaJsonl = jsonFormatReader(mapAlexandriaRecord);
