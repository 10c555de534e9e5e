import { authorLine, yearOf } from './papers';
import { readSession, writeSession } from './session-store';
import type { Paper } from './types';

/**
 * What the page knows about a document it may open in the reader, by document reference
 * (`PROJ:…`, `PDF_URL:…`): the reader shows people a reference (title, authors, year, venue, link),
 * never the reference itself. Filled from search results, project lists and the references list of
 * chat answers; kept in this tab's sessionStorage so a reload of the reader still knows the title.
 */
export interface PaperInfo {
  title: string;
  /** Authors ("A, B, C et al.") or a citation label ("Lin et al., 2022"). */
  byline?: string;
  year?: string;
  venue?: string;
  /** The paper's own page (DOI, publisher, arXiv abstract…), opened in a new tab. */
  url?: string;
}

const storageKey = 'alexandria.papers';
const maxEntries = 300;
let known: Record<string, PaperInfo> | null = null;

function entries(): Record<string, PaperInfo> {
  known ??= readSession<Record<string, PaperInfo>>(storageKey) ?? {};
  return known;
}

function remember(ref: string, info: PaperInfo): void {
  const all = entries();
  delete all[ref];
  all[ref] = info;
  const names = Object.keys(all);
  for (const name of names.slice(0, Math.max(0, names.length - maxEntries))) delete all[name];
  writeSession(storageKey, all);
}

/** The paper behind a reference, when the page has seen it. */
export function knownPaper(ref: string): PaperInfo | null {
  return entries()[ref] ?? null;
}

/** A record as the page shows it. */
export function paperInfo(paper: Paper): PaperInfo {
  const doiUrl = paper.doi ? `https://doi.org/${paper.doi}` : undefined;
  const byline = authorLine(paper.authors ?? []);
  const year = yearOf(paper);
  return {
    title: paper.title,
    byline: byline || undefined,
    year: year || undefined,
    venue: paper.venue || undefined,
    url: paper.url || doiUrl,
  };
}

export function rememberPaper(ref: string, paper: Paper): void {
  remember(ref, paperInfo(paper));
}

/** Markdown's backslash escapes removed: `\[1\]` → `[1]`. */
export function unescapeMarkdown(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** The document reference a link or code span names, if any. */
export function documentRefOf(target: string): string | null {
  if (/^(PDF_URL|PROJ):/i.test(target)) return target;
  try {
    const url = new URL(target, location.origin);
    if (url.pathname.endsWith('/api/fulltext'))
      return url.searchParams.get('pdf_id') ?? url.searchParams.get('pdf_url');
  } catch {
    return null;
  }
  return null;
}

const referenceLine = /^\s*\d+\.\s+\[([^\]]+)\](?:\(([^)\s]+)\))?\s+—\s+(.*)$/;

/**
 * Learns the papers of an answer's references list, lines such as
 * `1. [Lin et al., 2022](https://doi.org/…) — Title. *Venue*. Full text: \`PROJ:…\``.
 */
export function rememberAnswerReferences(markdown: string): void {
  for (const line of markdown.split('\n')) {
    const match = referenceLine.exec(line);
    if (!match) continue;
    const [, label = '', target, rest = ''] = match;
    let text = rest;
    const fullText = /\s*Full text:\s*`([^`]+)`\s*$/.exec(text);
    if (fullText) text = text.slice(0, fullText.index);
    const venue = /\s*\*(.+)\*\.?\s*$/.exec(text);
    if (venue) text = text.slice(0, venue.index);
    const ref = fullText?.[1] ?? (target ? documentRefOf(target) : null);
    if (!ref) continue;
    const url = target && /^https?:\/\//i.test(target) ? target : undefined;
    const year = /\b(\d{4})\b/.exec(label)?.[1];
    remember(ref, {
      title: unescapeMarkdown(text.trim().replace(/\.$/, '')),
      byline: unescapeMarkdown(label),
      year,
      venue: venue?.[1] ? unescapeMarkdown(venue[1]) : undefined,
      url,
    });
  }
}

/** The host a `PDF_URL:` reference is fetched from, or null for a stored document. */
export function remoteHostOf(ref: string): string | null {
  if (!/^PDF_URL:/i.test(ref)) return /^https?:\/\//i.test(ref) ? hostOf(ref) : null;
  return hostOf(ref.slice('PDF_URL:'.length));
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** The PDF url of a remote reference (for "open the PDF in your browser"), else null. */
export function remotePdfUrl(ref: string): string | null {
  const url = /^PDF_URL:/i.test(ref) ? ref.slice('PDF_URL:'.length) : ref;
  return /^https?:\/\//i.test(url) ? url : null;
}
