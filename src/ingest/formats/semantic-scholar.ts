import type { PaperType } from '../../domain/paper.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';
import { buildPaper, cleanText, toInteger } from './paper-builder.js';

type Json = Record<string, unknown>;

/**
 * Semantic Scholar records in all the shapes people download:
 * - the Graph API paper (`paperId`, `externalIds`, `citationCount`, `openAccessPdf`, … camelCase),
 *   alone, in a batch array, or in a search page `{total, data: […]}`;
 * - the S2AG "papers" dataset JSONL (`corpusid`, `externalids`, `citationcount`, `isopenaccess`, …
 *   lower case);
 * - the S2AG "abstracts" dataset JSONL (`{corpusid, abstract, openaccessinfo}`): no title, so these
 *   rows come out untitled and only enrich the paper of the same corpus id when merged.
 */
export function mapSemanticScholarRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  if (Array.isArray(value.data)) return value.data.map(mapPaper);
  return mapPaper(value);
}

/** Reads a field under its Graph API (camelCase) or dataset (lower case) name. */
function field(record: Json, name: string): unknown {
  return record[name] ?? record[name.toLowerCase()];
}

function mapPaper(value: unknown): ReturnType<typeof buildPaper> {
  if (!isObject(value)) return 'paper is not a JSON object';
  const ids = (isObject(field(value, 'externalIds')) ? field(value, 'externalIds') : {}) as Json;
  const openAccessInfo = isObject(value.openaccessinfo) ? value.openaccessinfo : null;
  const oaIds = openAccessInfo && isObject(openAccessInfo.externalids) ? openAccessInfo.externalids : {};
  const url = cleanText(value.url);
  const paperId = cleanText(value.paperId) ?? (url ? /\/paper\/([0-9a-f]{40})$/i.exec(url)?.[1] : null);
  const corpusId =
    [cleanText(field(value, 'corpusId')), cleanText(ids.CorpusId)].find((id) => id && /^\d+$/.test(id)) ??
    null;
  if (!paperId && !corpusId) return 'Semantic Scholar record has neither paperId nor corpusid';
  const isAbstractsRow = value.title === undefined && typeof value.abstract === 'string' && corpusId !== null;
  const openAccessPdf = field(value, 'openAccessPdf');
  const journal = isObject(value.journal) ? value.journal : {};
  const types = field(value, 'publicationTypes');
  const doi = cleanText(ids.DOI) ?? cleanText(oaIds.DOI);
  return buildPaper(
    {
      title: cleanText(value.title),
      authors: Array.isArray(value.authors)
        ? value.authors.map((author) => (isObject(author) ? cleanText(author.name) : null))
        : [],
      abstract: cleanText(value.abstract),
      publication_date: cleanText(field(value, 'publicationDate')),
      year: toInteger(value.year),
      venue: cleanText(value.venue) ?? cleanText(journal.name),
      type: isAbstractsRow
        ? null
        : paperType(Array.isArray(types) ? types : [], ids, cleanText(value.venue), cleanText(journal.name)),
      url: url ?? (paperId ? `https://www.semanticscholar.org/paper/${paperId}` : null),
      pdf_url:
        (isObject(openAccessPdf) ? cleanText(openAccessPdf.url) : null) ?? cleanText(openAccessInfo?.url),
      cited_by_count: toInteger(field(value, 'citationCount')),
      identifiers: {
        ss_id: paperId,
        corpus_id: corpusId,
        doi,
        arxiv: cleanText(ids.ArXiv) ?? cleanText(oaIds.ArXiv),
        pmid: cleanText(ids.PubMed),
        pmcid: cleanText(ids.PubMedCentral) ?? cleanText(oaIds.PubMedCentral),
        mag: cleanText(ids.MAG) ?? cleanText(oaIds.MAG),
        acl: cleanText(ids.ACL) ?? cleanText(oaIds.ACL),
      },
    },
    { source: 'semantic-scholar', allowUntitled: isAbstractsRow },
  );
}

const publicationTypes: [string, PaperType][] = [
  ['Conference', 'conference-paper'],
  ['JournalArticle', 'journal-article'],
  ['Review', 'journal-article'],
  ['MetaAnalysis', 'journal-article'],
  ['CaseReport', 'journal-article'],
  ['ClinicalTrial', 'journal-article'],
  ['Study', 'journal-article'],
  ['BookSection', 'book-chapter'],
  ['Book', 'book'],
  ['Dataset', 'dataset'],
  ['Editorial', 'editorial'],
  ['LettersAndComments', 'editorial'],
  ['News', 'other'],
];

/**
 * S2 gives a list of types; the first match in the order above wins (S2 tags many conference papers
 * `JournalArticle` too); without types, a named journal means a journal article. An arXiv record without a publisher DOI (venue `arXiv.org`, or only the
 * 10.48550 arXiv DOI) is a preprint whatever its tags say.
 */
function paperType(types: unknown[], ids: Json, venue: string | null, journalName: string | null): PaperType {
  const doi = cleanText(ids.DOI);
  const publisherDoi = doi !== null && !/^10\.48550\//i.test(doi);
  const arxiv = cleanText(ids.ArXiv) !== null || /^arxiv(\.org)?$/i.test(venue ?? '');
  if (
    arxiv &&
    !publisherDoi &&
    (types.length === 0 || /^arxiv(\.org)?$/i.test(venue ?? '') || doi !== null)
  ) {
    return 'preprint';
  }
  for (const [name, type] of publicationTypes) if (types.includes(name)) return type;
  // Most dataset rows carry no types; a named journal still says where it was published.
  return journalName ? 'journal-article' : 'other';
}

/** Reads Semantic Scholar papers (see `mapSemanticScholarRecord`). */
export const readSemanticScholar = jsonFormatReader(mapSemanticScholarRecord);
