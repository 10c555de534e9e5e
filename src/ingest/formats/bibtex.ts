import type { FormatReader, IngestItem } from '../ingest-item.js';
import { type MacroLengths, measureBibtex } from '../limits/bibtex-expansion.js';
import { inputLimits, tooLong } from '../limits/input-limits.js';
import { parseBatch, parseRawEntries, rawEntryToCsl } from './citation-parser.js';
import { mapCslItem } from './csl-item.js';
import { isObject } from './json-records.js';
import { latexToUnicode } from './latex-text.js';
import { cleanText } from './paper-builder.js';
import { batchEntries, splitEntries, type TextEntry } from './text-entries.js';

interface RawBibEntry {
  type: string;
  label: string;
  properties: Record<string, string>;
}

const entryStart = /^\s*@\s*([A-Za-z]+)\s*[{(]/;
const nonRecordTypes = new Set(['string', 'preamble', 'comment']);

/**
 * BibTeX/BibLaTeX, parsed by citation-js one bounded batch of entries at a time. Entries are split
 * at their `@type{` lines; `@string` macros are remembered and sent with every later batch (so
 * `journal = jmlr` resolves), `@comment`/`@preamble` are skipped. arXiv ids come from
 * `eprint` + `archivePrefix`/`eprinttype`, and `@misc`/`@unpublished` arXiv entries are preprints.
 */
export const readBibtex: FormatReader = async function* (input) {
  const macros = new MacroBudget();
  const refused: IngestItem[] = [];
  const records = (async function* () {
    for await (const entry of splitEntries(input, { isStart: (line) => entryStart.test(line) })) {
      if (entry.refused !== undefined) {
        refused.push({ ok: false, reason: entry.refused, location: `line ${entry.line}` });
        continue;
      }
      const type = entryStart.exec(entry.text)?.[1]?.toLowerCase() ?? '';
      const reason =
        type === 'string'
          ? macros.define(entry.text)
          : nonRecordTypes.has(type)
            ? null
            : macros.entryOverLimits(entry.text);
      if (reason) refused.push({ ok: false, reason, location: `line ${entry.line}` });
      else if (!nonRecordTypes.has(type)) yield entry;
    }
  })();
  for await (const batch of batchEntries(records)) {
    yield* refused.splice(0);
    yield* parseBatch<RawBibEntry>(
      batch,
      (text) => parseRawEntries(`${macros.text}\n${text}`, '@biblatex/text') as RawBibEntry[],
      mapEntry,
    );
  }
  yield* refused.splice(0);
};

/** Most text of `@string` definitions kept to resend with every batch. */
const maxMacroText = 1024 * 1024;

/**
 * The `@string` macros of one input, measured before citation-js sees them (it expands macros while
 * parsing, and they are resent with every batch). A macro whose value expands past `fieldChars`, or
 * that takes all macros past `ingestMacroChars` (expanded) or 1 MiB (as text), is refused and never
 * passed on; it stays measured as unbounded, so the entries using it are refused too rather than
 * read with an empty field.
 */
class MacroBudget {
  /** The accepted definitions, sent before every batch. */
  text = '';
  private readonly lengths: MacroLengths = new Map();
  private expanded = 0;

  /** Accepts one `@string` entry; returns why it is refused, or null. */
  define(entry: string): string | null {
    const { largest, total, defined } = measureBibtex(entry, this.lengths);
    if (!largest) return null;
    const reason =
      largest.length > inputLimits.fieldChars
        ? tooLong(`${largest.where} once expanded`, largest.length, inputLimits.fieldChars)
        : this.expanded + total > inputLimits.ingestMacroChars
          ? tooLong('the @string macros once expanded', this.expanded + total, inputLimits.ingestMacroChars)
          : this.text.length + entry.length > maxMacroText
            ? tooLong('the text of the @string macros', this.text.length + entry.length, maxMacroText)
            : null;
    if (reason) {
      for (const name of defined) this.lengths.set(name, Number.POSITIVE_INFINITY);
      return reason;
    }
    this.expanded += total;
    this.text = `${this.text}\n${entry}`;
    return null;
  }

  /**
   * Why an entry is refused before parsing (a field that expands past `fieldChars`, or the entry as
   * a whole past `recordChars`), or null.
   */
  entryOverLimits(entry: string): string | null {
    const { largest, total } = measureBibtex(entry, this.lengths);
    if (largest && largest.length > inputLimits.fieldChars) {
      return tooLong(`the ${largest.where} once expanded`, largest.length, inputLimits.fieldChars);
    }
    return total > inputLimits.recordChars
      ? tooLong('the entry once expanded', total, inputLimits.recordChars)
      : null;
  }
}

function mapEntry(raw: RawBibEntry, entry: TextEntry): IngestItem {
  const location = `line ${entry.line}`;
  const item = rawEntryToCsl(raw, '@biblatex/entries+list');
  const properties = isObject(raw.properties) ? raw.properties : {};
  const archive = (
    cleanText(properties.archiveprefix) ??
    cleanText(properties.eprinttype) ??
    ''
  ).toLowerCase();
  const arxiv = archive === 'arxiv' ? cleanText(properties.eprint) : null;
  const journal = cleanText(properties.journal) ?? cleanText(properties.journaltitle);
  const paper = mapCslItem(item, 'bibtex', (draft) => {
    // An @article with both fields (Semantic Scholar writes booktitle too): the journal is the venue.
    if (raw.type.toLowerCase() === 'article' && journal) draft.venue = latexToUnicode(journal);
    if (arxiv) {
      draft.identifiers = { ...draft.identifiers, arxiv };
      draft.url ??= `https://arxiv.org/abs/${arxiv}`;
      draft.pdf_url ??= `https://arxiv.org/pdf/${arxiv}`;
    }
    const preprintVenue = /arxiv|biorxiv|medrxiv|ssrn|preprint/i.test(draft.venue ?? '');
    if (
      (arxiv && (draft.type === 'other' || draft.type === 'preprint')) ||
      (draft.type === 'journal-article' && preprintVenue)
    ) {
      draft.type = 'preprint';
    }
    draft.identifiers = { ...draft.identifiers, pmid: draft.identifiers?.pmid ?? cleanText(properties.pmid) };
  });
  return typeof paper === 'string'
    ? { ok: false, reason: `${raw.label}: ${paper}`, location }
    : { ok: true, paper, location };
}
