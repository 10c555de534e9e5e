import type { Paper, PaperType } from './paper.js';

/**
 * The publication types that `peer_reviewed_only` keeps: journal articles, conference papers and
 * granted patents (examined by a patent office). Preprints, patent applications, theses, reports,
 * books, datasets, editorials and records of unknown type are dropped. The type is the reader's
 * judgement (e.g. the anthology readers mark proceedings papers `conference-paper`); no guess is
 * made here from venue names. See docs/decisions (peer-reviewed rule).
 */
export const peerReviewedTypes: ReadonlySet<PaperType> = new Set<PaperType>([
  'journal-article',
  'conference-paper',
  'patent',
]);

/** True when the record's type counts as peer-reviewed (see `peerReviewedTypes`). */
export function isPeerReviewed(paper: Pick<Paper, 'type'>): boolean {
  return typeof paper.type === 'string' && peerReviewedTypes.has(paper.type as PaperType);
}

/** True for patents and patent applications (what `/api/patents` searches). */
export function isPatent(paper: Pick<Paper, 'type' | 'patent_number' | 'identifiers'>): boolean {
  return (
    paper.type === 'patent' ||
    paper.type === 'patent-application' ||
    Boolean(paper.patent_number) ||
    Boolean(paper.identifiers?.patent_number)
  );
}
