import { normalizeArxivId, normalizeDoi, normalizePmcid } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';

/** The fields of a paper an agent needs to cite it and read it on, without the bulk. */
export interface CompactPaper {
  title: string;
  authors: string;
  year: number | null;
  venue?: string;
  doi?: string;
  url?: string;
  cited_by_count?: number;
  /** A typed identifier (`DOI:…`, `ARXIV:…`) for add_to_project, get_paper_metadata, literature_map. */
  paper_id?: string;
  pdf_id?: string;
  entry_id?: string;
  abstract?: string;
  answer?: string;
}

const maxAuthors = 3;

/** Authors as one line: up to three names, then "et al.". */
export function authorLine(authors: string[]): string {
  if (authors.length <= maxAuthors) return authors.join(', ');
  return `${authors.slice(0, maxAuthors).join(', ')} et al.`;
}

/** The strongest typed identifier of a paper, in the `<TYPE>:<value>` form the paper tools take. */
export function paperIdOf(paper: Paper): string | undefined {
  const ids = paper.identifiers ?? {};
  const candidates: Array<[string, string | null]> = [
    ['DOI', normalizeDoi(paper.doi ?? ids.doi)],
    ['ARXIV', normalizeArxivId(ids.arxiv)],
    ['PMID', ids.pmid ?? null],
    ['PMCID', normalizePmcid(ids.pmcid)],
    ['SS_ID', paper.ss_id ?? ids.ss_id ?? null],
  ];
  const found = candidates.find(([, value]) => value);
  return found ? `${found[0]}:${found[1]}` : undefined;
}

function yearOf(paper: Paper): number | null {
  if (paper.year) return paper.year;
  const match = /^(\d{4})/.exec(paper.publication_date ?? '');
  return match?.[1] ? Number(match[1]) : null;
}

/**
 * A paper without null fields, long author lists or identifier blocks. `abstractChars` trims the
 * abstract (0 drops it).
 */
export function compactPaper(paper: Paper, options: { abstractChars?: number } = {}): CompactPaper {
  const limit = options.abstractChars ?? 0;
  const compact: CompactPaper = {
    title: paper.title,
    authors: authorLine(paper.authors),
    year: yearOf(paper),
  };
  if (paper.venue) compact.venue = paper.venue;
  if (paper.doi) compact.doi = paper.doi;
  if (paper.url) compact.url = paper.url;
  if (typeof paper.cited_by_count === 'number') compact.cited_by_count = paper.cited_by_count;
  const paperId = paperIdOf(paper);
  if (paperId) compact.paper_id = paperId;
  if (paper.pdf_id) compact.pdf_id = paper.pdf_id;
  if (paper.entry_id) compact.entry_id = paper.entry_id;
  if (limit > 0 && paper.abstract) {
    compact.abstract =
      paper.abstract.length > limit ? `${paper.abstract.slice(0, limit).trimEnd()}…` : paper.abstract;
  }
  if (paper.answer) compact.answer = paper.answer;
  return compact;
}
