import { normalizeArxivId, normalizeDoi } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import { firstSurname, sameSurname, titleSimilarity } from './record-matching.js';

/**
 * Preprints and their published versions (issue 17 part 5, `preprint_now_published`). A record is
 * a preprint when it says so (type `preprint`), when its venue is a preprint server (arXiv, CoRR,
 * bioRxiv, medRxiv, SSRN, Research Square, …) or when its only DOI is a preprint server's. A
 * published version of it is another record of the same work — title ≥ 0.9 similar, the same first
 * author, not older than the preprint by more than a year — that is not a preprint: a journal or
 * proceedings venue, or a DOI other than a preprint server's.
 */

/** Venues that are preprint servers, as records and printed references name them. */
const preprintVenue =
  /\b(?:arxiv|corr|biorxiv|medrxiv|chemrxiv|ssrn|research\s*square|preprints\.org|osf\s*preprints|psyarxiv|techrxiv|preprint)\b/i;
/** Words of a venue that is a journal or proceedings, even when a preprint url is printed with it. */
const publishedVenue =
  /\b(?:proceedings|proc\.|conference|journal|transactions|workshop|symposium|findings|annual meeting|letters|review)\b/i;

/** DOIs minted by preprint servers: arXiv (DataCite), bioRxiv/medRxiv (dated), SSRN, Research Square, OSF, ChemRxiv, Preprints.org. */
export function isPreprintDoi(doi: string | null | undefined): boolean {
  const normalized = normalizeDoi(doi ?? null);
  if (!normalized) return false;
  return (
    normalized.startsWith('10.48550/') ||
    /^10\.1101\/\d{4}\.\d{2}\.\d{2}\./.test(normalized) ||
    /^10\.1101\/\d{6,}$/.test(normalized) ||
    normalized.startsWith('10.2139/ssrn') ||
    normalized.startsWith('10.21203/rs.') ||
    normalized.startsWith('10.31219/osf.io') ||
    normalized.startsWith('10.26434/chemrxiv') ||
    normalized.startsWith('10.20944/preprints')
  );
}

/** A venue naming a preprint server and no journal or proceedings ("arXiv preprint arXiv:1910.13461", "CoRR", "bioRxiv"). */
export function isPreprintVenue(venue: string | null | undefined): boolean {
  if (!venue) return false;
  return preprintVenue.test(venue) && !publishedVenue.test(venue);
}

/** The shape both index records and parsed references have. */
export interface WorkFields {
  title: string | null;
  authors: readonly string[];
  year: number | null;
  venue: string | null;
  doi: string | null;
  arxiv: string | null;
  type?: string | null;
}

/** The fields of a record as `WorkFields`. */
export function fieldsOfPaper(paper: Paper): WorkFields {
  const year =
    paper.year ?? (paper.publication_date ? Number(paper.publication_date.slice(0, 4)) || null : null);
  return {
    title: paper.title,
    authors: paper.authors,
    year,
    venue: paper.venue ?? null,
    doi: normalizeDoi(paper.doi ?? paper.identifiers?.doi ?? null),
    arxiv: normalizeArxivId(paper.identifiers?.arxiv ?? null),
    type: paper.type ?? null,
  };
}

/** The arXiv id a venue prints ("arXiv preprint arXiv:1910.13461", "CoRR abs/2104.02112"). */
export function arxivInVenue(venue: string | null | undefined): string | null {
  const match = /(?:arxiv[:\s]*|abs\/)(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})/i.exec(
    venue ?? '',
  );
  return match?.[1] ? normalizeArxivId(match[1]) : null;
}

/**
 * Whether a record or a printed reference is the preprint form of a work: typed `preprint`, a
 * preprint server's venue or DOI, or an arXiv id with neither a venue nor a DOI of a publisher.
 */
export function isPreprint(work: WorkFields): boolean {
  if (work.type === 'preprint') return true;
  if (work.doi && !isPreprintDoi(work.doi)) return false;
  if (work.venue)
    return isPreprintVenue(work.venue) || (isPreprintDoi(work.doi) && !publishedVenue.test(work.venue));
  return isPreprintDoi(work.doi) || work.arxiv !== null;
}

/** A record is published when it is not a preprint and names where it appeared (a venue or a publisher's DOI). */
export function isPublished(paper: Paper): boolean {
  const fields = fieldsOfPaper(paper);
  if (isPreprint(fields)) return false;
  return Boolean(
    (fields.venue && !isPreprintVenue(fields.venue)) || (fields.doi && !isPreprintDoi(fields.doi)),
  );
}

/** Titles at least this similar are the same work (as linking decides). */
const sameWorkTitle = 0.9;

/**
 * The published version of `preprint` among `candidates`, or null: the same work (title ≥ 0.9,
 * same first author when both are known, not older than the preprint by more than a year) in a
 * record that is published. The most similar title wins, then the earliest year.
 */
export function publishedVersionOf(preprint: WorkFields, candidates: readonly Paper[]): Paper | null {
  if (!preprint.title) return null;
  const title = preprint.title;
  const surname = firstSurname(preprint.authors);
  const scored = candidates
    .filter((candidate) => isPublished(candidate))
    .map((candidate) => ({ candidate, similarity: titleSimilarity(title, candidate.title) }))
    .filter(({ candidate, similarity }) => {
      if (similarity < sameWorkTitle) return false;
      const other = firstSurname(candidate.authors);
      if (!surname || !other || !sameSurname(surname, other)) return false;
      const year = fieldsOfPaper(candidate).year;
      return preprint.year === null || year === null || year >= preprint.year - 1;
    })
    .sort(
      (a, b) =>
        b.similarity - a.similarity ||
        (fieldsOfPaper(a.candidate).year ?? 9999) - (fieldsOfPaper(b.candidate).year ?? 9999),
    );
  return scored[0]?.candidate ?? null;
}
