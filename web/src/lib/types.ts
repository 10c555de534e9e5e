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

/** Where text is printed: fractions (0..1) of the displayed page, origin at its top left. */
export interface PageBox {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The best passage of a chunk for a question (`/api/question`), and where it is printed. */
export interface Passage {
  text: string;
  pages: number[];
  boxes: PageBox[];
}

export interface Chunk {
  chunk_num: number;
  chunk: string;
  img_mds: string[];
  pdf_url: string;
  /** Pages the chunk is printed on (absent for text from a full-text source). */
  pages?: number[];
  /** One box per paragraph and column (absent or empty when unknown). */
  boxes?: PageBox[];
  passage?: Passage;
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
