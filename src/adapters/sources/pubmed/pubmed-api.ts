import { z } from 'zod';
import { childrenOf, parseXmlRecord, textOf, type XmlElement } from '../../../text/xml-tree.js';

/**
 * The parts of a PubMed efetch record (`db=pubmed&retmode=xml`, PubmedArticleSet DTD) we read,
 * after extraction. The XML is read as an ordered tree (`text/xml-tree.ts`, as bulk PubMed files are)
 * because titles and abstracts are mixed content (`<i>`, `<sup>`), whose order it keeps.
 */
export const pubmedArticleSchema = z.object({
  pmid: z.string(),
  title: z.string().nullish(),
  abstract: z.string().nullish(),
  authors: z.array(z.string()),
  journal: z.string().nullish(),
  volume: z.string().nullish(),
  issue: z.string().nullish(),
  /** `MedlinePgn`: "2603-4" (the end abbreviated, as MEDLINE prints it) or an article number. */
  pages: z.string().nullish(),
  issn: z.string().nullish(),
  keywords: z.array(z.string()),
  year: z.string().nullish(),
  month: z.string().nullish(),
  day: z.string().nullish(),
  medlineDate: z.string().nullish(),
  doi: z.string().nullish(),
  pmcid: z.string().nullish(),
  publicationTypes: z.array(z.string()),
});

export type PubmedArticle = z.infer<typeof pubmedArticleSchema>;

/** Extracts every PubmedArticle of an efetch answer; throws on a body that is not XML. */
export function parsePubmedArticles(xml: string): PubmedArticle[] {
  let root: XmlElement;
  try {
    root = parseXmlRecord(xml);
  } catch (error) {
    throw new Error(`invalid PubMed XML: ${(error as Error).message}`);
  }
  return (root.name === 'PubmedArticle' ? [root] : descendants(root, 'PubmedArticle')).map((article) => {
    const citation = child(article, 'MedlineCitation');
    const details = child(citation, 'Article');
    const journalIssue = child(child(details, 'Journal'), 'JournalIssue');
    const pubDate = child(journalIssue, 'PubDate');
    const articleIds = children(child(child(article, 'PubmedData'), 'ArticleIdList'), 'ArticleId');
    const idOf = (type: string) => articleIds.find((id) => id.attributes.IdType === type);
    return pubmedArticleSchema.parse({
      pmid: text(child(citation, 'PMID')),
      title: text(child(details, 'ArticleTitle')),
      abstract:
        children(child(details, 'Abstract'), 'AbstractText')
          .map((part) => {
            const label = part.attributes.Label;
            return label ? `${label}: ${text(part)}` : text(part);
          })
          .join(' ') || null,
      authors: children(child(details, 'AuthorList'), 'Author').flatMap((author) => {
        const collective = text(child(author, 'CollectiveName'));
        const name = [text(child(author, 'ForeName')), text(child(author, 'LastName'))]
          .filter(Boolean)
          .join(' ');
        return collective ? [collective] : name ? [name] : [];
      }),
      journal: text(child(child(details, 'Journal'), 'Title')),
      volume: text(child(journalIssue, 'Volume')) || null,
      issue: text(child(journalIssue, 'Issue')) || null,
      pages: text(child(child(details, 'Pagination'), 'MedlinePgn')) || null,
      issn: text(child(child(details, 'Journal'), 'ISSN')) || null,
      keywords: children(child(citation, 'KeywordList'), 'Keyword').map(text).filter(Boolean),
      year: text(child(pubDate, 'Year')),
      month: text(child(pubDate, 'Month')),
      day: text(child(pubDate, 'Day')),
      medlineDate: text(child(pubDate, 'MedlineDate')),
      doi: text(idOf('doi')),
      pmcid: text(idOf('pmc')),
      publicationTypes: children(child(details, 'PublicationTypeList'), 'PublicationType').map(text),
    });
  });
}

function text(element: XmlElement | null | undefined): string {
  return element ? textOf(element).replace(/\s+/g, ' ').trim() : '';
}

function children(parent: XmlElement | null | undefined, name: string): XmlElement[] {
  return childrenOf(parent ?? undefined, name);
}

function child(parent: XmlElement | null | undefined, name: string): XmlElement | null {
  return children(parent, name)[0] ?? null;
}

/** Every element of that name below `parent`, not looking inside a match. */
function descendants(parent: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const element of childrenOf(parent)) {
    if (element.name === name) found.push(element);
    else found.push(...descendants(element, name));
  }
  return found;
}
