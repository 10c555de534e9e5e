import type { CslItem } from '@citation-js/core';
import { AppError, invalid } from '../../domain/errors.js';
import type { Paper } from '../../domain/paper.js';
import { inputLimits } from '../../ingest/limits/input-limits.js';
import { recordLimitViolation } from '../../ingest/limits/record-limits.js';
import { assertReferenceFileWithinLimits } from '../../ingest/limits/reference-file-limits.js';
import { citationPlugins } from '../../platform/citation-js.js';
import { bibtexEntry } from './bibtex-writer.js';
import { citationKey, cslToPaper, paperToCsl } from './csl-mapping.js';
import { risRecordTags, withRisTags } from './ris-tags.js';
import { risRecord } from './ris-writer.js';

/**
 * BibTeX, RIS and CSL-JSON read through citation-js 0.8 (synchronous parsers only: `Cite.async` and the
 * DOI plugin fetch over the network, so they are never used). Every parse names its input type
 * (`forceType`), so no text is ever guessed to be a URL and fetched.
 */

export const citationFormats = ['bibtex', 'ris', 'csl'] as const;
export type CitationFormat = (typeof citationFormats)[number];

export const contentTypeOfFormat: Record<CitationFormat, string> = {
  bibtex: 'application/x-bibtex; charset=utf-8',
  ris: 'application/x-research-info-systems; charset=utf-8',
  csl: 'application/vnd.citationstyles.csl+json; charset=utf-8',
};

export const extensionOfFormat: Record<CitationFormat, string> = { bibtex: 'bib', ris: 'ris', csl: 'json' };

/** Largest number of entries one import accepts. */
export const maxImportEntries = inputLimits.importEntries;

/** CSL-JSON items with unique citation keys (a, b, … appended to repeats). */
export function toCslItems(papers: Paper[]): CslItem[] {
  const used = new Map<string, number>();
  return papers.map((paper) => {
    const base = citationKey(paper);
    const seen = used.get(base) ?? 0;
    used.set(base, seen + 1);
    const key =
      seen === 0 ? base : `${base}${String.fromCharCode(96 + Math.min(seen, 26))}${seen > 26 ? seen : ''}`;
    return paperToCsl(paper, key);
  });
}

/**
 * The papers as a BibTeX, RIS or CSL-JSON document. BibTeX and RIS are written from the CSL-JSON
 * items by our own writers (see `bibtex-writer.ts`, `ris-writer.ts`); `and others` goes out in
 * BibTeX only (it has no form in RIS or CSL-JSON, where the list simply ends).
 */
export function formatPapers(papers: Paper[], format: CitationFormat): string {
  const items = toCslItems(papers);
  if (format === 'csl') return `${JSON.stringify(items, null, 2)}\n`;
  if (format === 'ris') return items.map(risRecord).join('');
  return items
    .map((item, index) => bibtexEntry(item, papers[index]?.bibliographic?.more_authors === true))
    .join('\n');
}

/** The format of a reference file, from its first meaningful characters. */
export function detectFormat(text: string): CitationFormat | null {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[') || start.startsWith('{')) return 'csl';
  if (/^TY {2}- /m.test(start)) return 'ris';
  if (/@[A-Za-z]+\s*[{(]/.test(start)) return 'bibtex';
  return null;
}

export interface ParsedReferences {
  papers: Paper[];
  /** Entries that could not become a paper (no title), by position in the file (from 0). */
  skipped: Array<{ index: number; reason: string }>;
}

interface BiblatexEntry {
  type: string;
  label: string;
  properties: Record<string, unknown>;
}

function chain(input: unknown, forceType: string, target?: string): unknown {
  try {
    return citationPlugins().input.chain(input, {
      forceType,
      generateGraph: false,
      ...(target ? { target } : {}),
    });
  } catch (error) {
    // An empty result (a file of @comment only) cannot be typed by citation-js: it is "no entries".
    if (target && /parsing iterations/.test((error as Error).message)) return [];
    throw new AppError('unprocessable', `The file could not be parsed: ${(error as Error).message}`, {
      param: 'file',
      cause: error,
    });
  }
}

/** What CSL has no variable for: the arXiv `eprint` and its `primaryclass`. */
interface EntryExtra {
  arxiv: string | null;
  arxivClass?: string | null;
}

function arxivOfEntry(entry: BiblatexEntry): EntryExtra {
  const { eprint, archiveprefix, eprinttype, primaryclass, eprintclass } = entry.properties;
  const kind = String(archiveprefix ?? eprinttype ?? '').toLowerCase();
  if (kind !== 'arxiv' || typeof eprint !== 'string') return { arxiv: null };
  const arxivClass = primaryclass ?? eprintclass;
  return { arxiv: eprint, arxivClass: typeof arxivClass === 'string' ? arxivClass : null };
}

function parseBibtex(text: string): Array<{ item: CslItem; extra: EntryExtra }> {
  // With no entry the parser yields [], which citation-js then cannot type; answer "no entries".
  if (!/@[A-Za-z]+\s*[{(]/.test(text)) return [];
  const entries = chain(text, '@biblatex/text', '@biblatex/entries+list');
  if (!Array.isArray(entries)) return [];
  const list = entries as BiblatexEntry[];
  const items = chain(list, '@biblatex/entries+list') as CslItem[];
  // The converter maps entries one to one, in order; the raw entry still gives `eprint`.
  if (items.length === list.length) {
    return items.map((item, index) => ({ item, extra: arxivOfEntry(list[index] as BiblatexEntry) }));
  }
  return list.map((entry) => {
    const one = chain([entry], '@biblatex/entries+list') as CslItem[];
    return { item: one[0] ?? {}, extra: arxivOfEntry(entry) };
  });
}

function parseRis(text: string): CslItem[] {
  const items = chain(text, '@ris/file') as CslItem[];
  // citation-js reads one item per record, in order; the tags fill what it left out.
  const tags = risRecordTags(text);
  return tags.length === items.length ? items.map((item, index) => withRisTags(item, tags[index])) : items;
}

function parseCslJson(text: string): CslItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('unprocessable', `The CSL-JSON file is not valid JSON: ${(error as Error).message}`, {
      param: 'file',
    });
  }
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return {};
    const record = item as CslItem;
    const authors = Array.isArray(record.author)
      ? record.author.filter((name) => typeof name === 'object' && name !== null)
      : [];
    return { ...record, author: authors };
  });
}

/**
 * Reads a BibTeX, RIS or CSL-JSON file into paper records. `format` is detected when omitted. A file
 * that has no entry at all, or cannot be parsed, is a 422. A file over the input limits (macros that
 * expand too far, JSON nested too deep, an entry too large to store) is refused before anything is
 * filed: 413, or 422 for the nesting, naming `file`.
 */
export function parseReferences(text: string, format?: CitationFormat): ParsedReferences {
  const kind = format ?? detectFormat(text);
  if (!kind) {
    throw invalid(
      'format',
      'Could not tell the file format: send BibTeX (@article{…}), RIS (TY  - …) or CSL-JSON, or set format=bibtex|ris|csl',
    );
  }
  assertReferenceFileWithinLimits(text, kind);
  const parsed =
    kind === 'bibtex'
      ? parseBibtex(text)
      : (kind === 'ris' ? parseRis(text) : parseCslJson(text)).map((item) => ({
          item,
          extra: { arxiv: null },
        }));
  if (parsed.length === 0) {
    throw new AppError(
      'unprocessable',
      `No ${kind === 'csl' ? 'CSL-JSON' : kind.toUpperCase()} entries found`,
      {
        param: 'file',
      },
    );
  }
  if (parsed.length > maxImportEntries) {
    throw new AppError(
      'payload_too_large',
      `At most ${maxImportEntries} entries per import (got ${parsed.length})`,
      {
        param: 'file',
      },
    );
  }
  const papers: Paper[] = [];
  const skipped: ParsedReferences['skipped'] = [];
  parsed.forEach(({ item, extra }, index) => {
    const paper = cslToPaper(item, extra);
    const violation = paper ? recordLimitViolation(paper) : null;
    if (violation) {
      throw new AppError('payload_too_large', `Entry ${index + 1} is too large to store: ${violation}`, {
        param: 'file',
      });
    }
    if (paper) papers.push(paper);
    else skipped.push({ index, reason: 'entry has no title' });
  });
  return { papers, skipped };
}
