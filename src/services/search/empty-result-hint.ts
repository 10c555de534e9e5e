import type { SearchRequest, SourceReport } from '../../domain/search.js';
import type { IndexKind } from '../../ports/paper-index.js';

/**
 * The words of an empty search result, written once (docs/decisions/0045). Every surface says them:
 * the `hint` of the search services (REST's wrapped form and the `x-alexandria-hint` header, the MCP
 * tools' `hint`), the agent's "nothing found" answer and the web page's empty result. An empty
 * result is one of three things, and each says what to do:
 *
 * - the local index is empty and no upstream source answered (none is on, or none was reached):
 *   there was nothing to search;
 * - upstream sources are off or unreachable (named, with what happened to each);
 * - something was searched and nothing matched: other words.
 *
 * The advice names the operator's means (`alexandria ingest`, `ALEXANDRIA_SOURCES`) and the search
 * parameters, which REST and MCP spell alike; it names no endpoint or tool call, so it needs no
 * hint vocabulary.
 */

/** How to fill the local index, as every surface says it (startup output included). */
export const fillIndexAdvice =
  'fill the local index with `alexandria ingest <file or folder>` (a metadata dump such as an OpenAlex or arXiv snapshot, BibTeX, or a folder of PDFs)';

/** How to keep every request on the machine (the privacy switch). */
export const keepLocalAdvice = 'ALEXANDRIA_SOURCES=none keeps every request on this machine';

/** How to turn the open, keyless sources on (the default when ALEXANDRIA_SOURCES is unset). */
export const sourcesOnAdvice =
  'turn the open scholarly sources on by leaving ALEXANDRIA_SOURCES unset (or naming some, e.g. ALEXANDRIA_SOURCES=openalex,arxiv)';

/** Patents come from PatentsView only, which needs a key: the keyless default has no patent source. */
const patentSourceAdvice =
  'turn the patent source on (ALEXANDRIA_SOURCES including patentsview, with ALEXANDRIA_PATENTSVIEW_API_KEY)';

/** What an empty search looked at. */
export interface EmptySearchFacts {
  kind: IndexKind;
  request: SearchRequest;
  /** The local index holds no record of this kind at all. */
  indexEmpty: boolean;
  /** What happened to each upstream source asked (the local index's own report may be among them); empty: none is on. */
  sources: readonly SourceReport[];
  /** How many results the search has in all (more than 0 when only the offset is past them). */
  total: number;
}

/** The hint of a search result with no records: what was searched, why nothing came, what to do. */
export function emptyResultHint(facts: EmptySearchFacts): string {
  const noun = facts.kind === 'patent' ? 'patents' : 'papers';
  const { request } = facts;
  if (facts.total > 0 && request.offset > 0) {
    return `No ${noun} at offset ${request.offset}: the search has ${facts.total}. Lower the offset.`;
  }
  const upstream = facts.sources.filter((report) => report.source !== 'index');
  const answered = upstream.filter((report) => report.status === 'ok');
  const unreached = facts.sources.filter((report) => report.status !== 'ok');
  const sourcesOn = upstream.length > 0;
  const turnOn = facts.kind === 'patent' ? patentSourceAdvice : sourcesOnAdvice;

  if (facts.indexEmpty && answered.length === 0) {
    if (!sourcesOn) {
      return `Nothing to search: the local index holds no ${noun} and ${sourcesOff(facts.kind)}. To find literature, ${turnOn}, or ${fillIndexAdvice}.`;
    }
    return `Nothing found: the local index holds no ${noun}, and no upstream source could be reached (${unreachedList(unreached)}). Check this machine's internet access (proxy, firewall, DNS) and search again, or ${fillIndexAdvice}; ${keepLocalAdvice}.`;
  }

  const indexSearched =
    !facts.indexEmpty && facts.sources.every((report) => report.source !== 'index' || report.status === 'ok');
  const searched = [
    ...(indexSearched ? ['the local index'] : []),
    ...answered.map((report) => report.source),
  ];
  const parts = [`No ${noun} matched in ${listed(searched)}.`];
  if (facts.indexEmpty) parts.push(`The local index holds no ${noun}.`);
  if (unreached.length > 0) {
    parts.push(`Not reached this time: ${unreachedList(unreached)}; results may be incomplete.`);
  }
  if (!sourcesOn) parts.push(`Only the local index was searched: ${sourcesOff(facts.kind)}.`);
  parts.push(`Try ${listed(tips(request), 'or')}.`);
  return parts.join(' ');
}

/** Patents have one source (PatentsView, keyed); papers have the open ones, off only by choice. */
function sourcesOff(kind: IndexKind): string {
  return kind === 'patent'
    ? 'no upstream patent source is on'
    : 'upstream sources are off (ALEXANDRIA_SOURCES=none)';
}

/** What to change in the request, for a search that found nothing. */
function tips(request: SearchRequest): string[] {
  const tips: string[] = [];
  if (request.keywords?.trim()) {
    tips.push('fewer or other keywords');
    tips.push(
      'the question in query rather than keywords (every keyword must appear; query ranks by any word)',
    );
  } else {
    tips.push('other or broader words');
  }
  if (request.startYear !== undefined || request.endYear !== undefined)
    tips.push('a wider start_year/end_year');
  if (request.peerReviewedOnly) tips.push('peer_reviewed_only=false to include preprints');
  return tips;
}

/** "openalex and crossref failed; arxiv timed out": the sources grouped by what happened. */
function unreachedList(reports: readonly SourceReport[]): string {
  const outcomes: Array<[SourceReport['status'], string]> = [
    ['failed', 'failed'],
    ['timeout', 'timed out'],
    ['skipped', 'skipped after recent failures or for a rate limit'],
  ];
  return outcomes
    .map(([status, words]) => {
      const names = reports
        .filter((report) => report.status === status)
        .map((report) => (report.source === 'index' ? 'the local index' : report.source));
      return names.length > 0 ? `${listed(names)} ${words}` : '';
    })
    .filter(Boolean)
    .join('; ');
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[], conjunction = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}
