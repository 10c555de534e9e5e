/**
 * The size limits every way into the catalogue shares: project imports (BibTeX, RIS, CSL-JSON over
 * HTTP) and `alexandria ingest` (every format). They sit far above any real record (the longest
 * title in the shared ACL and ML corpora is 512 characters, the longest abstract 7,251, the longest
 * SciFact text 10,000) and far below what hurts the process, so a hostile file is refused before it
 * costs memory: a 611-byte BibTeX file of nested `@string` macros once expanded to an 84-million-character title.
 * Fixed rather than configured: no honest input comes near them (see docs/decisions/0015).
 */
export const inputLimits = {
  /** Most entries one project import accepts. */
  importEntries: 2000,
  /** Longest value of one field after BibTeX macro expansion (characters). */
  fieldChars: 100_000,
  /** Most characters the macros and fields of one import request may expand to, together. */
  requestExpandedChars: 20 * 1024 * 1024,
  /** Most characters all `@string` macros of one ingest file may expand to, together. */
  ingestMacroChars: 1024 * 1024,
  /** Deepest nesting of arrays and objects in a CSL-JSON import (an item needs about 5). */
  jsonDepth: 64,
  /**
   * Longest BibTeX entry or RIS record (characters), and so longest line of one: a longer line is
   * skipped as it streams past, never held whole, and its entry is rejected by the line's number.
   */
  entryChars: 4 * 1024 * 1024,
  /** Longest stored title (characters). */
  titleChars: 4_000,
  /** Longest stored abstract (characters). */
  abstractChars: 100_000,
  /** Longest stored author name, venue, url or identifier (characters). */
  shortFieldChars: 4_000,
  /** Most authors (or inventors) of one record; collaboration papers have a few thousand. */
  authors: 10_000,
  /** Largest stored record, all fields together (characters of its JSON). */
  recordChars: 1024 * 1024,
  /**
   * Longest line of a JSON Lines file (characters). The raw record carries more than what is stored
   * (OpenAlex's inverted abstract, reference lists), so this sits well above `recordChars`; the
   * longest line in the shared corpora and patent sets is 52,567 characters. A longer line is
   * skipped as it streams past, never held whole, and rejected by its line number.
   */
  jsonLineChars: 16 * 1024 * 1024,
  /**
   * Longest single JSON value of an array or pretty-printed JSON file (characters), and longest
   * line of one: a Crossref public-data file is one `{items: […]}` value of a few thousand works.
   * The same bound as one XML record.
   */
  jsonValueChars: 256 * 1024 * 1024,
} as const;

/** Which limit a value broke, in words: "title is 83886080 characters (at most 4000)". */
export function tooLong(what: string, length: number, limit: number): string {
  const size = Number.isFinite(length) ? String(length) : 'unboundedly many';
  return `${what} is ${size} characters (at most ${limit})`;
}
