import { describe, expect, it } from 'vitest';
import { questionHint, readHint } from '../services/documents/hints.js';
import { restHints } from '../services/hint-vocabulary.js';
import { mcpHints, toolCall } from './mcp-hints.js';

const pdfId = 'PROJ:gpt/doc_1';

describe('hint vocabularies', () => {
  it('REST hints name query parameters, as they always did', () => {
    expect(readHint(1, 3, pdfId, restHints)).toBe('Read chunk 2 of 3 next with chunk=2.');
    expect(questionHint([2], 3, true, false, pdfId, restHints)).toBe(
      'The most relevant passage is in chunk 2 of 3. For the surrounding text read chunk=1 or chunk=3.',
    );
  });

  it('MCP hints name the tool call with its arguments', () => {
    expect(readHint(1, 3, pdfId, mcpHints)).toBe(
      'Read chunk 2 of 3 next with read_full_text(pdf_id="PROJ:gpt/doc_1", chunk=2).',
    );
    expect(questionHint([2], 3, true, false, pdfId, mcpHints)).toBe(
      'The most relevant passage is in chunk 2 of 3. For the surrounding text call read_full_text(pdf_id="PROJ:gpt/doc_1", chunk=1) or read_full_text(pdf_id="PROJ:gpt/doc_1", chunk=3).',
    );
    expect(questionHint([1], 4, false, false, pdfId, mcpHints)).toContain(
      'Read on with read_full_text(pdf_id="PROJ:gpt/doc_1", chunk=2), or rephrase the question.',
    );
  });

  it('a single-chunk document is not told to read chunk 2 after an unmatched question', () => {
    expect(questionHint([1], 1, false)).toBe(
      'No passage matched the question; chunk 1 of 1 is returned. Rephrase the question.',
    );
  });

  it('quotes argument values as JSON strings, so a pdf_id with quotes stays one value', () => {
    expect(toolCall('read_full_text', { pdf_id: 'PDF_URL:https://x.org/a"b.pdf', chunk: 3 })).toBe(
      'read_full_text(pdf_id="PDF_URL:https://x.org/a\\"b.pdf", chunk=3)',
    );
  });
});
