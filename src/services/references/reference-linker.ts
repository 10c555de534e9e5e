import { nameKeyOf, surnameOf } from '../../bibliography/reference-fields.js';
import type { ReferenceEntry } from '../../bibliography/references.js';
import { normalizeArxivId, normalizeDoi } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { OnlineRecords } from './online-records.js';
import {
  firstSurname,
  sameSurname,
  searchRecords,
  titleAppearsIn,
  titleSimilarity,
  titleTokens,
  withoutInnerHyphens,
} from './record-matching.js';

/** How a reference was linked to a record, and how sure the link is (0–1). */
export interface ReferenceLink {
  paper: Paper;
  confidence: number;
  method: 'doi' | 'arxiv' | 'search';
  /** True when the record came through the federated sources (the local index did not resolve it). */
  online?: boolean;
}

/** A title at least this similar (Dice over words in order) may be the same work. */
export const titleThreshold = 0.9;
/** Without a year or an author to check, the title alone must be this close. */
const uncheckedTitleThreshold = 0.95;

/**
 * Links a printed reference to a record of the local index by searching, as Crossref does: the
 * reference's DOI or arXiv id when the index knows it; otherwise the index is searched with the
 * parsed title (or, without one, the raw text) and a candidate is accepted only when its title is
 * similar enough, its year is within one of the reference's and its first author's surname is
 * the reference's first author's. The best accepted candidate wins; its confidence is kept.
 */
export class ReferenceLinker {
  constructor(private readonly index: PaperIndex) {}

  async link(entry: ReferenceEntry): Promise<ReferenceLink | null> {
    const doi = normalizeDoi(entry.doi);
    if (doi) {
      const paper = await this.index.findByKeys([`doi:${doi}`]);
      if (paper && this.plausible(entry, paper)) return { paper, confidence: 1, method: 'doi' };
    }
    const arxiv = normalizeArxivId(entry.arxiv);
    if (arxiv) {
      const paper = await this.index.findByKeys([`arxiv:${arxiv}`]);
      if (paper && this.plausible(entry, paper)) return { paper, confidence: 1, method: 'arxiv' };
    }
    // The raw text is searched only when no usable title was read: a 30-word query costs several
    // title queries, and a parsed title that finds nothing rarely does better as raw text.
    const title = entry.title && titleTokens(entry.title).length >= 3 ? entry.title : null;
    const queries = title ? titleForms(title) : titleTokens(entry.raw).length >= 2 ? [entry.raw] : [];
    for (const query of queries) {
      const candidates = await searchRecords(this.index, query.slice(0, 600), { phrase: title !== null });
      const best = candidates
        .map((paper) => ({ paper, confidence: scoreCandidate(entry, paper) }))
        .filter((scored): scored is { paper: Paper; confidence: number } => scored.confidence !== null)
        .sort((a, b) => b.confidence - a.confidence)[0];
      if (best) return { ...best, method: 'search' };
    }
    return null;
  }

  /**
   * `link`, then — for an entry the local index does not resolve — the federated sources: its DOI,
   * its arXiv id, then its title searched, with the same checks (decision 0032). `complete` is
   * false when a source failed or was skipped, so the miss may be retried.
   */
  async linkOnline(
    entry: ReferenceEntry,
    online: OnlineRecords,
    signal?: AbortSignal,
  ): Promise<{ link: ReferenceLink | null; complete: boolean }> {
    const local = await this.link(entry);
    if (local) return { link: local, complete: true };
    let complete = true;
    const identifiers = [
      { type: 'DOI' as const, value: normalizeDoi(entry.doi), method: 'doi' as const },
      { type: 'ARXIV' as const, value: normalizeArxivId(entry.arxiv), method: 'arxiv' as const },
    ];
    for (const { type, value, method } of identifiers) {
      if (!value) continue;
      const found = await online.byIdentifier({ type, value }, signal);
      complete &&= found.complete;
      if (found.paper && this.plausible(entry, found.paper)) {
        return { link: { paper: found.paper, confidence: 1, method, online: true }, complete: true };
      }
    }
    const title = entry.title && titleTokens(entry.title).length >= 3 ? entry.title : null;
    if (!title) return { link: null, complete };
    // Online, one search (sources are rate-limited); the candidates' titles are compared in both forms.
    const found = await online.searchTitle(title, signal);
    complete &&= found.complete;
    const best = found.papers
      .map((paper) => ({ paper, confidence: scoreCandidate(entry, paper) }))
      .filter((scored): scored is { paper: Paper; confidence: number } => scored.confidence !== null)
      .sort((a, b) => b.confidence - a.confidence)[0];
    return best
      ? { link: { ...best, method: 'search', online: true }, complete: true }
      : { link: null, complete };
  }

  /** A strong identifier's record, unless its title plainly belongs to another work (a typo'd DOI). */
  private plausible(entry: ReferenceEntry, paper: Paper): boolean {
    if (!entry.title) return true;
    return titleSimilarity(entry.title, paper.title) >= 0.5 || titleAppearsIn(paper.title, entry.raw);
  }
}

/**
 * The title as read, then with the hyphens inside its words closed up when it has any: a word the
 * PDF broke at a line end may keep a hyphen it never had ("SciB-ERT" for SciBERT), and a search for
 * "SciB-ERT" looks for the words "scib" and "ert" (decision 0050).
 */
function titleForms(title: string): string[] {
  const joined = withoutInnerHyphens(title);
  return joined === title ? [title] : [title, joined];
}

/**
 * The confidence of a candidate (0–1), or null when a check fails: title similarity ≥ 0.9, year
 * within one when both are known, first author's surname equal when both are known; with neither a
 * year nor an author to check, the title must be nearly identical.
 */
export function scoreCandidate(entry: ReferenceEntry, paper: Paper): number | null {
  const similarity = Math.max(
    entry.title ? titleSimilarity(entry.title, paper.title) : 0,
    containedTitle(entry, paper) ? 0.95 : 0,
  );
  if (similarity < titleThreshold) return null;
  const year = paper.year ?? (paper.publication_date ? Number(paper.publication_date.slice(0, 4)) : null);
  const yearCheck = entry.year !== null && year ? Math.abs(entry.year - year) : null;
  if (yearCheck !== null && yearCheck > 1) return null;
  const authorCheck = authorsAgree(entry, paper);
  if (authorCheck === false) return null;
  if ((yearCheck === null || authorCheck === null) && similarity < uncheckedTitleThreshold) return null;
  const yearScore = yearCheck === 0 ? 1 : 0.5;
  const authorScore = authorCheck === true ? 1 : 0.5;
  return Math.round((0.7 * similarity + 0.15 * yearScore + 0.15 * authorScore) * 1000) / 1000;
}

/**
 * The record's title printed in the reference, and long enough to mean something (≥ 4 words, and
 * most of the parsed title when there is one): the parsed title may have swallowed a subtitle or
 * lost one.
 */
function containedTitle(entry: ReferenceEntry, paper: Paper): boolean {
  const words = titleTokens(paper.title).length;
  if (words < 4 || !titleAppearsIn(paper.title, entry.raw)) return false;
  return !entry.title || words >= 0.6 * titleTokens(entry.title).length;
}

/** True/false when both first authors are known; null when either is not. */
function authorsAgree(entry: ReferenceEntry, paper: Paper): boolean | null {
  const recordSurname = firstSurname(paper.authors);
  if (!recordSurname) return null;
  const printed = entry.authors[0] ? surnameOf(entry.authors[0]) : null;
  if (printed) return sameSurname(printed, recordSurname);
  // No parsed authors: the surname must open the reference.
  const opening = nameKeyOf(entry.raw.slice(0, 80));
  return opening.includes(recordSurname) ? true : null;
}
