import { normalizeArxivId, normalizeDoi } from '../domain/identifiers.js';
import { identityKeys, type Paper } from '../domain/paper.js';

/** A record the run retrieved, with the citation the answer must use for it. */
export interface RetrievedSource {
  /** Short id shown to the model (`S1`, `S2`, …). */
  id: string;
  paper: Paper;
  /** `Smith et al., 2020` (with a/b suffixes when two sources would read the same). */
  label: string;
  /** Where the citation links to (see `citationUrl`); null when the record has no locator. */
  url: string | null;
}

/** Text the run read, kept so an answer can be composed (or checked) from it. */
export interface Evidence {
  source: RetrievedSource;
  text: string;
  kind: 'abstract' | 'fulltext';
  /** Chunk number for full-text evidence. */
  chunk?: number;
}

/**
 * Everything a run retrieved: the only records an answer may cite. Every citation check and every
 * references list reads from here, so "cited" can never mean "the model said so".
 */
export class SourceLedger {
  private readonly list: RetrievedSource[] = [];
  private readonly byIdentity = new Map<string, RetrievedSource>();
  private readonly byUrl = new Map<string, RetrievedSource>();
  private readonly figures = new Set<string>();
  readonly evidence: Evidence[] = [];

  /**
   * @param documentUrl link target for a record whose only locator is a `PROJ:` reference (a PDF in
   *   the caller's project), e.g. the service's own `/api/fulltext?pdf_id=…` address.
   */
  constructor(private readonly documentUrl: (pdfRef: string) => string = (ref) => ref) {}

  /** Registers a record (merging with one already seen under any identity key) and returns it. */
  add(paper: Paper): RetrievedSource {
    const keys = identityKeys(paper);
    for (const key of keys) {
      const known = this.byIdentity.get(key);
      if (known) {
        if (!known.paper.pdf_id && paper.pdf_id) known.paper = { ...known.paper, pdf_id: paper.pdf_id };
        this.index(known, keys);
        return known;
      }
    }
    const url = citationUrl(paper, this.documentUrl);
    let label = citationLabel(paper);
    if (this.list.some((source) => source.label === label)) {
      const suffix = 'bcdefghijklmnopqrstuvwxyz'
        .split('')
        .find((letter) => !this.list.some((source) => source.label === `${label}${letter}`));
      label = `${label}${suffix ?? ''}`;
    }
    const source: RetrievedSource = { id: `S${this.list.length + 1}`, paper, label, url };
    this.list.push(source);
    this.index(source, keys);
    return source;
  }

  /** Records a figure image the run saw (its url may appear in an answer). */
  addFigure(url: string): void {
    const key = urlKey(url);
    if (key) this.figures.add(key);
  }

  addEvidence(evidence: Evidence): void {
    this.evidence.push(evidence);
  }

  sources(): RetrievedSource[] {
    return [...this.list];
  }

  get size(): number {
    return this.list.length;
  }

  /** The source a document reference (`pdf_id`) belongs to, when the run has seen it. */
  findByDocument(pdfRef: string): RetrievedSource | undefined {
    return this.list.find((source) => source.paper.pdf_id === pdfRef) ?? this.findByUrl(pdfRef);
  }

  /** The source a link points at (any of its urls, its DOI, arXiv id or document reference). */
  findByUrl(url: string): RetrievedSource | undefined {
    const key = urlKey(url);
    return key ? this.byUrl.get(key) : undefined;
  }

  isFigure(url: string): boolean {
    const key = urlKey(url);
    return key !== undefined && this.figures.has(key);
  }

  /** The source an author–year citation names ("Smith et al., 2020", "Smith 2020a"), if exactly known. */
  findByAuthorYear(text: string): RetrievedSource | undefined {
    const normalized = normalizeLabel(text);
    const exact = this.list.find((source) => normalizeLabel(source.label) === normalized);
    if (exact) return exact;
    const match = /^(.+?)(?:\s+et al|\s+(?:and|&)\s+\S+)?\s+((?:1[5-9]|20)\d{2})$/u.exec(normalized);
    if (!match) return undefined;
    const [, surname, year] = match;
    return this.list.find(
      (source) =>
        normalizeLabel(surnameOf(source.paper.authors[0] ?? '')) === surname &&
        String(yearOf(source.paper) ?? '') === year,
    );
  }

  private index(source: RetrievedSource, keys: string[]): void {
    for (const key of keys) if (!this.byIdentity.has(key)) this.byIdentity.set(key, source);
    for (const url of locatorsOf(source)) {
      const key = urlKey(url);
      if (key && !this.byUrl.has(key)) this.byUrl.set(key, source);
    }
  }
}

/**
 * Every address under which a citation of this source is accepted (and, for the tools, every
 * address of it the run may read: `document-provenance.ts`).
 */
export function locatorsOf(source: RetrievedSource): string[] {
  const { paper } = source;
  const ids = paper.identifiers ?? {};
  const doi = normalizeDoi(paper.doi ?? ids.doi ?? null);
  const arxiv = normalizeArxivId(ids.arxiv ?? null);
  const pdfRef = paper.pdf_id;
  return [
    source.url ?? undefined,
    paper.url,
    paper.landing_page_url,
    paper.pdf_url,
    pdfRef,
    ids.pmid ? `https://pubmed.ncbi.nlm.nih.gov/${ids.pmid}` : undefined,
    pdfRef?.replace(/^PDF_URL:/i, ''),
    doi ? `https://doi.org/${doi}` : undefined,
    arxiv ? `https://arxiv.org/abs/${arxiv}` : undefined,
    arxiv ? `https://arxiv.org/pdf/${arxiv}` : undefined,
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}

/**
 * The link target of a record: its url, else its DOI, else a landing page derived from a strong
 * identifier (arXiv, PubMed, ACL Anthology, Semantic Scholar, OpenAlex, patent), else its PDF, else
 * its document reference in the caller's project. Null when the record has no locator at all.
 */
export function citationUrl(
  paper: Paper,
  documentUrl: (pdfRef: string) => string = (ref) => ref,
): string | null {
  const ids = paper.identifiers ?? {};
  const doi = normalizeDoi(paper.doi ?? ids.doi ?? null);
  const arxiv = normalizeArxivId(ids.arxiv ?? null);
  const ssId = paper.ss_id ?? ids.ss_id;
  const candidates = [
    paper.url,
    doi ? `https://doi.org/${doi}` : null,
    paper.landing_page_url,
    arxiv ? `https://arxiv.org/abs/${arxiv}` : null,
    ids.pmid ? `https://pubmed.ncbi.nlm.nih.gov/${ids.pmid}/` : null,
    ids.acl ? `https://aclanthology.org/${ids.acl}` : null,
    ssId ? `https://www.semanticscholar.org/paper/${ssId}` : null,
    ids.openalex ? `https://openalex.org/${ids.openalex}` : null,
    ids.patent_number ? `https://patents.google.com/patent/${ids.patent_number}` : null,
    paper.pdf_url,
  ];
  const direct = candidates.find((value) => typeof value === 'string' && /^https?:\/\//i.test(value));
  if (direct) return direct;
  const ref = paper.pdf_id;
  if (ref && /^PDF_URL:/i.test(ref)) return ref.slice(8);
  return ref ? documentUrl(ref) : null;
}

/** The markdown citation of a source: `[label](url)`, or `[label]` when it has no locator. */
export function citationMarkdown(source: RetrievedSource): string {
  return source.url ? `[${source.label}](${source.url})` : `[${source.label}]`;
}

/** "Smith et al., 2020", "Smith and Jones, 2020", "Smith, 2020"; the title's start without authors. */
export function citationLabel(paper: Paper): string {
  const surnames = paper.authors.map(surnameOf).filter((name) => name.length > 0);
  const year = yearOf(paper) ?? 'n.d.';
  const who =
    surnames.length === 0
      ? shortTitle(paper.title)
      : surnames.length === 1
        ? surnames[0]
        : surnames.length === 2
          ? `${surnames[0]} and ${surnames[1]}`
          : `${surnames[0]} et al.`;
  return `${who}, ${year}`;
}

export function yearOf(paper: Paper): number | undefined {
  if (typeof paper.year === 'number') return paper.year;
  const match = /^(\d{4})/.exec(paper.publication_date ?? '');
  return match ? Number(match[1]) : undefined;
}

/** "Smith, Jane" → Smith; "Jane A. Smith" → Smith; "Jane Smith Jr." → Smith. Brackets removed. */
export function surnameOf(author: string): string {
  const clean = author.replace(/[[\]()<>*_`|]/g, '').trim();
  if (clean.includes(',')) return clean.split(',')[0]?.trim() ?? '';
  const parts = clean.split(/\s+/).filter((part) => !/^(jr|sr|ii|iii|iv)\.?$/i.test(part));
  return parts.at(-1) ?? '';
}

function shortTitle(title: string): string {
  const words = title
    .replace(/[[\]()<>*_`|]/g, '')
    .split(/\s+/)
    .filter(Boolean);
  return words.length <= 4 ? words.join(' ') : `${words.slice(0, 4).join(' ')}…`;
}

/** Case, accents, commas and periods ignored: "Smith et al 2020" reads as "Smith et al., 2020". */
function normalizeLabel(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.,]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A comparable form of a link target: scheme, `www.`, fragment and trailing slash ignored; DOIs
 * compared case-insensitively whatever resolver host (doi.org, dx.doi.org) carries them.
 */
export function urlKey(raw: string): string | undefined {
  const text = raw.trim().replace(/^<|>$/g, '');
  if (/^PROJ:/i.test(text)) return text.toLowerCase();
  const target = text.replace(/^PDF_URL:/i, '');
  if (/^10\.\d{4,9}\//.test(target)) return `doi:${target.toLowerCase()}`;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  if (host === 'doi.org' || host === 'dx.doi.org') {
    return `doi:${safeDecode(url.pathname.slice(1)).replace(/\/+$/, '').toLowerCase()}`;
  }
  const path = safeDecode(url.pathname).replace(/\/+$/, '');
  return `${host}${path}${url.search}`;
}

/** `decodeURIComponent`, or the text as it is when it holds a malformed escape. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
