import { normalizeArxivId } from '../../domain/identifiers.js';
import { childrenOf, find, parseXmlRecord, textOf, type XmlElement } from '../../text/xml-tree.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { buildPaper, cleanText } from './paper-builder.js';
import { splitXmlRecords, xmlLocation } from './xml-records.js';

/**
 * arXiv API responses (Atom feeds): each `<entry>` is a paper. The id is the abs url with its version;
 * an entry without one (the API's error entries) is rejected. Published unless no journal ref/DOI.
 */
export const readArxivAtom: FormatReader = async function* (input) {
  for await (const event of splitXmlRecords(input, { records: ['entry'] })) {
    if (event.kind === 'open') continue;
    const location = xmlLocation(event);
    if (event.kind === 'error') {
      yield { ok: false, reason: event.reason, location };
      continue;
    }
    yield mapEntry(event.xml, location);
  }
};

function mapEntry(xml: string, location: string): IngestItem {
  let entry: XmlElement;
  try {
    entry = parseXmlRecord(xml);
  } catch (error) {
    return { ok: false, reason: (error as Error).message, location };
  }
  const absUrl = cleanText(textOf(find(entry, 'id'))) ?? '';
  const versioned = /arxiv\.org\/abs\/(.+)$/i.exec(absUrl)?.[1] ?? null;
  const arxivId = normalizeArxivId(versioned);
  if (!versioned || !arxivId)
    return { ok: false, reason: `entry is not an arXiv paper (id ${absUrl || 'missing'})`, location };
  const journalRef = cleanText(textOf(find(entry, 'journal_ref')));
  const doi = cleanText(textOf(find(entry, 'doi')));
  const paper = buildPaper(
    {
      title: cleanText(textOf(find(entry, 'title'))),
      authors: childrenOf(entry, 'author').map((author) => cleanText(textOf(find(author, 'name')))),
      abstract: cleanText(textOf(find(entry, 'summary'))),
      publication_date: cleanText(textOf(find(entry, 'published')))?.slice(0, 10) ?? null,
      venue: journalRef ?? 'arXiv',
      type: journalRef || doi ? 'journal-article' : 'preprint',
      url: `https://arxiv.org/abs/${arxivId}`,
      pdf_url: `https://arxiv.org/pdf/${versioned}`,
      identifiers: { arxiv: arxivId, doi },
    },
    { source: 'arxiv' },
  );
  return typeof paper === 'string' ? { ok: false, reason: paper, location } : { ok: true, paper, location };
}
