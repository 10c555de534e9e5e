import type { PaperType } from '../../domain/paper.js';
import { childrenOf, find, findAll, parseXmlRecord, textOf, type XmlElement } from '../../text/xml-tree.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { buildPaper, cleanText, isoDate } from './paper-builder.js';
import { pruneElements } from './xml-prune.js';
import { splitXmlRecords, xmlLocation } from './xml-records.js';

/**
 * PubMed/MEDLINE XML (`PubmedArticleSet`, efetch output and the annual baseline/update files):
 * each `<PubmedArticle>` (or `<PubmedBookArticle>`) is split out of the stream and parsed alone.
 * Deleted-citation lists in update files are not records and are skipped.
 */
export const readPubmedXml: FormatReader = async function* (input) {
  for await (const event of splitXmlRecords(input, { records: ['PubmedArticle', 'PubmedBookArticle'] })) {
    if (event.kind === 'open') continue;
    const location = xmlLocation(event);
    if (event.kind === 'error') {
      yield { ok: false, reason: event.reason, location };
      continue;
    }
    yield mapRecord(event.xml, location);
  }
};

/** Parts of a PubMed record we never read; affiliations and MeSH are often most of its bytes. */
const unreadElements = [
  'AffiliationInfo',
  'MeshHeadingList',
  'ChemicalList',
  'SupplMeshList',
  'GrantList',
  'CommentsCorrectionsList',
  'ReferenceList',
  'History',
  'KeywordList',
  'InvestigatorList',
  'DataBankList',
  'GeneSymbolList',
  'PersonalNameSubjectList',
  'OtherAbstract',
];

function mapRecord(xml: string, location: string): IngestItem {
  let root: XmlElement;
  try {
    root = parseXmlRecord(pruneElements(xml, unreadElements));
  } catch (error) {
    return { ok: false, reason: (error as Error).message, location };
  }
  const paper = root.name === 'PubmedBookArticle' ? mapBookArticle(root) : mapArticle(root);
  return typeof paper === 'string' ? { ok: false, reason: paper, location } : { ok: true, paper, location };
}

function mapArticle(root: XmlElement): ReturnType<typeof buildPaper> {
  const citation = find(root, 'MedlineCitation');
  const article = find(citation, 'Article');
  const pmid = cleanText(textOf(find(citation, 'PMID')));
  if (!article || !pmid) return 'PubmedArticle has no PMID or Article';
  const ids = articleIds(root, article);
  const journal = find(article, 'Journal');
  return buildPaper(
    {
      title:
        cleanText(textOf(find(article, 'ArticleTitle'))) ??
        cleanText(textOf(find(article, 'VernacularTitle'))),
      authors: findAll(article, 'AuthorList', 'Author').map(authorName),
      abstract: abstractText(find(article, 'Abstract')),
      publication_date: publicationDate(
        find(journal, 'JournalIssue', 'PubDate'),
        find(article, 'ArticleDate'),
      ),
      venue:
        cleanText(textOf(find(journal, 'Title'))) ??
        cleanText(textOf(find(citation, 'MedlineJournalInfo', 'MedlineTA'))),
      type: articleType(
        findAll(article, 'PublicationTypeList', 'PublicationType').map((type) => textOf(type).trim()),
      ),
      url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
      identifiers: { pmid, doi: ids.doi, pmcid: ids.pmc },
    },
    { source: 'pubmed' },
  );
}

function mapBookArticle(root: XmlElement): ReturnType<typeof buildPaper> {
  const document = find(root, 'BookDocument');
  const pmid = cleanText(textOf(find(document, 'PMID')));
  if (!document || !pmid) return 'PubmedBookArticle has no PMID';
  const book = find(document, 'Book');
  const chapterTitle = cleanText(textOf(find(document, 'ArticleTitle')));
  const ids = articleIds(root, document);
  return buildPaper(
    {
      title: chapterTitle ?? cleanText(textOf(find(book, 'BookTitle'))),
      authors: [...findAll(document, 'AuthorList', 'Author'), ...findAll(book, 'AuthorList', 'Author')].map(
        authorName,
      ),
      abstract: abstractText(find(document, 'Abstract')),
      publication_date: publicationDate(find(book, 'PubDate'), undefined),
      venue: chapterTitle
        ? cleanText(textOf(find(book, 'BookTitle')))
        : cleanText(textOf(find(book, 'Publisher', 'PublisherName'))),
      type: chapterTitle ? 'book-chapter' : 'book',
      url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
      identifiers: { pmid, doi: ids.doi, pmcid: ids.pmc },
    },
    { source: 'pubmed' },
  );
}

/** DOI and PMCID from `PubmedData/ArticleIdList`, else from the article's `ELocationID`. */
function articleIds(root: XmlElement, article: XmlElement): { doi: string | null; pmc: string | null } {
  const ids: Record<string, string> = {};
  for (const id of findAll(root, 'PubmedData', 'ArticleIdList', 'ArticleId')) {
    const type = id.attributes.IdType;
    const value = cleanText(textOf(id));
    if (type && value && !ids[type]) ids[type] = value;
  }
  const elocationDoi = childrenOf(article, 'ELocationID').find(
    (element) => element.attributes.EIdType === 'doi',
  );
  return { doi: ids.doi ?? cleanText(textOf(elocationDoi)), pmc: ids.pmc ?? null };
}

function authorName(author: XmlElement): string | null {
  const collective = cleanText(textOf(find(author, 'CollectiveName')));
  if (collective) return collective;
  const last = cleanText(textOf(find(author, 'LastName')));
  const first = cleanText(textOf(find(author, 'ForeName'))) ?? cleanText(textOf(find(author, 'Initials')));
  return last ? [first, last].filter(Boolean).join(' ') : null;
}

/** Structured abstracts keep their section labels: `BACKGROUND: … METHODS: …`. */
function abstractText(abstract: XmlElement | undefined): string | null {
  const sections = childrenOf(abstract, 'AbstractText').map((section) => {
    const text = cleanText(textOf(section));
    const label = cleanText(section.attributes.Label);
    return text && label ? `${label}: ${text}` : text;
  });
  return cleanText(sections.filter(Boolean).join(' '));
}

/**
 * The journal issue date (`PubDate`: Year/Month/Day, or a free `MedlineDate` like `1998 Dec-1999 Jan`);
 * the electronic `ArticleDate` completes it when the issue date has only a year and the years agree.
 */
function publicationDate(
  pubDate: XmlElement | undefined,
  articleDate: XmlElement | undefined,
): string | null {
  const year = textOf(find(pubDate, 'Year')).trim();
  const issue = year
    ? isoDate(
        year,
        textOf(find(pubDate, 'Month')).trim() || undefined,
        textOf(find(pubDate, 'Day')).trim() || undefined,
      )
    : (/\b(\d{4})\b/.exec(textOf(find(pubDate, 'MedlineDate')))?.[1] ?? null);
  const electronic = articleDate
    ? isoDate(
        textOf(find(articleDate, 'Year')).trim(),
        textOf(find(articleDate, 'Month')).trim(),
        textOf(find(articleDate, 'Day')).trim(),
      )
    : null;
  if (!issue) return electronic;
  return issue.length === 4 && electronic?.startsWith(issue) ? electronic : issue;
}

const editorialTypes = [
  'Editorial',
  'Comment',
  'Letter',
  'News',
  'Newspaper Article',
  'Interview',
  'Biography',
];

/** MEDLINE publication types → ours; anything published in a journal defaults to a journal article. */
function articleType(types: string[]): PaperType {
  if (types.includes('Preprint')) return 'preprint';
  if (types.includes('Published Erratum') || types.includes('Retraction Notice')) return 'other';
  if (types.includes('Dataset')) return 'dataset';
  if (types.includes('Congress')) return 'conference-paper';
  if (types.some((type) => editorialTypes.includes(type)) && !types.includes('Review')) return 'editorial';
  return 'journal-article';
}
