import { mapCslItem } from './csl-item.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';

/**
 * Crossref works: a REST response (`{status, message-type: "work", message}` or `work-list` with
 * `message.items`), a bare `message` object (one per line in JSONL, or the Crossref public data file
 * `{items: […]}`), in any of the JSON layouts `readJsonRecords` accepts.
 */
export function mapCrossrefRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  const message = isObject(value.message) ? value.message : value;
  if (Array.isArray(message.items)) return message.items.map((item) => mapCrossrefWork(item));
  return mapCrossrefWork(message);
}

function mapCrossrefWork(work: unknown): ReturnType<typeof mapCslItem> {
  if (isObject(work) && typeof work.DOI !== 'string') return 'Crossref work has no DOI';
  return mapCslItem(work, 'crossref');
}

/** Reads Crossref works (see `mapCrossrefRecord`). */
export const readCrossref = jsonFormatReader(mapCrossrefRecord);
