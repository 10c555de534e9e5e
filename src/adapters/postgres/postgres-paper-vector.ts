import type { IndexedText } from '../paper-index/index-fields.js';
import { indexTokens } from '../paper-index/index-tokenizer.js';
import { walkFieldTokens } from './postgres-inverted-codec.js';

/**
 * A record's tsvector for the PostgreSQL index, written here rather than by `to_tsvector` so that
 * words are the SQLite index's tokens (same tokeniser and stemmer). Fields carry weight labels —
 * title A, abstract B, authors, venue and identifiers C — and are one position apart, so that a
 * phrase never spans two fields (as in FTS5's columns).
 */
export interface VectorDocument {
  /** tsvector input text: `'lexeme':1A,4A 'other':2B …`. */
  text: string;
  /** Tokens of all fields plus the three facet tokens the SQLite index counts (its record length). */
  length: number;
  /** Distinct lexemes (for document frequencies). */
  lexemes: string[];
}

/** PostgreSQL's limits: a lexeme under 2 KiB, 256 positions per lexeme, positions below 16 384. */
const maxLexemeBytes = 2046;
const maxPositions = 255;
const maxPosition = 16_383;
const labels = ['A', 'B', 'C'] as const;

export function documentVector(text: IndexedText): VectorDocument {
  const positions = new Map<string, string[]>();
  const length = walkFieldTokens(text, (token, position, field) => {
    if (!fits(token)) return;
    let list = positions.get(token);
    if (!list) {
      list = [];
      positions.set(token, list);
    }
    if (list.length < maxPositions && position <= maxPosition) list.push(`${position}${labels[field]}`);
  });
  const parts: string[] = [];
  for (const [lexeme, list] of positions) {
    parts.push(list.length > 0 ? `${quoteLexeme(lexeme)}:${list.join(',')}` : quoteLexeme(lexeme));
  }
  return { text: parts.join(' '), length, lexemes: [...positions.keys()] };
}

/** The lexemes of a query clause, as the index stores them. */
documentVector.lexemesOf = (text: string): string[] => indexTokens(text).filter(fits);

function fits(token: string): boolean {
  return Buffer.byteLength(token) <= maxLexemeBytes;
}

export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
