import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCitationContexts } from '../../src/bibliography/citation-markers.js';
import { surnameOf } from '../../src/bibliography/reference-fields.js';
import {
  parseReferenceList,
  type ReferenceEntry,
  type ReferenceList,
} from '../../src/bibliography/references.js';
import type { ParsedChunk } from '../../src/ports/pdf-extractor.js';

/**
 * Citation-context accuracy against test/fixtures/citation-contexts.json: sentences read from the
 * shared PDFs' text (pdftotext) with the reference each cites, checked by hand. An item is right
 * when a context of that reference holds the sentence; an item whose `reference` is null (a list
 * marker or equation number that looks like a citation) is right when no context holds it.
 */
export interface ContextItem {
  file: string;
  /** A distinctive part of the citing sentence, as printed. */
  sentence: string;
  /** "12" (numbered list), "Ada93" (labelled), "Devlin 2019" (author–year: first surname, year), or null. */
  reference: string | null;
}

const fixture = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'citation-contexts.json');

export function loadContextItems(): ContextItem[] {
  return (JSON.parse(readFileSync(fixture, 'utf8')) as { items: ContextItem[] }).items;
}

const squash = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether `entry` is the one the fixture names. */
export function namesEntry(entry: ReferenceEntry, reference: string): boolean {
  if (/^\d+$/.test(reference)) return entry.number === Number(reference);
  const authorYear = /^(.+)\s(\d{4}[a-z]?)$/.exec(reference);
  if (authorYear && entry.label === null) {
    const surname = entry.authors[0] ? surnameOf(entry.authors[0]) : null;
    return (
      surname !== null && squash(surname) === squash(authorYear[1] ?? '') && entry.yearLabel === authorYear[2]
    );
  }
  return entry.label === reference;
}

/** Scores the items over chunks the caller parsed (file → chunks). */
export function scoreContextItems(
  items: readonly ContextItem[],
  chunksOf: (file: string) => ParsedChunk[],
): { right: number; total: number; accuracy: number; misses: string[] } {
  const analysed = new Map<
    string,
    { list: ReferenceList | null; contexts: ReturnType<typeof findCitationContexts> }
  >();
  let right = 0;
  const misses: string[] = [];
  for (const item of items) {
    let analysis = analysed.get(item.file);
    if (!analysis) {
      const chunks = chunksOf(item.file);
      const list = parseReferenceList(chunks);
      analysis = { list, contexts: list ? findCitationContexts(chunks, list) : [] };
      analysed.set(item.file, analysis);
    }
    const { list, contexts } = analysis;
    const holding = contexts.filter((context) => squash(context.sentence).includes(squash(item.sentence)));
    const ok =
      item.reference === null
        ? holding.length === 0
        : holding.some((context) => {
            const entry = list?.entries[context.entry];
            return entry !== undefined && namesEntry(entry, item.reference ?? '');
          });
    if (ok) right++;
    else misses.push(`${item.file}: "${item.sentence.slice(0, 60)}" → ${item.reference ?? 'no citation'}`);
  }
  return { right, total: items.length, accuracy: items.length === 0 ? 0 : right / items.length, misses };
}
