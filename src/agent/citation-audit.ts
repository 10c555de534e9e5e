import type { SourceLedger } from './source-ledger.js';

/** A citation or link in a finished answer that matches no record the run retrieved. */
export interface UnverifiedCitation {
  text: string;
  kind: 'link' | 'image' | 'url' | 'author-year';
}

const authorYear =
  /^\p{Lu}[\p{L}'’-]+(?:\s+et al\.?|\s+(?:and|&)\s+\p{Lu}[\p{L}'’-]+)?,?\s+(?:1[5-9]|20)\d{2}[a-z]?$/u;

/**
 * Audits a finished answer, independently of the streaming filter that produced it: every
 * markdown link and image, bare URL, and bare author–year citation must resolve to a record (or
 * figure) in the ledger. Escaped text (`\(`, `\[`: quoted paper text) is not a citation of the
 * answer. Tests and the agent evaluation count fabricated citations with this; it must find none.
 */
export function auditCitations(answer: string, ledger: SourceLedger): UnverifiedCitation[] {
  const problems: UnverifiedCitation[] = [];
  const linkSpans: Array<[number, number]> = [];
  for (const match of answer.matchAll(
    /(?<!\\)(!?)\[([^\]\n]*)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g,
  )) {
    const [whole, bang, , url = ''] = match;
    linkSpans.push([match.index ?? 0, (match.index ?? 0) + whole.length]);
    const known = ledger.findByUrl(url) ?? (ledger.isFigure(url) ? true : undefined);
    if (!known) problems.push({ text: whole, kind: bang ? 'image' : 'link' });
  }
  const inLink = (index: number) => linkSpans.some(([start, end]) => index >= start && index < end);
  for (const match of answer.matchAll(/https?:\/\/[^\s<>"`]+/g)) {
    if (inLink(match.index ?? 0)) continue;
    const url = match[0].replace(/[.,;:!?'")\]]+$/, '');
    if (!ledger.findByUrl(url) && !ledger.isFigure(url)) problems.push({ text: url, kind: 'url' });
  }
  for (const match of answer.matchAll(/(?<!\\)[([]([^()[\]\n]{3,200})[)\]](?!\()/g)) {
    if (inLink(match.index ?? 0)) continue;
    const parts = (match[1] ?? '')
      .split(/\s*;\s*/)
      .map((part) => part.replace(/^(?:e\.g\.,?\s*|see\s+|cf\.\s*)/, ''));
    if (!parts.every((part) => authorYear.test(part))) continue;
    for (const part of parts) {
      if (!ledger.findByAuthorYear(part)) problems.push({ text: part, kind: 'author-year' });
    }
  }
  return problems;
}
