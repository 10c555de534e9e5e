import type { HintVocabulary } from '../services/hint-vocabulary.js';

/** `name(arg="value", n=2)`: a tool call as an agent would write it, string values JSON-quoted. */
export function toolCall(name: string, args: Record<string, string | number>): string {
  const list = Object.entries(args).map(
    ([key, value]) => `${key}=${typeof value === 'number' ? value : JSON.stringify(value)}`,
  );
  return `${name}(${list.join(', ')})`;
}

/**
 * The MCP tools' names for the next steps a hint advises: each step is the tool call to make, with
 * the arguments the agent needs (the pdf_id it just read, the next chunk), so an agent that only
 * sees tools never meets a REST path.
 */
export const mcpHints: HintVocabulary = {
  name: 'mcp',
  chunk: (pdfId, chunk) => toolCall('read_full_text', { pdf_id: pdfId, chunk }),
  readAnyOf: (pdfId, chunks) =>
    `call ${chunks.map((chunk) => toolCall('read_full_text', { pdf_id: pdfId, chunk })).join(' or ')}`,
  document: (pdfId) =>
    `${toolCall('read_full_text', { pdf_id: pdfId })}, or ask it a question with ${toolCall('ask_pdf', { pdf_id: pdfId, question: '…' })}`,
  searchResult: () => toolCall('read_full_text', { pdf_id: '<pdf_id>' }),
  paper: (paperId) => toolCall('get_paper_metadata', { paper_id: paperId }),
  literatureMap: (paperId) => toolCall('literature_map', { paper_id: paperId }),
  providePdf: () =>
    `give it a PDF url the service can fetch with ${toolCall('add_to_project', { pdf_url: '<url of the PDF>' })}`,
  citedChunk: () => 'read_full_text(pdf_id="<pdf_id>", chunk=<n>)',
  references: (pdfId) => toolCall('get_references', { pdf_id: pdfId }),
  citationContexts: (paperId) => toolCall('get_citation_contexts', { paper_id: paperId }),
};
