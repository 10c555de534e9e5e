/**
 * Measures how long every BibTeX value becomes once `@string` macros are expanded, without expanding
 * anything: macros are kept as lengths, so `@string{b = a # a}` costs one addition however large `a`
 * is. citation-js expands macros while it parses, so a few hundred bytes of nested macros (each
 * doubling the last) can build strings of millions of characters before any check on the result
 * could run; this scan, linear in the text, lets callers refuse such a file first.
 *
 * The grammar follows citation-js's own BibTeX lexer (plugin-bibtex `input/file.js`): `@comment …`
 * to the end of the line is junk, `@string`/`@preamble` take an expression, other entries a key and
 * `name = expression` fields; an expression is parts joined by `#` — a macro name, a number, a
 * `"quoted"` or `{braced}` literal. An unknown macro expands to nothing (citation-js), except the
 * month names it predefines (2 characters). Text the scan cannot follow is skipped to the next `@`,
 * as citation-js would fail on it anyway.
 */

/** Lengths of the macros defined so far, by lower-case name (shared across calls for a stream). */
export type MacroLengths = Map<string, number>;

/** What expanding a BibTeX text would produce, in sizes. */
export interface BibtexExpansion {
  /** Data entries (`@article{…}` and the like; not `@string`, `@preamble`, `@comment`). */
  entries: number;
  /** Characters of every macro and field value after expansion, together. */
  total: number;
  /** The longest single value after expansion, and where it is. */
  largest: { where: string; length: number } | null;
  /** Names (lower case) of the macros the text defines, in order. */
  defined: string[];
}

const identifier = /[a-zA-Z_][a-zA-Z0-9_:+-]*/y;
const number = /-?\d+/y;
const label = /[^,\s]+/y;
const otherType = /string|preamble/iy;
const commentLine = /@comment.+/iy;
/** Length of citation-js's predefined month macros (`jan` → `01`). */
const predefinedLength = 2;

/** Measures `text`; macros it defines are added to `macros` (pass the same map for a split stream). */
export function measureBibtex(text: string, macros: MacroLengths = new Map()): BibtexExpansion {
  const scanner = new Scanner(text, macros);
  scanner.run();
  const { entries, total, largest, defined } = scanner;
  return { entries, total, largest, defined };
}

class SyntaxStop extends Error {}

class Scanner {
  private position = 0;
  entries = 0;
  total = 0;
  largest: BibtexExpansion['largest'] = null;
  defined: string[] = [];

  constructor(
    private readonly text: string,
    private readonly macros: MacroLengths,
  ) {}

  run(): void {
    while (this.position < this.text.length) {
      const at = this.text.indexOf('@', this.position);
      if (at === -1) return;
      this.position = at;
      if (this.match(commentLine) !== null) continue;
      this.position += 1;
      try {
        this.entry();
      } catch (error) {
        if (!(error instanceof SyntaxStop)) throw error;
        // Resynchronise at the next `@`, past the one that started the broken entry.
        this.position = Math.max(this.position, at + 1);
      }
    }
  }

  private entry(): void {
    this.skipSpace();
    const other = this.match(otherType);
    const type = other?.toLowerCase() ?? this.expect(identifier).toLowerCase();
    this.skipSpace();
    this.expectChar('{(');
    this.skipSpace();
    if (type === 'string') {
      const name = this.expect(identifier).toLowerCase();
      const length = this.afterEquals();
      this.macros.set(name, length);
      this.defined.push(name);
      this.record(`@string ${name}`, length);
    } else if (type === 'preamble') {
      this.record('@preamble', this.expression());
    } else {
      this.entries += 1;
      // An entry key; `{` or `(` first is another opening brace, as citation-js's lexer reads it.
      while (this.peekIn('{(')) this.position += 1;
      const key = this.expect(label);
      this.skipSpace();
      this.expectChar(',');
      this.skipSpace();
      for (;;) {
        const field = this.match(identifier);
        if (field === null) break;
        this.record(`field ${field.toLowerCase()} of entry ${key}`, this.afterEquals());
        this.skipSpace();
        if (!this.peekIn(',')) break;
        this.position += 1;
        this.skipSpace();
      }
    }
    this.skipSpace();
    this.expectChar('})');
  }

  /** `= expression` after a field or macro name: the expanded length of the expression. */
  private afterEquals(): number {
    this.skipSpace();
    this.expectChar('=');
    this.skipSpace();
    return this.expression();
  }

  private expression(): number {
    let length = this.part();
    this.skipSpace();
    while (this.peekIn('#')) {
      this.position += 1;
      this.skipSpace();
      length += this.part();
      this.skipSpace();
    }
    return length;
  }

  private part(): number {
    const name = this.match(identifier);
    if (name !== null) {
      const known = this.macros.get(name.toLowerCase());
      return known ?? (name.length === 3 ? predefinedLength : 0);
    }
    const digits = this.match(number);
    if (digits !== null) return digits.length;
    if (this.peekIn('"')) return this.quoted();
    if (this.peekIn('{')) return this.braced();
    throw new SyntaxStop();
  }

  /**
   * A `"…"` literal: ends at the first `"` outside braces (`\"` does not escape it in citation-js;
   * only `\\` and `\{` do); its length is that of its text.
   */
  private quoted(): number {
    const start = this.position;
    this.position += 1;
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (Number.isNaN(code)) throw new SyntaxStop();
      if (code === 0x22) break;
      const next = this.text.charCodeAt(this.position + 1);
      if (code === 0x7b) this.braced();
      else this.position += code === 0x5c && (next === 0x5c || next === 0x7b) ? 2 : 1;
    }
    this.position += 1;
    return this.position - start - 2;
  }

  /** A `{…}` literal with nested braces (`\{`, `\}` and `\\` escaped); its length is that of its text. */
  private braced(): number {
    const start = this.position;
    let depth = 0;
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (Number.isNaN(code)) throw new SyntaxStop();
      if (code === 0x5c) this.position += 2;
      else {
        this.position += 1;
        if (code === 0x7b) depth += 1;
        else if (code === 0x7d) {
          depth -= 1;
          if (depth === 0) return this.position - start - 2;
        }
      }
    }
  }

  private record(where: string, length: number): void {
    this.total += length;
    if (!this.largest || length > this.largest.length) this.largest = { where, length };
  }

  /** White space and `%` comments, as citation-js skips them inside entries. */
  private skipSpace(): void {
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (code === 0x25) {
        const end = this.text.indexOf('\n', this.position);
        this.position = end === -1 ? this.text.length : end;
      } else if (code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0xfeff) {
        this.position += 1;
      } else {
        return;
      }
    }
  }

  private match(pattern: RegExp): string | null {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return null;
    this.position += found[0].length;
    return found[0];
  }

  private expect(pattern: RegExp): string {
    const found = this.match(pattern);
    if (found === null) throw new SyntaxStop();
    return found;
  }

  private peekIn(characters: string): boolean {
    const character = this.text[this.position];
    return character !== undefined && characters.includes(character);
  }

  private expectChar(characters: string): void {
    if (!this.peekIn(characters)) throw new SyntaxStop();
    this.position += 1;
  }
}
