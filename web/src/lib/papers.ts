import type { Paper } from './types';

/** "A, B, C et al." */
export function authorLine(authors: string[]): string {
  return authors.length > 4 ? `${authors.slice(0, 3).join(', ')} et al.` : authors.join(', ');
}

export function yearOf(paper: Paper): string {
  if (paper.year) return String(paper.year);
  return /^(\d{4})/.exec(paper.publication_date ?? '')?.[1] ?? '';
}

/**
 * How add_to_project should name this paper: a typed identifier when the record has one (the
 * service resolves it and fetches the open-access PDF), else its PDF url.
 */
export function addTarget(paper: Paper): { paper_id?: string; pdf_url?: string } | null {
  const ids = paper.identifiers ?? {};
  if (paper.doi) return { paper_id: `DOI:${paper.doi}` };
  if (ids.arxiv) return { paper_id: `ARXIV:${ids.arxiv}` };
  if (ids.pmid) return { paper_id: `PMID:${ids.pmid}` };
  if (ids.pmcid) return { paper_id: `PMCID:${ids.pmcid}` };
  if (paper.ss_id) return { paper_id: `SS_ID:${paper.ss_id}` };
  if (ids.acl) return { paper_id: `ACL:${ids.acl}` };
  if (paper.pdf_url) return { pdf_url: paper.pdf_url };
  if (paper.pdf_id?.startsWith('PDF_URL:')) return { pdf_url: paper.pdf_id.slice('PDF_URL:'.length) };
  return null;
}

/** The full-text reference of a paper, when it has one the reader can open. */
export function readableRef(paper: Paper): string | null {
  if (paper.pdf_id) return paper.pdf_id;
  if (paper.pdf_url) return `PDF_URL:${paper.pdf_url}`;
  return null;
}
