import { DOMParser, type Element, type Node } from '@xmldom/xmldom';
import { z } from 'zod';

/**
 * The parts of a PubMed efetch record (`db=pubmed&retmode=xml`, PubmedArticleSet DTD) we read,
 * after DOM extraction. The XML is read with xmldom because titles and abstracts are mixed
 * content (`<i>`, `<sup>`), which a DOM keeps in order.
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
  const document = new DOMParser({
    onError: (level, message) => {
      if (level === 'fatalError') throw new Error(`invalid PubMed XML: ${message}`);
    },
  }).parseFromString(xml, 'text/xml');
  return descendants(document.documentElement, 'PubmedArticle').map((article) => {
    const citation = child(article, 'MedlineCitation');
    const details = child(citation, 'Article');
    const journalIssue = child(child(details, 'Journal'), 'JournalIssue');
    const pubDate = child(journalIssue, 'PubDate');
    const articleIds = children(child(child(article, 'PubmedData'), 'ArticleIdList'), 'ArticleId');
    const idOf = (type: string) => articleIds.find((id) => id.getAttribute('IdType') === type);
    return pubmedArticleSchema.parse({
      pmid: text(child(citation, 'PMID')),
      title: text(child(details, 'ArticleTitle')),
      abstract:
        children(child(details, 'Abstract'), 'AbstractText')
          .map((part) => {
            const label = part.getAttribute('Label');
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

function text(node: Node | null | undefined): string {
  return node ? (node.textContent ?? '').replace(/\s+/g, ' ').trim() : '';
}

function children(parent: Node | null | undefined, name: string): Element[] {
  const found: Element[] = [];
  for (let node = parent?.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).localName === name) found.push(node as Element);
  }
  return found;
}

function child(parent: Node | null | undefined, name: string): Element | null {
  return children(parent, name)[0] ?? null;
}

function descendants(parent: Node | null | undefined, name: string): Element[] {
  const found: Element[] = [];
  for (let node = parent?.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    if ((node as Element).localName === name) found.push(node as Element);
    else found.push(...descendants(node, name));
  }
  return found;
}
