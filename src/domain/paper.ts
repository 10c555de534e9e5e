import { z } from 'zod';
import { normalizeArxivId, normalizeDoi, normalizePmcid, normalizeTitle } from './identifiers.js';

/**
 * The paper record of the spec (section 2.1), returned by the search, patents and add_to_project
 * endpoints. Field names are the wire names of the contract, so the record goes out as it is.
 * Fields beyond the spec (`pdf_id`, `venue`, `year`, `type`, `identifiers`, …) are extensions that
 * ScholarAI-compatible clients ignore or use (`pdf_id` feeds `/api/fulltext`).
 */
export const paperIdentifiersSchema = z
  .object({
    doi: z.string().nullish(),
    arxiv: z.string().nullish(),
    pmid: z.string().nullish(),
    pmcid: z.string().nullish(),
    ss_id: z.string().nullish(),
    corpus_id: z.string().nullish(),
    mag: z.string().nullish(),
    acl: z.string().nullish(),
    openalex: z.string().nullish(),
    patent_number: z.string().nullish(),
    openreview: z.string().nullish().describe('OpenReview forum id (`rhgIgTSSxW`).'),
    pmlr: z.string().nullish().describe('PMLR paper, volume/key (`v235/abad-rocamora24a`).'),
    jmlr: z.string().nullish().describe('JMLR paper, volume/id (`v25/21-1334`).'),
  })
  .meta({ id: 'PaperIdentifiers' });

export type PaperIdentifiers = z.infer<typeof paperIdentifiersSchema>;

/** A person's name in parts, as BibTeX, RIS and CSL-JSON carry it (CSL's name fields). */
export const personNameSchema = z
  .object({
    family: z.string().nullish(),
    given: z.string().nullish(),
    /** "van der", "de la": kept with the family name when sorting (CSL non-dropping-particle). */
    particle: z.string().nullish(),
    suffix: z.string().nullish(),
    /** An organisation or a name that has no parts (`{GROBID contributors}`). */
    literal: z.string().nullish(),
  })
  .meta({ id: 'PersonName' });

export type PersonName = z.infer<typeof personNameSchema>;

/**
 * The bibliographic fields reference managers carry beyond the search record (decision 0049), so an
 * import keeps them and an export writes them back. Filled by imports and by upstream sources that
 * have them; every field optional.
 */
export const bibliographicSchema = z
  .object({
    /** The authors in parts, in the order of `authors` (which holds them as display strings). */
    author_names: z.array(personNameSchema).nullish(),
    /** The author list goes on beyond the names given (BibTeX `and others`): "et al.". */
    more_authors: z.boolean().nullish(),
    editors: z.array(personNameSchema).nullish(),
    volume: z.string().nullish(),
    issue: z.string().nullish(),
    /** Page range ("3615–3620") or article number ("e0012345"). */
    pages: z.string().nullish(),
    publisher: z.string().nullish(),
    /** Where the publisher (or the conference) is: BibTeX `address`, RIS `CY`. */
    place: z.string().nullish(),
    isbn: z.string().nullish(),
    issn: z.string().nullish(),
    edition: z.string().nullish(),
    /** The series a book or report belongs to. */
    series: z.string().nullish(),
    /** A report's (or a patent's) number. */
    number: z.string().nullish(),
    /** The university of a thesis, the institution of a report. */
    institution: z.string().nullish(),
    /** arXiv primary class (`cs.CL`); the id is `identifiers.arxiv`. */
    arxiv_class: z.string().nullish(),
    note: z.string().nullish(),
    keywords: z.array(z.string()).nullish(),
  })
  .meta({ id: 'Bibliographic' });

export type Bibliographic = z.infer<typeof bibliographicSchema>;

/** Publication types; `peer_reviewed_only` keeps the reviewed ones (see docs/decisions). */
export const paperTypes = [
  'journal-article',
  'conference-paper',
  'preprint',
  'book',
  'book-chapter',
  'thesis',
  'report',
  'dataset',
  'editorial',
  'patent',
  'patent-application',
  'other',
] as const;
export type PaperType = (typeof paperTypes)[number];

export const paperSchema = z
  .object({
    title: z.string().describe('Title of the paper.'),
    authors: z.array(z.string()).describe('Author names (inventors for patents).'),
    abstract: z.string().nullable().describe('Abstract of the paper.'),
    publication_date: z
      .string()
      .nullable()
      .describe('Publication date: ISO date (YYYY-MM-DD) when known, else the year.'),
    cited_by_count: z.number().int().nullable().describe('Number of citations, when known.'),
    url: z.string().nullable().describe('Url of the paper (landing page).'),
    ss_id: z.string().nullable().describe('Semantic Scholar paper id, when known.'),
    doi: z.string().nullable().describe('Digital Object Identifier.'),
    pdf_id: z
      .string()
      .optional()
      .describe('Full-text reference usable as pdf_id/pdf_url by /api/fulltext and /api/question.'),
    answer: z
      .string()
      .optional()
      .describe('What this paper says about the query; present only when generative_mode=true.'),
    year: z.number().int().nullable().optional(),
    venue: z.string().nullable().optional(),
    type: z.string().nullable().optional(),
    landing_page_url: z.string().nullable().optional(),
    pdf_url: z.string().nullable().optional().describe('Open-access PDF url, when known.'),
    identifiers: paperIdentifiersSchema.optional(),
    source: z.string().optional().describe('Where the record came from (index, openalex, …).'),
    assignees: z.array(z.string()).optional().describe('Patent assignees.'),
    patent_number: z.string().optional(),
    kind: z.string().optional().describe('Patent kind code (B1, B2, A1, …).'),
    filing_date: z.string().nullable().optional(),
    bibliographic: bibliographicSchema
      .optional()
      .describe('Volume, issue, pages, publisher, editors, …: the fields of a reference file (imports).'),
    entry_id: z.string().optional().describe('Entry id inside a project (project listings only).'),
  })
  .meta({ id: 'Paper' });

export type Paper = z.infer<typeof paperSchema>;

/** A paper with only a title, for building records field by field. */
export function emptyPaper(title: string): Paper {
  return {
    title,
    authors: [],
    abstract: null,
    publication_date: null,
    cited_by_count: null,
    url: null,
    ss_id: null,
    doi: null,
  };
}

/**
 * The keys under which two records are the same paper: every strong identifier (DOI, arXiv, PubMed,
 * PMC, Semantic Scholar, corpus, ACL, MAG, OpenAlex, patent number, OpenReview, PMLR, JMLR), else the
 * normalised title with the year (always present, last). Used by ingestion merges, project
 * idempotency and federation de-duplication.
 */
export function identityKeys(paper: Paper): string[] {
  const ids = paper.identifiers ?? {};
  const keys: string[] = [];
  const doi = normalizeDoi(paper.doi ?? ids.doi ?? null);
  if (doi) keys.push(`doi:${doi}`);
  const arxiv = normalizeArxivId(ids.arxiv ?? null);
  if (arxiv) keys.push(`arxiv:${arxiv}`);
  if (ids.pmid) keys.push(`pmid:${ids.pmid}`);
  const pmcid = normalizePmcid(ids.pmcid ?? null);
  if (pmcid) keys.push(`pmcid:${pmcid}`);
  const ssId = paper.ss_id ?? ids.ss_id;
  if (ssId) keys.push(`s2:${ssId.toLowerCase()}`);
  if (ids.corpus_id) keys.push(`corpus:${ids.corpus_id}`);
  if (ids.acl) keys.push(`acl:${ids.acl}`);
  if (ids.mag) keys.push(`mag:${ids.mag}`);
  if (ids.openalex) keys.push(`openalex:${ids.openalex.toUpperCase()}`);
  if (ids.patent_number) keys.push(`patent:${ids.patent_number.toUpperCase()}`);
  // OpenReview ids are case-sensitive (base64-like); PMLR and JMLR keys are paths.
  if (ids.openreview) keys.push(`openreview:${ids.openreview}`);
  if (ids.pmlr) keys.push(`pmlr:${ids.pmlr.toLowerCase()}`);
  if (ids.jmlr) keys.push(`jmlr:${ids.jmlr.toLowerCase()}`);
  // The title key comes last: callers match strong identifiers first and fall back to it.
  const title = normalizeTitle(paper.title);
  if (title) keys.push(`title:${title}|${paper.year ?? ''}`);
  return keys;
}
