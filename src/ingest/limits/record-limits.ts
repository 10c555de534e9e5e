import type { Paper } from '../../domain/paper.js';
import { inputLimits, tooLong } from './input-limits.js';

/**
 * Why a paper record is too large to store, or null when it fits the limits. Checked on every record
 * an import or an ingest is about to store, whatever its format, so no reader can let a giant
 * field through (a macro expansion, a JSON line of one endless string).
 */
export function recordLimitViolation(paper: Paper): string | null {
  if (paper.title.length > inputLimits.titleChars) {
    return tooLong('title', paper.title.length, inputLimits.titleChars);
  }
  if (paper.abstract && paper.abstract.length > inputLimits.abstractChars) {
    return tooLong('abstract', paper.abstract.length, inputLimits.abstractChars);
  }
  if (paper.authors.length > inputLimits.authors) {
    return `record has ${paper.authors.length} authors (at most ${inputLimits.authors})`;
  }
  const fields = shortFields(paper);
  const long = fields.find(([, value]) => value.length > inputLimits.shortFieldChars);
  if (long) return tooLong(long[0], long[1].length, inputLimits.shortFieldChars);
  // Summed rather than serialised: this runs on every ingested record.
  let size = paper.title.length + (paper.abstract?.length ?? 0);
  for (const [, value] of fields) size += value.length;
  return size > inputLimits.recordChars ? tooLong('record', size, inputLimits.recordChars) : null;
}

/** Every text field of a record but the title and abstract, named for messages. */
function shortFields(paper: Paper): Array<[string, string]> {
  const fields: Array<[string, string | null | undefined]> = [
    ...paper.authors.map((name): [string, string] => ['an author name', name]),
    ...(paper.assignees ?? []).map((name): [string, string] => ['an assignee name', name]),
    ['venue', paper.venue],
    ['url', paper.url],
    ['pdf_url', paper.pdf_url],
    ['publication_date', paper.publication_date],
    ['doi', paper.doi],
    ['ss_id', paper.ss_id],
    ['type', paper.type],
    ['patent_number', paper.patent_number],
    ['kind', paper.kind],
    ['filing_date', paper.filing_date],
    ...Object.entries(paper.identifiers ?? {}).map(([key, value]): [string, string | null | undefined] => [
      `identifier ${key}`,
      value,
    ]),
  ];
  return fields.filter((field): field is [string, string] => typeof field[1] === 'string');
}
