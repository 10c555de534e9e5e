import { mapCslItem } from './csl-item.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';

/**
 * CSL-JSON (Zotero/citation-js/pandoc export): an array of items (streamed element by element), one
 * item a line, or a single item. Types follow the CSL vocabulary (`article-journal`,
 * `paper-conference`, `chapter`, `thesis`, `article` = preprint, …).
 */
export function mapCslJsonRecord(value: unknown): Mapped {
  if (Array.isArray(value)) return value.map((item) => mapCslItem(item, 'csl-json'));
  if (!isObject(value)) return 'record is not a JSON object';
  return mapCslItem(value, 'csl-json');
}

/** Reads CSL-JSON (see `mapCslJsonRecord`). */
export const readCslJson = jsonFormatReader(mapCslJsonRecord);
