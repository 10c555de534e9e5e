import type { PaperType } from '../../domain/paper.js';
import { childrenOf, find, parseXmlRecord, textOf, type XmlElement } from '../../text/xml-tree.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { buildPaper, cleanText, isoDate, toInteger } from './paper-builder.js';
import { splitXmlRecords, xmlLocation } from './xml-records.js';

/** The volume a paper belongs to: what its `<meta>` says, plus the ids that make up the ACL id. */
interface VolumeContext {
  collection: string;
  volume: string;
  volumeType: string | null;
  booktitle: string | null;
  venue: string | null;
  year: string | null;
  month: string | null;
}

/**
 * ACL Anthology XML (`data/xml/*.xml` of acl-org/acl-anthology: `<collection><volume><meta/>
 * <paper/>…`). Papers are split out one by one; the `<collection>`/`<volume>` start tags and the
 * volume `<meta>` give the context (ids, booktitle, year). The ACL id is the paper's `<url>` when it
 * is an anthology id, else built from the ids: `2022.acl-long.1` (new style) or `P19-1001` (old).
 */
export const readAclAnthologyXml: FormatReader = async function* (input) {
  const context: VolumeContext = {
    collection: '',
    volume: '',
    volumeType: null,
    booktitle: null,
    venue: null,
    year: null,
    month: null,
  };
  const events = splitXmlRecords(input, { records: ['paper', 'meta'], containers: ['collection', 'volume'] });
  for await (const event of events) {
    if (event.kind === 'open') {
      const id = /\sid="([^"]*)"/.exec(event.tag)?.[1] ?? '';
      if (event.name === 'collection') context.collection = id;
      else
        Object.assign(context, {
          volume: id,
          volumeType: /\stype="([^"]*)"/.exec(event.tag)?.[1] ?? null,
          booktitle: null,
          venue: null,
          year: null,
          month: null,
        });
      continue;
    }
    const location = xmlLocation(event);
    if (event.kind === 'error') {
      yield { ok: false, reason: event.reason, location };
      continue;
    }
    let element: XmlElement;
    try {
      element = parseXmlRecord(event.xml);
    } catch (error) {
      yield { ok: false, reason: (error as Error).message, location };
      continue;
    }
    if (element.name === 'meta') {
      context.booktitle = cleanText(textOf(find(element, 'booktitle')));
      context.venue = cleanText(textOf(find(element, 'venue')));
      context.year = cleanText(textOf(find(element, 'year')));
      context.month = cleanText(textOf(find(element, 'month')));
      continue;
    }
    yield mapPaper(element, context, location);
  }
};

function mapPaper(paper: XmlElement, context: VolumeContext, location: string): IngestItem {
  const paperId = paper.attributes.id ?? '';
  const urlText = cleanText(textOf(find(paper, 'url')));
  const aclId =
    urlText && !/^https?:/i.test(urlText) ? urlText : buildAclId(context.collection, context.volume, paperId);
  if (!aclId) return { ok: false, reason: 'paper has no id', location };
  const year = cleanText(textOf(find(paper, 'year'))) ?? context.year;
  const built = buildPaper(
    {
      title: cleanText(textOf(find(paper, 'title'))),
      authors: childrenOf(paper, 'author').map(personName),
      abstract: cleanText(textOf(find(paper, 'abstract'))),
      publication_date: isoDate(year, cleanText(textOf(find(paper, 'month'))) ?? context.month),
      year: toInteger(year),
      venue: context.booktitle ?? context.venue,
      type: volumeType(context),
      url: urlText && /^https?:/i.test(urlText) ? urlText : `https://aclanthology.org/${aclId}`,
      pdf_url: urlText && /^https?:/i.test(urlText) ? null : `https://aclanthology.org/${aclId}.pdf`,
      identifiers: { acl: aclId, doi: cleanText(textOf(find(paper, 'doi'))) },
    },
    { source: 'acl-xml' },
  );
  return typeof built === 'string'
    ? { ok: false, reason: `${aclId}: ${built}`, location }
    : { ok: true, paper: built, location };
}

/** `2022.acl` + `long` + `1` → `2022.acl-long.1`; `P19` + `1` + `1` → `P19-1001`; `W19` + `32` + `5` → `W19-3205`. */
export function buildAclId(collection: string, volume: string, paper: string): string | null {
  if (!collection || !volume || !paper) return null;
  if (/^\d{4}\./.test(collection)) return `${collection}-${volume}.${paper}`;
  return `${collection}-${volume}${paper.padStart(Math.max(4 - volume.length, paper.length), '0')}`;
}

function personName(person: XmlElement): string | null {
  return cleanText(`${textOf(find(person, 'first'))} ${textOf(find(person, 'last'))}`);
}

/** Journals (TACL, CL; volume type `journal` or old `J`/`Q` collections) vs proceedings. */
function volumeType(context: VolumeContext): PaperType {
  if (context.volumeType === 'journal' || /^[JQ]\d{2}$/.test(context.collection)) return 'journal-article';
  if (/\b(transactions|journal)\b|^computational linguistics/i.test(context.booktitle ?? ''))
    return 'journal-article';
  return 'conference-paper';
}
