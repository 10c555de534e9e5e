import {
  citationMarkdown,
  type RetrievedSource,
  type SourceLedger,
  surnameOf,
  yearOf,
} from './source-ledger.js';

/** What the citation check did to one answer. */
export interface CitationReport {
  /** Links to retrieved records, left as written. */
  kept: number;
  /** Links to retrieved records whose label or url was corrected to the record's own. */
  corrected: number;
  /** Bare citations ("(Smith et al., 2020)", "[S2]") turned into links to the record they name. */
  linked: number;
  /** Citations and links that match no retrieved record: removed from the answer. */
  removed: Array<{ text: string; reason: string }>;
  /** Retrieved records the answer cites, in order of first citation. */
  cited: RetrievedSource[];
}

/** What replaces a citation or link that matches no retrieved record. */
export const removedCitationNote = '(unverified citation removed)';

const authorYear =
  /^(?:e\.g\.,?\s*|see\s+|cf\.\s*)?\p{Lu}[\p{L}'’-]+(?:\s+et al\.?|\s+(?:and|&)\s+\p{Lu}[\p{L}'’-]+)?,?\s+(?:1[5-9]|20)\d{2}[a-z]?$/u;
const special = /\\|!\[|!$|\[|\(|<https?:\/\/|https?:\/\//g;
const partialUrl = /(?:^|[^\p{L}\p{N}])(<?h(?:t(?:t(?:p(?:s?(?::(?:\/\/?)?)?)?)?)?)?)$/u;

type Step = { output: string; end: number } | null;

/**
 * The citation check, run on the answer as it streams. Text passes through at once, except a
 * possible citation or link, which is held back until it is complete and then checked against the
 * ledger of retrieved records:
 * - `[label](url)` to a retrieved record stays; a wrong label (or a url of the same record in
 *   another form) is corrected to the record's own citation;
 * - `[label](url)` to anything else is replaced by `removedCitationNote`, unless its label names a
 *   retrieved record exactly, in which case it is re-pointed at that record;
 * - bare author–year citations and `[S3]`-style source ids become links when they name a retrieved
 *   record and are removed when they name none;
 * - bare URLs and images must be retrieved records (or figures the run saw).
 * So no citation that matches no retrieved record ever reaches the client.
 */
export class CitationFilter {
  private pending = '';
  readonly report: CitationReport = { kept: 0, corrected: 0, linked: 0, removed: [], cited: [] };

  /** @param maxHold longest text held back waiting for a construct to close. */
  constructor(
    private readonly ledger: SourceLedger,
    private readonly maxHold = 600,
  ) {}

  /** Feeds text; returns what can be sent now. */
  push(text: string): string {
    this.pending += text;
    return this.drain(false);
  }

  /** Ends the answer; returns whatever was held back, checked. */
  end(): string {
    return this.drain(true);
  }

  private drain(final: boolean): string {
    const text = this.pending;
    let output = '';
    let position = 0;
    while (position < text.length) {
      special.lastIndex = position;
      const match = special.exec(text);
      if (!match) {
        const hold = final ? text.length : holdFrom(text, position);
        output += text.slice(position, hold);
        position = hold;
        break;
      }
      output += text.slice(position, match.index);
      position = match.index;
      const step = this.consume(text, position, final);
      if (step === null) break;
      output += step.output;
      position = step.end;
    }
    this.pending = text.slice(position);
    return output;
  }

  private consume(text: string, start: number, final: boolean): Step {
    const character = text[start];
    const tooLong = text.length - start > this.maxHold;
    const wait = (fallback: Step): Step => (final || tooLong ? fallback : null);
    if (character === '\\') {
      return start + 1 < text.length
        ? { output: text.slice(start, start + 2), end: start + 2 }
        : wait({ output: '\\', end: start + 1 });
    }
    if (character === '!') {
      if (start + 1 >= text.length) return wait({ output: '!', end: start + 1 });
      return this.bracket(text, start + 1, final, tooLong, true);
    }
    if (character === '[') return this.bracket(text, start, final, tooLong, false);
    if (character === '(') return this.parenthesis(text, start, final, tooLong);
    return this.bareUrl(text, start, final, tooLong);
  }

  private bracket(text: string, start: number, final: boolean, tooLong: boolean, image: boolean): Step {
    const prefix = image ? '!' : '';
    const literal = { output: `${prefix}[`, end: start + 1 };
    let close = start + 1;
    while (close < text.length && text[close] !== ']' && text[close] !== '\n' && text[close] !== '[')
      close += 1;
    if (close >= text.length) return final || tooLong ? literal : null;
    if (text[close] !== ']') return literal;
    const label = text.slice(start + 1, close);
    if (close + 1 >= text.length) return final || tooLong ? this.bareBracket(label, close + 1, prefix) : null;
    if (text[close + 1] !== '(') return this.bareBracket(label, close + 1, prefix);
    const end = closingParenthesis(text, close + 1);
    if (end === -1) return final || tooLong ? literal : null;
    if (end === -2) return literal;
    const target = text.slice(close + 2, end).trim();
    const url =
      (target.startsWith('<') ? target.slice(1, target.indexOf('>')) : target.split(/\s+/)[0]) ?? '';
    return { output: image ? this.image(label, url) : this.link(label, url), end: end + 1 };
  }

  private link(label: string, url: string): string {
    const source = this.ledger.findByUrl(url);
    if (source) {
      this.cite(source);
      if (labelNames(label, source) && url === source.url) {
        this.report.kept += 1;
        return `[${label}](${url})`;
      }
      this.report.corrected += 1;
      return citationMarkdown(source);
    }
    const named = this.ledger.findByAuthorYear(label);
    if (named) {
      this.cite(named);
      this.report.corrected += 1;
      return citationMarkdown(named);
    }
    return this.remove(`[${label}](${url})`, 'links to no retrieved record');
  }

  private image(alt: string, url: string): string {
    if (this.ledger.isFigure(url) || this.ledger.findByUrl(url)) return `![${alt}](${url})`;
    return this.remove(`![${alt}](${url})`, 'image from no retrieved record');
  }

  /** `[...]` not followed by a url: author–year citations and source ids are checked, the rest is text. */
  private bareBracket(label: string, end: number, prefix: string): Step {
    const linked = this.bareCitations(label);
    if (linked === undefined) return { output: `${prefix}[${label}]`, end };
    return { output: prefix + linked, end };
  }

  private parenthesis(text: string, start: number, final: boolean, tooLong: boolean): Step {
    const literal = { output: '(', end: start + 1 };
    let close = start + 1;
    while (close < text.length && !'()\n'.includes(text[close] ?? '') && close - start < 200) close += 1;
    if (close >= text.length) return final || tooLong ? literal : null;
    if (text[close] !== ')') return literal;
    const linked = this.bareCitations(text.slice(start + 1, close));
    return linked === undefined ? literal : { output: `(${linked})`, end: close + 1 };
  }

  /** Citations separated by ";" → their links; undefined when the text is not a list of citations. */
  private bareCitations(text: string): string | undefined {
    const parts = text.split(/\s*;\s*/).map((part) => part.trim());
    const isSourceId = (part: string) => /^S\d{1,3}$/.test(part);
    if (parts.length === 0 || !parts.every((part) => authorYear.test(part) || isSourceId(part)))
      return undefined;
    return parts
      .map((part) => {
        const source = isSourceId(part)
          ? this.ledger.sources().find((candidate) => candidate.id === part)
          : this.ledger.findByAuthorYear(part.replace(/^(?:e\.g\.,?\s*|see\s+|cf\.\s*)/, ''));
        if (!source) return this.remove(part, 'names no retrieved record');
        this.cite(source);
        this.report.linked += 1;
        return citationMarkdown(source);
      })
      .join('; ');
  }

  private bareUrl(text: string, start: number, final: boolean, tooLong: boolean): Step {
    const angle = text[start] === '<';
    let end = angle ? start + 1 : start;
    let depth = 0;
    while (end < text.length) {
      const character = text[end] ?? '';
      if (/\s/.test(character) || '<"`'.includes(character) || (angle && character === '>')) break;
      if (!angle && character === '>') break;
      if (character === '(') depth += 1;
      if (character === ')') {
        if (depth === 0) break;
        depth -= 1;
      }
      end += 1;
    }
    if (end >= text.length && !(final || tooLong)) return null;
    if (!angle) while (end > start && /[.,;:!?'"\]]/.test(text[end - 1] ?? '')) end -= 1;
    const url = text.slice(angle ? start + 1 : start, end);
    const close = angle && text[end] === '>' ? end + 1 : end;
    const source = this.ledger.findByUrl(url);
    if (source || this.ledger.isFigure(url)) {
      if (source) this.cite(source);
      this.report.kept += 1;
      return { output: text.slice(start, close), end: close };
    }
    return { output: this.remove(url, 'url of no retrieved record'), end: close };
  }

  private cite(source: RetrievedSource): void {
    if (!this.report.cited.includes(source)) this.report.cited.push(source);
  }

  private remove(text: string, reason: string): string {
    this.report.removed.push({ text, reason });
    return removedCitationNote;
  }
}

/** Checks a whole answer at once (the non-streaming form of the filter). */
export function checkCitations(
  markdown: string,
  ledger: SourceLedger,
): { text: string; report: CitationReport } {
  const filter = new CitationFilter(ledger, Number.POSITIVE_INFINITY);
  const text = filter.push(markdown) + filter.end();
  return { text, report: filter.report };
}

/** Index of the `)` closing the `(` at `open`; -1 when the text ends first, -2 at a line break. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    const character = text[index];
    if (character === '\n') return -2;
    if (character === '(') depth += 1;
    if (character === ')') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** Where to stop sending when the text may end in the first letters of a URL ("htt", "<http:/"). */
function holdFrom(text: string, position: number): number {
  const tail = text.slice(Math.max(position, text.length - 9));
  const match = partialUrl.exec(tail);
  if (!match?.[1]) return text.length;
  return Math.max(position, text.length - match[1].length);
}

/** Whether a link's label names the source: its own label, or its first author's surname and year. */
function labelNames(label: string, source: RetrievedSource): boolean {
  const normalize = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  const text = normalize(label);
  if (text === normalize(source.label)) return true;
  const surname = normalize(surnameOf(source.paper.authors[0] ?? ''));
  const year = yearOf(source.paper);
  return surname.length > 0 && text.includes(surname) && (year === undefined || text.includes(String(year)));
}
