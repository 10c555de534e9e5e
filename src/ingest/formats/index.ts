import type { FormatReader, IngestItem } from '../ingest-item.js';
import { readAclAnthologyXml } from './acl-anthology-xml.js';
import { readAlexandriaJsonl } from './alexandria-jsonl.js';
import { readArxivAtom } from './arxiv-atom.js';
import { readArxivSnapshot } from './arxiv-snapshot.js';
import { readBeirJsonl } from './beir-jsonl.js';
import { readBibtex } from './bibtex.js';
import { readCrossref } from './crossref.js';
import { readCslJson } from './csl-json.js';
import { readOpenAlex } from './openalex.js';
import {
  patentsViewCompanionFiles,
  patentsViewTable,
  readPatentsView,
  readPatentsViewTable,
} from './patentsview.js';
import { readPubmedXml } from './pubmed-xml.js';
import { readRis } from './ris.js';
import { readSemanticScholar } from './semantic-scholar.js';
import { readUsptoXml } from './uspto-xml.js';

/** What `detect` sees of an input: its file name (`-` for stdin) and its first few KiB of text. */
export interface FormatSample {
  /** File name or path; a trailing `.gz` is ignored (the pipeline decompresses before reading). */
  filename: string;
  /** The start of the decompressed text (detection needs at most the first 64 KiB). */
  head: string;
}

/** One ingestion format: a stable name (the `--format` value), a detector and a streaming reader. */
export interface IngestFormat {
  name: string;
  description: string;
  /** True when the sample is this format (by content first, extension second). */
  detect(sample: FormatSample): boolean;
  read: FormatReader;
  /**
   * Sibling files that complete this format's records, by role → file name (PatentsView:
   * `g_inventor_disambiguated.tsv`, …). The pipeline opens those present next to the input, passes
   * them to `readWithCompanions`, and does not ingest them on their own when the main file is there.
   */
  companions?: Readonly<Record<string, string>>;
  readWithCompanions?: (
    input: AsyncIterable<string | Uint8Array>,
    companions: Partial<Record<string, AsyncIterable<string | Uint8Array>>>,
  ) => AsyncIterable<IngestItem>;
}

/** How many characters of the decompressed input `detectFormat` needs in `head`. */
export const detectionHeadLength = 64 * 1024;

/** The file extension that matters for detection, lower case, without `.gz` (`works.jsonl.gz` → `.jsonl`). */
export function extensionOf(filename: string): string {
  const name = filename.toLowerCase().replace(/\.(gz|gzip)$/, '');
  if (name.endsWith('.csl.json')) return '.csl.json';
  const dot = name.lastIndexOf('.');
  return dot > name.lastIndexOf('/') && dot !== -1 ? name.slice(dot) : '';
}

/** The first non-empty line of the head (JSONL detection looks at one record). */
export function firstLine(head: string): string {
  for (const line of head.split('\n', 50)) {
    if (line.trim().length > 0) return line.trim();
  }
  return '';
}

const isJsonName = (filename: string) =>
  ['.jsonl', '.json', '.ndjson', '.jsonld'].includes(extensionOf(filename));
const startsJson = (head: string) => /^\s*[[{]/.test(head);
/** An element of that name starts somewhere in the head (after the XML declaration and doctype). */
const hasElement = (head: string, name: string) => new RegExp(`<${name}[\\s>]`).test(head);

/**
 * All formats, most specific first: `detectFormat` returns the first whose detector accepts the
 * sample, so generic detectors (our own JSONL) come last.
 */
export const ingestFormats: readonly IngestFormat[] = [
  {
    name: 'openalex',
    description: 'OpenAlex works (snapshot JSONL, single-work or list API responses)',
    detect: ({ head }) =>
      startsJson(head) && /"abstract_inverted_index"|"https:\/\/openalex\.org\/W\d+"/.test(head),
    read: readOpenAlex,
  },
  {
    name: 'semantic-scholar',
    description: 'Semantic Scholar papers/abstracts dataset JSONL and Graph API paper responses',
    detect: ({ head }) =>
      startsJson(head) &&
      (/"corpusid"\s*:/.test(head) ||
        /"paperId"\s*:\s*"[0-9a-f]{40}"/.test(head) ||
        /"externalIds"\s*:/.test(head)),
    read: readSemanticScholar,
  },
  {
    name: 'crossref',
    description: 'Crossref works (REST responses, message objects, JSONL or the public data file)',
    detect: ({ head }) =>
      startsJson(head) &&
      (/"message-type"\s*:\s*"work(-list)?"/.test(head) ||
        (/"(reference-count|is-referenced-by-count)"\s*:/.test(head) &&
          /"(indexed|deposited|member|prefix)"\s*:/.test(head))),
    read: readCrossref,
  },
  {
    name: 'arxiv',
    description: 'arXiv metadata snapshot JSONL (Kaggle arxiv-metadata-oai-snapshot)',
    detect: ({ head }) => {
      const line = firstLine(head);
      return line.startsWith('{') && /"(authors_parsed|journal-ref|update_date|submitter)"\s*:/.test(line);
    },
    read: readArxivSnapshot,
  },
  {
    name: 'csl-json',
    description: 'CSL-JSON (array or one item a line), as Zotero, citation-js or pandoc export it',
    detect: ({ filename, head }) =>
      extensionOf(filename) === '.csl.json' ||
      (startsJson(head) &&
        /"type"\s*:\s*"[a-z-]+"/.test(head) &&
        /"(issued|container-title)"\s*:/.test(head)),
    read: readCslJson,
  },
  {
    name: 'arxiv-atom',
    description: 'arXiv API Atom feed (query or id_list responses)',
    detect: ({ head }) => hasElement(head, 'feed') && /arxiv\.org/i.test(head),
    read: readArxivAtom,
  },
  {
    name: 'pubmed',
    description: 'PubMed/MEDLINE XML (PubmedArticleSet: efetch output, baseline and update files)',
    detect: ({ head }) => hasElement(head, 'PubmedArticleSet') || hasElement(head, 'PubmedArticle'),
    read: readPubmedXml,
  },
  {
    name: 'uspto',
    description: 'USPTO full-text XML, grants and applications 2001+ (ICE v4.x, PATDOC 2.5, pap v1.5)',
    detect: ({ head }) =>
      /<(!DOCTYPE\s+)?(us-patent-grant|us-patent-application|PATDOC|patent-application-publication)[\s>]/.test(
        head,
      ),
    read: readUsptoXml,
  },
  {
    name: 'patentsview',
    description:
      'PatentsView tables (g_patent.tsv, with g_inventor/g_assignee/g_patent_abstract/g_application beside it)',
    detect: ({ filename, head }) => {
      const header = firstLine(head)
        .split('\t')
        .map((column) => column.replace(/^"|"$/g, '').trim());
      return (extensionOf(filename) === '.tsv' || header.length > 3) && patentsViewTable(header) !== null;
    },
    read: readPatentsViewTable,
    companions: patentsViewCompanionFiles,
    readWithCompanions: (input, companions) => readPatentsView(input, companions),
  },
  {
    name: 'acl-xml',
    description: 'ACL Anthology XML (data/xml/*.xml: <collection><volume><paper>)',
    detect: ({ head }) => /<collection\s+id="[^"]+"\s*>/.test(head) && hasElement(head, 'volume'),
    read: readAclAnthologyXml,
  },
  {
    name: 'bibtex',
    description: 'BibTeX / BibLaTeX (.bib), parsed by citation-js in bounded batches',
    detect: ({ filename, head }) =>
      ['.bib', '.bibtex'].includes(extensionOf(filename)) ||
      (!startsJson(head) &&
        /^\s*@\s*(article|inproceedings|incollection|misc|book|inbook|phdthesis|mastersthesis|techreport|proceedings|unpublished|online|string|preamble|comment)\s*[{(]/im.test(
          head,
        )),
    read: readBibtex,
  },
  {
    name: 'ris',
    description: 'RIS (EndNote, Zotero, PubMed, Scopus exports), parsed by citation-js',
    detect: ({ filename, head }) =>
      extensionOf(filename) === '.ris' || /^\uFEFF?TY {2}- \S/m.test(head.slice(0, 4096)),
    read: readRis,
  },
  {
    name: 'beir',
    description: 'BEIR corpus JSONL ({_id, title, text}), e.g. SciFact',
    detect: ({ head }) => /^\{\s*"_id"\s*:/.test(firstLine(head)) && /"text"\s*:/.test(firstLine(head)),
    read: readBeirJsonl,
  },
  {
    name: 'jsonl',
    description:
      "Alexandria's own JSONL ({id, title, authors[], abstract, year, venue, doi, url, pdf_url, …})",
    detect: ({ filename, head }) => {
      const line = firstLine(head);
      return (isJsonName(filename) || startsJson(head)) && line.startsWith('{') && /"title"\s*:/.test(line);
    },
    read: readAlexandriaJsonl,
  },
];

/** The format of that name (the `--format` option), or undefined. */
export function findFormat(name: string): IngestFormat | undefined {
  const wanted = name.trim().toLowerCase();
  return ingestFormats.find((format) => format.name === wanted);
}

/** The first format that recognises the sample, or undefined when none does. */
export function detectFormat(filename: string, head: string): IngestFormat | undefined {
  const sample = { filename, head: head.charCodeAt(0) === 0xfeff ? head.slice(1) : head };
  return ingestFormats.find((format) => {
    try {
      return format.detect(sample);
    } catch {
      return false;
    }
  });
}

export type { FormatReader, IngestItem } from '../ingest-item.js';
