import { type LabellerModel, labelTokens, type Token, tokenize } from './reference-labeller.js';
import model from './reference-model.json' with { type: 'json' };

/**
 * The one reference-string parser (decision 0048): a printed reference — from a PDF's reference
 * list or from pasted text — is labelled token by token by the learnt labeller
 * (`reference-labeller.ts`, weights in `reference-model.json`, built by
 * `npm run train:references`), and each labelled span is cleaned into a field.
 */

/** The fields of one parsed reference, as printed (cleaned of the punctuation around them). */
export interface ParsedReference {
  raw: string;
  /** Author names as printed, one string each ("Smith, J.", "Jane Smith", "Smith JA"). */
  authors: string[];
  editors: string[];
  translators: string[];
  title: string | null;
  /** Journal, proceedings or book the work is part of. */
  containerTitle: string | null;
  /** Whether the container was labelled a journal (rather than a book or proceedings). */
  journal: boolean;
  year: number | null;
  /** The year as printed with its disambiguating letter ("2023a"). */
  yearLabel: string | null;
  volume: string | null;
  issue: string | null;
  pages: string | null;
  publisher: string | null;
  place: string | null;
  edition: string | null;
  genre: string | null;
  note: string | null;
  url: string | null;
  doi: string | null;
  arxiv: string | null;
  isbn: string | null;
  /** The citation number printed before the reference ("[12]", "12."), when labelled. */
  number: string | null;
  /** The labelled spans the fields were read from, in order. */
  spans: LabelledSpan[];
}

const labeller = model as LabellerModel;

const doiPattern = /\b(10\.\d{4,9}\/[^\s"<>]+)/;
const arxivPatterns = [
  /arxiv(?:\.org\/(?:abs|pdf)\/|:\s*|\s+preprint\s+arxiv:\s*|,?\s*abs\/)\s*(\d{4}\.\d{4,5})(?:v\d+)?/i,
  /\babs\/(\d{4}\.\d{4,5})\b/i,
];

export function findDoi(raw: string): string | null {
  // A DOI broken over two lines gains a space after "doi:" or inside; close that gap first.
  const joined = raw.replace(/(doi\.org\/|doi:)\s+/gi, '$1');
  const match = doiPattern.exec(joined);
  if (!match?.[1]) return null;
  return match[1].replace(/[.,;:)\]]+$/, '').toLowerCase();
}

export function findArxiv(raw: string): string | null {
  for (const pattern of arxivPatterns) {
    const match = pattern.exec(raw);
    if (match?.[1]) return match[1];
  }
  return null;
}

/** The labelled spans of a reference: runs of tokens with one label, in order. */
export interface LabelledSpan {
  label: string;
  text: string;
}

export function labelledSpans(raw: string, model: LabellerModel = labeller): LabelledSpan[] {
  const text = raw.replace(/\s+/g, ' ').trim();
  const tokens = tokenize(text);
  const labels = labelTokens(model, tokens);
  const spans: LabelledSpan[] = [];
  let open: { label: string; tokens: Token[] } | null = null;
  tokens.forEach((token, index) => {
    const label = labels[index] ?? 'note';
    if (open && open.label === label) open.tokens.push(token);
    else {
      if (open) spans.push({ label: open.label, text: open.tokens.map((t) => t.text).join(' ') });
      open = { label, tokens: [token] };
    }
  });
  const last = open as { label: string; tokens: Token[] } | null;
  if (last) spans.push({ label: last.label, text: last.tokens.map((t) => t.text).join(' ') });
  return spans;
}

/** Punctuation around a field that is the reference's, not the field's. */
function trimField(text: string): string {
  return text
    .replace(/^[\s,;:.([]+/, '')
    .replace(/[\s,;:([]+$/, '')
    .replace(/^\((.*)\)\.?$/, '$1')
    .replace(/\.$/, '')
    .trim();
}

function cleanTitle(text: string): string | null {
  const cleaned = text
    .trim()
    .replace(/^["“'‘«]+/, '')
    .replace(/[\s,.;:]+$/, '')
    .replace(/["”'’»]+$/, '')
    .replace(/[\s,.;:]+$/, '')
    .trim();
  return cleaned.length >= 2 ? cleaned : null;
}

function cleanContainer(text: string): string | null {
  const cleaned = cleanTitle(text.replace(/^\s*in:?\s+/i, ''));
  return cleaned;
}

/** "vol. 36, no. 9" → 36 and 9; "12(3)" → 12 and 3; "61," → 61. */
function volumeAndIssue(text: string): { volume: string | null; issue: string | null } {
  const issueMatch = /(?:\bno\.?|\bnr\.?|\bissue|\bheft|\bh\.)\s*([\p{L}\p{N}/–-]+)|\(([^)]+)\)/iu.exec(text);
  const issue = issueMatch ? (issueMatch[1] ?? issueMatch[2] ?? '').trim() || null : null;
  const head = issueMatch ? text.slice(0, issueMatch.index) : text;
  const volume = trimField(head.replace(/^\s*(?:vol(?:ume)?\.?|bd\.?|v\.)\s*/i, '')).replace(/,$/, '');
  return { volume: volume || null, issue };
}

function cleanPages(text: string): string | null {
  const cleaned = trimField(text.replace(/^\s*(?:pages?|pp?\.?|s\.)(?=[\s\d])\s*/i, '')).replace(
    /\s*[–—-]+\s*/g,
    '-',
  );
  return cleaned || null;
}

const familyOnly =
  /^(?:(?:van|von|de|der|den|del|della|da|di|du|la|le|ter)\s+)*[\p{L}'’]+(?:-\s?[\p{L}'’]+)*$/iu;
const givenLike = /^(?:\p{Lu}[\p{L}'’]*\.?[\s-]*)+$/u;

/**
 * Whether a name's final period is its own (an initial: "Smith, J.", "J. Smith", "C.J.") rather
 * than the list's: Vancouver initials are set without periods ("Jentsch S.").
 */
function keepsFinalPeriod(piece: string): boolean {
  if (!/(?:^|[\s.,-])\p{Lu}\.$/u.test(piece)) return false;
  return !/^[\p{L}'’ -]+\s\p{Lu}{1,3}\.$/u.test(piece) || /\p{Lu}\.\s/u.test(piece) || /,/.test(piece);
}

/** Names of an author or editor span, one string each. */
export function namesOf(text: string): string[] {
  const cleaned = text
    .replace(/\(?\b(?:eds?|hrsg|hg|trans|transl)\.?\)?,?/gi, ' ')
    .replace(/\b(?:edited|translated)\s+by\b/gi, ' ')
    .replace(/\bet\.?\s+al\.?|\band\s+others\b/gi, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:.]+|[\s,;:]+$/g, '')
    .trim();
  if (!cleaned) return [];
  const semicolons = cleaned.includes(';');
  const pieces = cleaned
    .split(semicolons ? /\s*;\s*(?:and\s+|&\s*)?/ : /\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*/)
    .map((piece) => piece.replace(/^(?:and|&)\s+/i, '').trim())
    .map((piece) => (keepsFinalPeriod(piece) ? piece : piece.replace(/\.$/, '')))
    .filter((piece) => /\p{L}/u.test(piece));
  if (semicolons) return pieces;
  // "Smith, J., Jones, K." and "Nichols, Bill": a family name alone, then its given names.
  const names: string[] = [];
  for (let i = 0; i < pieces.length; i += 1) {
    const piece = pieces[i] as string;
    const next = pieces[i + 1];
    if (next && familyOnly.test(piece) && givenLike.test(next)) {
      names.push(`${piece}, ${next}`);
      i += 1;
    } else names.push(piece);
  }
  return names.slice(0, 200);
}

/** Parses one printed reference into its fields. Pure; about 2,000 references a second. */
export function parseReference(raw: string, model: LabellerModel = labeller): ParsedReference {
  const text = raw.replace(/\s+/g, ' ').trim();
  const spans = labelledSpans(text, model);
  const first = (...labels: string[]) => spans.find((span) => labels.includes(span.label))?.text ?? null;
  const date = first('date');
  const yearMatch = date ? /(?<!\d)(1[5-9]\d{2}|20\d{2})([a-z])?(?!\d)/.exec(date) : null;
  const containerSpan = first('journal', 'container-title', 'collection-title');
  const volumeSpan = first('volume');
  const { volume, issue } = volumeSpan ? volumeAndIssue(volumeSpan) : { volume: null, issue: null };
  const urlSpan = first('url');
  const urlMatch = /(https?:\/\/\S+|www\.\S+)/.exec(urlSpan ?? text);
  const keep = (value: string | null) => (value ? trimField(value) || null : null);
  const parsed: ParsedReference = {
    raw: text,
    authors: spans.filter((span) => span.label === 'author').flatMap((span) => namesOf(span.text)),
    editors: spans.filter((span) => span.label === 'editor').flatMap((span) => namesOf(span.text)),
    translators: spans.filter((span) => span.label === 'translator').flatMap((span) => namesOf(span.text)),
    title: cleanTitle(first('title') ?? ''),
    containerTitle: containerSpan ? cleanContainer(containerSpan) : null,
    journal: spans.some((span) => span.label === 'journal'),
    year: yearMatch?.[1] ? Number(yearMatch[1]) : null,
    yearLabel: yearMatch ? `${yearMatch[1]}${yearMatch[2] ?? ''}` : null,
    volume,
    issue,
    pages: cleanPages(first('pages') ?? ''),
    publisher: keep(first('publisher')),
    place: keep(first('location')),
    edition: keep(first('edition')),
    genre: keep(first('genre')),
    note: keep(first('note')),
    url: urlMatch?.[1]?.replace(/[.,;]+$/, '') ?? null,
    doi: findDoi(text),
    arxiv: findArxiv(text),
    isbn: keep(first('isbn')),
    number: /\d+/.exec(first('citation-number') ?? '')?.[0] ?? null,
    spans,
  };
  return withVancouverLocator(withTitleCut(parsed), text);
}

/** Where a title the labeller ran on is followed by its venue: ". arXiv preprint", ". In Proceedings". */
const venueAfterTitle =
  /^(.{8,}?[.?!])\s+((?:In:?\s|arXiv\b|CoRR\b|Proc\.|Proceedings\b|Advances in\b|Journal\b|Transactions\b|Technical [Rr]eport\b).*)$/u;
/** A year or range of years the labeller left at a title's start ("2008–2023. Grobid"). */
const yearBeforeTitle = /^\(?(?:1[5-9]|20)\d{2}[a-z]?(?:\s*[–-]\s*(?:1[5-9]|20)\d{2})?\)?[.,:]\s+(?=\S)/;

function withTitleCut(parsed: ParsedReference): ParsedReference {
  if (!parsed.title) return parsed;
  let title = parsed.title.replace(yearBeforeTitle, '');
  let containerTitle = parsed.containerTitle;
  const cut = venueAfterTitle.exec(title);
  if (cut?.[1] && cut[2]) {
    title = cut[1].replace(/[.]$/, '');
    containerTitle ??= cleanContainer(cut[2]);
  }
  return { ...parsed, title: cleanTitle(title), containerTitle };
}

/**
 * Vancouver's "2021;27(7):1280–9" is one token: whatever label it got, its year, volume, issue and
 * pages are read from it.
 */
function withVancouverLocator(parsed: ParsedReference, text: string): ParsedReference {
  const match =
    /(?<![\d.])(1[5-9]\d{2}|20\d{2})[a-z]?(?:\s?(?:\p{Lu}\p{Ll}{2}|\p{Lu}\p{Ll}{2}\s\d{1,2}))?;\s?(\p{L}?\d[\w.]*)(?:\s?\(([^)]{1,20})\))?(?::\s?([\p{L}\d]+(?:[–-][\p{L}\d]+)?))?/u.exec(
      text,
    );
  if (!match?.[1] || !match[2]) return parsed;
  return {
    ...parsed,
    year: parsed.year ?? Number(match[1]),
    yearLabel: parsed.yearLabel ?? match[1],
    volume: match[2],
    issue: match[3] ?? parsed.issue,
    pages: match[4] ? match[4].replace(/–/g, '-') : parsed.pages,
  };
}
