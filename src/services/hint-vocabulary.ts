/**
 * How a surface names the next step a `hint` advises. A hint is read by an agent that can only act
 * through the surface it called: a REST client sends query parameters, an MCP host calls tools. So
 * the services phrase the facts of a hint themselves and take the names of the operations from the
 * vocabulary their caller passes (REST when none is passed). Each member returns a fragment that the
 * services put into their own sentences; `<pdf_id>`-style placeholders stand for a value the agent
 * takes from the result it holds.
 */
export interface HintVocabulary {
  /** Names the vocabulary; part of the cache key of results whose hint it phrased. */
  readonly name: string;
  /** The call reading chunk `chunk` of document `pdfId` (REST: `chunk=2`). */
  chunk(pdfId: string, chunk: number): string;
  /** A verb phrase reading one of `chunks` of document `pdfId` (REST: `read chunk=1 or chunk=3`). */
  readAnyOf(pdfId: string, chunks: number[]): string;
  /** The call(s) reading a stored document from its start (REST: `pdf_id=PROJ:…`). */
  document(pdfId: string): string;
  /** The call reading any search result that has a pdf_id (REST: `/api/fulltext?pdf_id=<pdf_id>`). */
  searchResult(): string;
  /** The call opening a paper's metadata by typed identifier (REST: `/api/paper?paper_id=…`). */
  paper(paperId: string): string;
  /** The call mapping the papers around a paper (REST: `/api/literature_map`). */
  literatureMap(paperId: string): string;
  /** A verb phrase: how the caller gives the service a PDF it could not fetch itself. */
  providePdf(): string;
  /** The call opening a chunk an analysis cites. */
  citedChunk(): string;
  /** The call listing a stored document's parsed references (REST: `/api/references?pdf_id=…`). */
  references(pdfId: string): string;
  /** The call listing the sentences of the caller's PDFs that cite a paper (REST: `/api/citation_contexts?paper_id=…`). */
  citationContexts(paperId: string): string;
}

/** The REST API's names: query parameters and paths, as every hint said before vocabularies. */
export const restHints: HintVocabulary = {
  name: 'rest',
  chunk: (_pdfId, chunk) => `chunk=${chunk}`,
  readAnyOf: (_pdfId, chunks) => `read ${chunks.map((chunk) => `chunk=${chunk}`).join(' or ')}`,
  document: (pdfId) => `pdf_id=${pdfId}`,
  searchResult: () => '/api/fulltext?pdf_id=<pdf_id>',
  paper: (paperId) => `/api/paper?paper_id=${paperId}`,
  literatureMap: () => '/api/literature_map',
  providePdf: () => 'upload the PDF (multipart field "file")',
  citedChunk: () => 'GET /api/fulltext?pdf_id=<pdf_id>&chunk=<n>',
  references: (pdfId) => `/api/references?pdf_id=${pdfId}`,
  citationContexts: (paperId) => `/api/citation_contexts?paper_id=${paperId}`,
};
