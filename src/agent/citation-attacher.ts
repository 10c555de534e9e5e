import { contentTerms } from '../text/keywords.js';
import { splitSentences } from '../text/sentences.js';
import { citationMarkdown, type RetrievedSource, type SourceLedger } from './source-ledger.js';

export interface AttachOptions {
  /** Content terms a sentence must share with a retrieved sentence (default 3). */
  minShared?: number;
  /** Share of the sentence's content terms found in that retrieved sentence (default 0.5). */
  minOverlap?: number;
  /** Longest text held back waiting for a sentence to end (default 800 characters). */
  maxHold?: number;
}

/** A citation, a link or a source id already in a sentence: it is left as the model wrote it. */
const citationMarker =
  /\]\(|\[S\d+\]|https?:\/\/|\(\s*\p{Lu}[\p{L}'’-]+(?:\s+et al\.?|\s+(?:and|&)\s+\p{Lu}[\p{L}'’-]+)?,?\s+(?:1[5-9]|20)\d{2}[a-z]?\s*[;)]/u;
const abbreviations = new Set(
  'al e.g i.e fig figs eq eqs ref refs vs approx ca cf no nos vol pp dr prof resp et etc'.split(' '),
);

/**
 * Attaches citations to the answer's uncited statements, deterministically: a model (a small local
 * one above all) often states what a retrieved abstract says without citing it. As the answer
 * streams, each finished sentence that carries no citation, link or source id is compared with
 * every sentence the run retrieved (`ledger.evidence`; two adjacent ones together, and each record's
 * title, count too): the retrieved sentence that shares the largest
 * share of the sentence's content terms — at least `minShared` terms and `minOverlap` of them — gives
 * its record, whose citation is inserted before the sentence's final punctuation. Ties go to the
 * record retrieved first. Only records in the ledger can be attached, and the text still passes the
 * citation filter after this: nothing the run did not retrieve is ever cited.
 *
 * Text is held back until its sentence ends (". ", "? ", "! " or a line break outside brackets), so
 * the answer streams sentence by sentence.
 */
export class CitationAttacher {
  private pending = '';
  /** Characters of `pending` (the unfinished sentence) already sent. */
  private sent = 0;
  private sentences: Array<{ terms: Set<string>; source: RetrievedSource }> = [];
  private indexed = 0;
  /** Records whose title is already among `sentences`. */
  private readonly titled = new Set<string>();
  /** Citations attached so far. */
  attached = 0;
  private readonly minShared: number;
  private readonly minOverlap: number;
  private readonly maxHold: number;

  constructor(
    private readonly ledger: SourceLedger,
    options: AttachOptions = {},
  ) {
    this.minShared = options.minShared ?? 3;
    this.minOverlap = options.minOverlap ?? 0.5;
    this.maxHold = options.maxHold ?? 800;
  }

  /** Feeds answer text; returns the finished sentences (with any attached citations). */
  push(text: string): string {
    this.pending += text;
    let output = '';
    const end = this.lastBoundary(this.pending);
    if (end > 0) {
      output = this.attach(this.pending.slice(0, end)).slice(this.sent);
      this.pending = this.pending.slice(end);
      this.sent = 0;
    }
    if (this.pending.length > this.maxHold) {
      // No sentence end in sight: pass it on as it is.
      output += this.pending.slice(this.sent);
      this.pending = '';
      this.sent = 0;
      return output;
    }
    // The unfinished sentence streams on, except its tail where a citation may still go.
    const tail = /[.!?]?["”’*_)]*\s*$/.exec(this.pending)?.index ?? this.pending.length;
    if (tail > this.sent) {
      output += this.pending.slice(this.sent, tail);
      this.sent = tail;
    }
    return output;
  }

  /** Ends the answer: the last sentence, checked. */
  end(): string {
    const rest = this.pending;
    const sent = this.sent;
    this.pending = '';
    this.sent = 0;
    return rest ? this.attach(rest).slice(sent) : '';
  }

  /** The record whose retrieved sentence best supports `sentence`, if one does enough. */
  support(sentence: string): RetrievedSource | undefined {
    const terms = new Set(contentTerms(sentence));
    if (terms.size < this.minShared) return undefined;
    this.index();
    let best: { source: RetrievedSource; overlap: number; shared: number } | undefined;
    for (const candidate of this.sentences) {
      let shared = 0;
      for (const term of terms) if (candidate.terms.has(term)) shared += 1;
      const overlap = shared / terms.size;
      if (shared < this.minShared || overlap < this.minOverlap) continue;
      if (!best || overlap > best.overlap || (overlap === best.overlap && shared > best.shared))
        best = { source: candidate.source, overlap, shared };
    }
    return best?.source;
  }

  /**
   * Splits the evidence retrieved since the last call into what a statement is compared with: each
   * sentence, each two adjacent sentences (a small model joins two findings in one sentence), and
   * each record's title (an answer restates the study it cites: "the study comparing regional with
   * general anaesthesia … found no difference").
   */
  private index(): void {
    const evidence = this.ledger.evidence;
    for (; this.indexed < evidence.length; this.indexed += 1) {
      const item = evidence[this.indexed];
      if (!item) continue;
      const add = (text: string) =>
        this.sentences.push({ terms: new Set(contentTerms(text)), source: item.source });
      if (!this.titled.has(item.source.id)) {
        this.titled.add(item.source.id);
        if (item.source.paper.title.trim()) add(item.source.paper.title);
      }
      const sentences = splitSentences(item.text);
      sentences.forEach((text, index) => {
        add(text);
        if (index > 0) add(`${sentences[index - 1]} ${text}`);
      });
    }
  }

  /** Citations added to the finished sentences of `text` that need one and have support. */
  private attach(text: string): string {
    let output = '';
    let start = 0;
    for (const end of [...boundaries(text), text.length]) {
      if (end <= start) continue;
      output += this.cite(text.slice(start, end));
      start = end;
    }
    return output;
  }

  private cite(piece: string): string {
    const match = /^([\s\S]*?)([.!?]?)(["”’*_)]*)(\s*)$/.exec(piece);
    if (!match) return piece;
    const [, body = '', stop = '', closing = '', space = ''] = match;
    const trimmed = body.trim();
    if (
      trimmed.length === 0 ||
      citationMarker.test(piece) ||
      /^\s*(?:#|\||>|!\[|\*\(|```)/.test(piece) ||
      // A sentence in brackets or a quoted passage is not the answer's own statement.
      /\\[[(]/.test(piece)
    )
      return piece;
    const source = this.support(trimmed);
    if (!source) return piece;
    this.attached += 1;
    const citation = citationMarkdown(source);
    // After a closing quotation mark, not inside the quoted words: '"… ends" [Lee, 2020].'
    if (/["”’]/.test(closing)) return `${body}${stop === '.' ? '' : stop}${closing} ${citation}.${space}`;
    return `${body.replace(/\s+$/, '')} ${citation}${stop}${closing}${space}`;
  }

  /** Where the last finished sentence of `text` ends (0: none finished yet). */
  private lastBoundary(text: string): number {
    return boundaries(text).at(-1) ?? 0;
  }
}

/** A quotation longer than this is taken as never closed: its sentences end as usual. */
const maxQuote = 600;

/**
 * Ends of sentences in `text`: after ". ", "? ", "! " (and closing quotes or emphasis) or at a line
 * break, outside square brackets and parentheses (a citation being written) and outside a
 * quotation in double quotes (a quoted passage of several sentences is one statement: a citation
 * inserted inside it would put our words in the quoted text), not after an abbreviation ("et al.",
 * "e.g.") or an initial. Each end includes the whitespace that follows.
 */
function boundaries(text: string): number[] {
  const ends: number[] = [];
  let depth = 0;
  /** Where the open quotation began, or -1. */
  let quote = -1;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (char === '[' || char === '(') depth += 1;
    else if ((char === ']' || char === ')') && depth > 0) depth -= 1;
    if (depth > 0) continue;
    if (char === '\n') {
      quote = -1;
      let end = index + 1;
      while (end < text.length && text[end] === '\n') end += 1;
      if (ends.at(-1) !== end) ends.push(end);
      index = end - 1;
      continue;
    }
    let stop = index;
    if (char === '“' || (char === '"' && quote < 0)) {
      quote = index;
      continue;
    }
    if (char === '”' || char === '"') {
      // A quotation closing on its own sentence's end ('… slows penetration." Next') ends it there.
      quote = -1;
      stop = index - 1;
    } else if (quote >= 0 && index - quote > maxQuote) quote = -1;
    if (quote >= 0) continue;
    const end = sentenceEnd(text, stop);
    if (end > 0 && ends.at(-1) !== end) ends.push(end);
  }
  return ends;
}

/** Where a sentence whose stop may be at `stop` ends (the whitespace after it included), or 0. */
function sentenceEnd(text: string, stop: number): number {
  const char = text[stop];
  if (char !== '.' && char !== '!' && char !== '?') return 0;
  let end = stop + 1;
  while (end < text.length && /["”’*_)]/.test(text[end] as string)) end += 1;
  if (end >= text.length || !/\s/.test(text[end] as string)) return 0;
  if (char === '.') {
    const word = /([\p{L}.]+)$/u.exec(text.slice(0, stop))?.[1] ?? '';
    if (abbreviations.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word)) return 0;
  }
  while (end < text.length && /[ \t]/.test(text[end] as string)) end += 1;
  if (end < text.length && text[end] === '\n') return 0;
  return end;
}
