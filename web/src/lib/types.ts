/** Wire shapes of the service (see /openapi.json). */
export interface Paper {
  title: string;
  authors: string[];
  abstract: string | null;
  publication_date: string | null;
  cited_by_count: number | null;
  url: string | null;
  doi: string | null;
  ss_id?: string | null;
  pdf_id?: string;
  pdf_url?: string | null;
  year?: number | null;
  venue?: string | null;
  type?: string | null;
  answer?: string;
  entry_id?: string;
  patent_number?: string;
  assignees?: string[];
  identifiers?: Record<string, string | null | undefined>;
}

export interface Chunk {
  chunk_num: number;
  chunk: string;
  img_mds: string[];
  pdf_url: string;
}

export interface FullTextResult {
  chunks: Chunk[];
  total_chunk_num: number;
  hint: string;
}

export interface ProjectSummary {
  id: string;
  name: string;
  created_at: string;
  paper_count: number;
}

export interface ProjectWithPapers extends ProjectSummary {
  papers: Paper[];
}
