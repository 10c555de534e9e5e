import type { PaperType } from '../../domain/paper.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';
import { latexToUnicode } from './latex-text.js';
import { buildPaper, cleanText } from './paper-builder.js';

/**
 * The arXiv metadata snapshot (Kaggle `arxiv-metadata-oai-snapshot.json`, one JSON object a line):
 * `{id, submitter, authors, title, comments, journal-ref, doi, report-no, categories, license,
 * abstract, versions[{version, created}], update_date, authors_parsed[[last, first, suffix]]}`.
 * A preprint unless a journal reference or DOI says it was published. The date is that of v1.
 */
export function mapArxivRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  const id = cleanText(value.id);
  if (!id) return 'arXiv record has no id';
  const journalRef = cleanText(value['journal-ref']);
  const doi = cleanText(value.doi);
  return buildPaper(
    {
      title: latexToUnicode(cleanText(value.title) ?? ''),
      authors: authorsOf(value),
      abstract: cleanText(value.abstract),
      publication_date: firstVersionDate(value.versions) ?? cleanText(value.update_date),
      venue: journalRef ? latexToUnicode(journalRef) : 'arXiv',
      type: publishedType(journalRef, doi),
      url: `https://arxiv.org/abs/${id}`,
      pdf_url: `https://arxiv.org/pdf/${id}`,
      identifiers: { arxiv: id, doi: doi?.split(/\s+/)[0] },
    },
    { source: 'arxiv' },
  );
}

/** `authors_parsed` (`[last, first, suffix]`) when present, else the comma/`and` separated `authors`. */
function authorsOf(record: Record<string, unknown>): string[] {
  const parsed = record.authors_parsed;
  if (Array.isArray(parsed) && parsed.length > 0) {
    return parsed
      .filter((parts): parts is unknown[] => Array.isArray(parts))
      .map((parts) =>
        latexToUnicode(
          [parts[1], parts[0], parts[2]]
            .map((part) => cleanText(part) ?? '')
            .join(' ')
            .trim(),
        ),
      );
  }
  const text = cleanText(record.authors);
  if (!text) return [];
  return latexToUnicode(text.replace(/\([^)]*\)/g, ''))
    .split(/,\s*|\s+and\s+/)
    .map((name) => name.trim())
    .filter(Boolean);
}

/** `Mon, 2 Apr 2007 19:18:42 GMT` of the first version → `2007-04-02`. */
function firstVersionDate(versions: unknown): string | null {
  if (!Array.isArray(versions) || versions.length === 0) return null;
  const first = versions[0];
  const created = isObject(first) ? cleanText(first.created) : null;
  const time = created ? Date.parse(created) : Number.NaN;
  return Number.isNaN(time) ? null : new Date(time).toISOString().slice(0, 10);
}

function publishedType(journalRef: string | null, doi: string | null): PaperType {
  if (journalRef && /\b(proc(eedings|\.)?|conference|conf\.|workshop|symposium)\b/i.test(journalRef))
    return 'conference-paper';
  return journalRef || doi ? 'journal-article' : 'preprint';
}

/** Reads the arXiv metadata snapshot (see `mapArxivRecord`). */
export const readArxivSnapshot = jsonFormatReader(mapArxivRecord);
