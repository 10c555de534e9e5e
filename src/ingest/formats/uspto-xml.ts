import {
  childrenOf,
  descendant,
  find,
  findAll,
  parseXmlRecord,
  textOf,
  type XmlElement,
} from '../../text/xml-tree.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { buildPaper, cleanText, normalizeDate, type PaperDraft } from './paper-builder.js';
import { pruneElements } from './xml-prune.js';
import { splitXmlRecords, xmlLocation } from './xml-records.js';

/** Root elements of the USPTO full-text XML families, 2001 onwards. */
const roots = ['us-patent-grant', 'us-patent-application', 'PATDOC', 'patent-application-publication'];

/**
 * The parts of a patent document we index: the bibliographic block and the abstract. Descriptions
 * and claims are most of the bytes and are never parsed: the record is cut down to these elements
 * (by their tags) before the XML parser sees it.
 */
const keptSections: Record<string, string[]> = {
  'us-patent-grant': ['us-bibliographic-data-grant', 'abstract'],
  'us-patent-application': ['us-bibliographic-data-application', 'abstract'],
  PATDOC: ['SDOBI', 'SDOAB'],
  'patent-application-publication': ['subdoc-bibliographic-information', 'subdoc-abstract'],
};

/**
 * USPTO full-text XML, grants and pre-grant publications in every format of the bulk files since
 * 2001: ICE `us-patent-grant`/`us-patent-application` v4.0–v4.5 (2005+), PATDOC 2.5 "SGML as XML"
 * grants (2002–2004) and `patent-application-publication` pap v1.5/1.6 (2001–2004). Weekly files
 * concatenate thousands of `<?xml …?>` documents; each root element is one record.
 */
export const readUsptoXml: FormatReader = async function* (input) {
  for await (const event of splitXmlRecords(input, { records: roots })) {
    if (event.kind === 'open') continue;
    const location = xmlLocation(event);
    if (event.kind === 'error') {
      yield { ok: false, reason: event.reason, location };
      continue;
    }
    yield mapDocument(event.name, event.xml, location);
  }
};

function mapDocument(rootName: string, xml: string, location: string): IngestItem {
  let root: XmlElement;
  try {
    root = parseXmlRecord(keepSections(rootName, xml));
  } catch (error) {
    return { ok: false, reason: (error as Error).message, location };
  }
  const draft =
    rootName === 'PATDOC'
      ? mapPatdoc(root)
      : rootName === 'patent-application-publication'
        ? mapPap(root)
        : mapIce(root);
  if (typeof draft === 'string') return { ok: false, reason: draft, location };
  const paper = buildPaper(draft, { source: 'uspto' });
  return typeof paper === 'string'
    ? { ok: false, reason: `${draft.patent_number}: ${paper}`, location }
    : { ok: true, paper, location };
}

/** Citation lists inside the bibliographic block: up to hundreds of entries we do not index. */
const droppedInside = [
  'us-references-cited',
  'references-cited',
  'B560',
  'us-field-of-classification-search',
];

/** The root start tag plus the kept sections (citation lists cut out), as a small well-formed document. */
function keepSections(rootName: string, xml: string): string {
  const startTag = xml.slice(0, xml.indexOf('>') + 1);
  const parts = (keptSections[rootName] ?? []).map((name) =>
    pruneElements(elementText(xml, name), droppedInside),
  );
  return `${startTag}${parts.join('\n')}</${rootName}>`;
}

/** The text of the first element of that name (by its tags), or ''. */
function elementText(xml: string, name: string): string {
  const start = xml.search(new RegExp(`<${name}[\\s>]`));
  const endTag = `</${name}>`;
  const end = start === -1 ? -1 : xml.indexOf(endTag, start);
  return end === -1 ? '' : xml.slice(start, end + endTag.length);
}

/** `US` + `06336130` → `US6336130`; `D0512345` → `USD512345`; `RE038123` → `USRE38123`. */
export function patentNumber(country: string | null, number: string): string {
  const match = /^([A-Z]*)0*(\d+)$/i.exec(number.trim());
  const canonical = match ? `${(match[1] ?? '').toUpperCase()}${match[2]}` : number.trim();
  return `${country ?? 'US'}${canonical}`;
}

function patentDraft(fields: {
  country: string | null;
  number: string | null;
  kind: string | null;
  date: string | null;
  filingDate: string | null;
  title: string | null;
  inventors: (string | null)[];
  assignees: (string | null)[];
  abstract: string | null;
  application: boolean;
}): PaperDraft | string {
  if (!fields.number) return 'patent document has no number';
  const number = patentNumber(fields.country, fields.number);
  const kind = fields.kind?.toUpperCase() ?? null;
  return {
    title: fields.title,
    authors: fields.inventors,
    abstract: fields.abstract,
    publication_date: normalizeDate(fields.date),
    venue: 'USPTO',
    type: fields.application ? 'patent-application' : 'patent',
    url: `https://patents.google.com/patent/${number}${kind ?? ''}`,
    identifiers: { patent_number: number },
    patent_number: number,
    kind,
    filing_date: normalizeDate(fields.filingDate),
    assignees: fields.assignees.filter((name): name is string => name !== null),
  };
}

const text = (element: XmlElement | undefined) => cleanText(textOf(element));

/** ICE v4.x grants and applications. */
function mapIce(root: XmlElement): PaperDraft | string {
  const biblio = find(root, 'us-bibliographic-data-grant') ?? find(root, 'us-bibliographic-data-application');
  if (!biblio) return 'patent document has no bibliographic data';
  const publication = find(biblio, 'publication-reference', 'document-id');
  const application = find(biblio, 'application-reference', 'document-id');
  const parties = find(biblio, 'us-parties') ?? find(biblio, 'parties');
  const inventors = findAll(parties, 'inventors', 'inventor');
  // v4.0–4.2 list inventors as applicants; later versions have an inventors list of their own.
  const people =
    inventors.length > 0
      ? inventors
      : [
          ...findAll(parties, 'us-applicants', 'us-applicant'),
          ...findAll(parties, 'applicants', 'applicant'),
        ].filter(
          (applicant) =>
            !/^applicant$/.test(applicant.attributes['app-type'] ?? '') ||
            !find(applicant, 'addressbook', 'orgname'),
        );
  const assignees = [
    ...findAll(biblio, 'assignees', 'assignee'),
    ...findAll(parties, 'assignees', 'assignee'),
  ];
  return patentDraft({
    country: text(find(publication, 'country')),
    number: text(find(publication, 'doc-number')),
    kind: text(find(publication, 'kind')),
    date: text(find(publication, 'date')),
    filingDate: text(find(application, 'date')),
    title: text(find(biblio, 'invention-title')),
    inventors: people.map((person) => addressbookName(find(person, 'addressbook') ?? person)),
    assignees: assignees.map((assignee) => addressbookName(find(assignee, 'addressbook') ?? assignee)),
    abstract: text(find(root, 'abstract')),
    application: root.name === 'us-patent-application',
  });
}

function addressbookName(book: XmlElement): string | null {
  const organisation = text(find(book, 'orgname'));
  if (organisation) return organisation;
  return cleanText(`${textOf(find(book, 'first-name'))} ${textOf(find(book, 'last-name'))}`);
}

/** PATDOC 2.5 grants (ST.32 tags: B110 number, B130 kind, B140 date, B540 title, B721 inventors, B731 assignees). */
function mapPatdoc(root: XmlElement): PaperDraft | string {
  const biblio = find(root, 'SDOBI');
  if (!biblio) return 'patent document has no SDOBI block';
  const b100 = find(biblio, 'B100');
  const partyName = (party: XmlElement) => {
    const name = descendant(party, 'NAM');
    return text(find(name, 'ONM')) ?? cleanText(`${textOf(find(name, 'FNM'))} ${textOf(find(name, 'SNM'))}`);
  };
  return patentDraft({
    country: text(find(b100, 'B190')),
    number: text(find(b100, 'B110')),
    kind: text(find(b100, 'B130')),
    date: text(find(b100, 'B140')),
    filingDate: text(find(biblio, 'B200', 'B220')),
    title: text(find(biblio, 'B500', 'B540')),
    inventors: findAll(biblio, 'B700', 'B720', 'B721').map(partyName),
    assignees: findAll(biblio, 'B700', 'B730', 'B731').map(partyName),
    abstract: text(find(root, 'SDOAB')),
    application: false,
  });
}

/** Pre-grant publications, pap v1.5/1.6 (2001–2004). */
function mapPap(root: XmlElement): PaperDraft | string {
  const biblio = find(root, 'subdoc-bibliographic-information');
  if (!biblio) return 'patent document has no bibliographic information';
  const documentId = find(biblio, 'document-id');
  const inventors = childrenOf(find(biblio, 'inventors')).filter((element) => /inventor$/.test(element.name));
  const personName = (person: XmlElement) => {
    const name = find(person, 'name');
    return cleanText(
      ['given-name', 'middle-name', 'family-name'].map((part) => textOf(find(name, part))).join(' '),
    );
  };
  const assignees = childrenOf(biblio, 'assignee').map(
    (assignee) => text(find(assignee, 'organization-name')) ?? personName(assignee),
  );
  return patentDraft({
    country: text(find(documentId, 'country-code')),
    number: text(find(documentId, 'doc-number')),
    kind: text(find(documentId, 'kind-code')),
    date: text(find(documentId, 'document-date')),
    filingDate: text(find(biblio, 'domestic-filing-data', 'filing-date')),
    title: text(find(biblio, 'technical-information', 'title-of-invention')),
    inventors: inventors.map(personName),
    assignees,
    abstract: text(find(root, 'subdoc-abstract')),
    application: true,
  });
}
