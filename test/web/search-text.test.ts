import { describe, expect, it } from 'vitest';
import { searchParameter } from '../../web/src/lib/search-text.js';

describe("the web page's search box rule (decision 0045)", () => {
  it('sends a question or a sentence as query', () => {
    for (const text of [
      'how to detect hallucinations in abstractive summarization',
      'Which tools speed up event annotation?',
      'protein folding?',
      'What is BM25',
      'text annotation tools for information extraction',
      'deep learning "protein structure" prediction from sequence alone',
    ]) {
      expect(searchParameter(text), text).toBe('query');
    }
  });

  it('sends a few keyword-like words, or quoted phrases, as keywords', () => {
    for (const text of [
      'annotation tool',
      'protein folding',
      'CRISPR off-target effects',
      '"abstractive summarization" hallucination',
      '"large language models" "in-context learning" evaluation benchmark',
      'BERT',
    ]) {
      expect(searchParameter(text), text).toBe('keywords');
    }
  });
});
