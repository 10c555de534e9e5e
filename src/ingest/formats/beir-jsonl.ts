import { isObject, jsonFormatReader, type Mapped } from './json-records.js';
import { buildPaper, cleanText } from './paper-builder.js';

/**
 * A BEIR corpus (`corpus.jsonl`: `{_id, title, text, metadata?}`), e.g. SciFact. BEIR documents are
 * abstracts; SciFact's `_id` is the S2ORC corpus id, so a numeric `_id` is kept as
 * `identifiers.corpus_id` (which is how evaluation maps hits back to qrels).
 */
export function mapBeirRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  const id = cleanText(value._id);
  if (!id) return 'BEIR record has no _id';
  if (!cleanText(value.title) && !cleanText(value.text))
    return `BEIR record ${id} has neither title nor text`;
  const metadata = isObject(value.metadata) ? value.metadata : {};
  return buildPaper(
    {
      title: cleanText(value.title) ?? '',
      abstract: cleanText(value.text),
      url: cleanText(metadata.url),
      identifiers: {
        corpus_id: /^\d+$/.test(id) ? id : null,
        doi: cleanText(metadata.doi),
        pmid: cleanText(metadata.pubmed_id),
      },
      type: 'other',
    },
    { source: 'beir', allowUntitled: true },
  );
}

/** Reads a BEIR corpus JSONL (see `mapBeirRecord`). */
export const readBeirJsonl = jsonFormatReader(mapBeirRecord);
