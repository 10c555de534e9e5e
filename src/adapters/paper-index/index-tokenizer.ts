/**
 * The paper index's tokeniser for adapters that tokenise outside SQLite (PostgreSQL): the analyzer's
 * index setting (`indexTerms` in `text/analyzer.ts`), which yields the terms of FTS5's `porter
 * unicode61 remove_diacritics 2`. Both adapters must tokenise alike for their BM25 to agree:
 * `test/contract/index-tokenizer.test.ts` compares it with FTS5's own tokens on real corpora.
 */
export { indexTerms as indexTokens } from '../../text/analyzer.js';
