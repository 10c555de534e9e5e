import type { FormatReader, IngestItem } from '../ingest-item.js';
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
  let macros = '';
  const records = (async function* () {
    for await (const entry of splitEntries(input, { isStart: (line) => entryStart.test(line) })) {
      const type = entryStart.exec(entry.text)?.[1]?.toLowerCase() ?? '';
      if (type === 'string') macros = `${macros}\n${entry.text}`.slice(-1024 * 1024);
      else if (!nonRecordTypes.has(type)) yield entry;
    }
  })();
  for await (const batch of batchEntries(records)) {
    yield* parseBatch<RawBibEntry>(
      batch,
      (text) => parseRawEntries(`${macros}\n${text}`, '@biblatex/text') as RawBibEntry[],
      mapEntry,
    );
  }
};

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
