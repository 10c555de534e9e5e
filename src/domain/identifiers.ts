import { invalid } from './errors.js';

/**
 * Typed paper identifiers, as `add_to_project` and `/api/paper` take them: `<TYPE>:<value>`.
 * Values are normalised so that the same paper from two sources compares equal.
 */
export const identifierTypes = ['DOI', 'PMID', 'SS_ID', 'ARXIV', 'MAG', 'ACL', 'PMCID'] as const;
export type IdentifierType = (typeof identifierTypes)[number];

export interface PaperIdentifier {
  type: IdentifierType;
  value: string;
}

const doiPattern = /^10\.\d{4,9}\/\S+$/;
const arxivNewPattern = /^\d{4}\.\d{4,5}$/;
const arxivOldPattern = /^[a-z-]+(\.[a-z]{2})?\/\d{7}$/i;

/** Lower-cased DOI without resolver prefix, or null when the text is not a DOI. */
export function normalizeDoi(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const doi = raw
    .trim()
    .replace(/^(https?:\/\/)?(dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '')
    .toLowerCase();
  return doiPattern.test(doi) ? doi : null;
}

/** arXiv id without `arXiv:` prefix, url or version suffix (`2304.02623v1` → `2304.02623`). */
export function normalizeArxivId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const id = raw
    .trim()
    .replace(/^(https?:\/\/)?(www\.)?arxiv\.org\/(abs|pdf)\//i, '')
    .replace(/^arxiv:/i, '')
    .replace(/\.pdf$/i, '')
    .replace(/v\d+$/i, '');
  if (arxivNewPattern.test(id)) return id;
  if (arxivOldPattern.test(id)) return id.toLowerCase();
  return null;
}

/** PMCID with its `PMC` prefix (`12345` → `PMC12345`). */
export function normalizePmcid(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const digits = raw.trim().replace(/^pmc/i, '');
  return /^\d+$/.test(digits) ? `PMC${digits}` : null;
}

function normalizeDigits(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const value = String(raw).trim();
  return /^\d+$/.test(value) ? value : null;
}

/** Normalises a value of the given type; null when it is not a valid identifier of that type. */
export function normalizeIdentifier(type: IdentifierType, raw: string): string | null {
  switch (type) {
    case 'DOI':
      return normalizeDoi(raw);
    case 'ARXIV':
      return normalizeArxivId(raw);
    case 'PMCID':
      return normalizePmcid(raw);
    case 'PMID':
    case 'MAG':
      return normalizeDigits(raw);
    case 'SS_ID': {
      const value = raw.trim().replace(/^CorpusId:/i, 'CorpusId:');
      return /^[0-9a-f]{40}$/i.test(value)
        ? value.toLowerCase()
        : /^CorpusId:\d+$/.test(value)
          ? value
          : null;
    }
    case 'ACL': {
      const value = raw.trim();
      return /^[A-Za-z0-9][A-Za-z0-9.-]{2,40}$/.test(value) ? value : null;
    }
  }
}

/**
 * Parses `<TYPE>:<value>` (type case-insensitive). Throws a 400 naming `param` when the text is not
 * a supported identifier.
 */
export function parsePaperIdentifier(text: string, param = 'paper_id'): PaperIdentifier {
  const separator = text.indexOf(':');
  if (separator <= 0) {
    throw invalid(
      param,
      `${param} must look like <TYPE>:<value> with TYPE one of ${identifierTypes.join(', ')}`,
    );
  }
  const type = text.slice(0, separator).trim().toUpperCase().replace('-', '_');
  const rawValue = text.slice(separator + 1);
  if (!(identifierTypes as readonly string[]).includes(type)) {
    throw invalid(
      param,
      `Unknown identifier type "${type}" in ${param}; use one of ${identifierTypes.join(', ')}`,
    );
  }
  const value = normalizeIdentifier(type as IdentifierType, rawValue);
  if (value === null) {
    throw invalid(param, `"${rawValue}" is not a valid ${type} identifier`);
  }
  return { type: type as IdentifierType, value };
}

/** Normalised title for de-duplication: lower case, letters and digits only, single spaces. */
export function normalizeTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The identity key (see `identityKeys` in paper.ts) that a typed identifier corresponds to. */
export function identifierKey(identifier: PaperIdentifier): string {
  switch (identifier.type) {
    case 'DOI':
      return `doi:${identifier.value}`;
    case 'ARXIV':
      return `arxiv:${identifier.value}`;
    case 'PMID':
      return `pmid:${identifier.value}`;
    case 'PMCID':
      return `pmcid:${identifier.value}`;
    case 'MAG':
      return `mag:${identifier.value}`;
    case 'ACL':
      return `acl:${identifier.value}`;
    case 'SS_ID':
      return identifier.value.startsWith('CorpusId:')
        ? `corpus:${identifier.value.slice('CorpusId:'.length)}`
        : `s2:${identifier.value}`;
  }
}
