import type { Paper } from '../../domain/paper.js';

/**
 * The typed identifier (`DOI:…`, `ACL:…`, `ARXIV:…`, …) by which the API's `paper_id` parameters
 * name a record, strongest first; null for a record with none of those types (an OpenReview-only
 * record of the ML Anthology).
 */
export function typedIdOf(paper: Paper): string | null {
  const ids = paper.identifiers ?? {};
  const doi = paper.doi ?? ids.doi;
  if (doi) return `DOI:${doi}`;
  if (ids.acl) return `ACL:${ids.acl}`;
  if (ids.arxiv) return `ARXIV:${ids.arxiv}`;
  if (ids.pmid) return `PMID:${ids.pmid}`;
  if (ids.pmcid) return `PMCID:${ids.pmcid}`;
  const ssId = paper.ss_id ?? ids.ss_id;
  if (ssId) return `SS_ID:${ssId}`;
  if (ids.mag) return `MAG:${ids.mag}`;
  return null;
}
