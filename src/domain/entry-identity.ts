/**
 * When a paper filed in a project is the same as an entry already there (decision record 0014).
 * Keys are `identityKeys()` strings: `<scheme>:<value>`, with the title key (`title:…|<year>`) last.
 */

/** What a project entry, or a paper about to be filed, is known by. */
export interface EntryIdentity {
  /** The stored document (PDF) of the entry, or of the paper being filed; null when metadata only. */
  documentId: string | null;
  identityKeys: readonly string[];
}

/** Why two records are the same entry, strongest first. */
export type EntryMatch = 'document' | 'identifier' | 'title';

/** How strongly each kind of match binds: a lower rank wins when several entries match. */
export const entryMatchRank: Record<EntryMatch, number> = { document: 0, identifier: 1, title: 2 };

export const isTitleKey = (key: string): boolean => key.startsWith('title:');

const schemeOf = (key: string): string => key.slice(0, key.indexOf(':'));

/**
 * Whether `incoming` is the paper of entry `existing`:
 * - the same document (same bytes) always is;
 * - a shared strong identifier (DOI, arXiv, PMID, …) is;
 * - a shared title and year only when nothing tells them apart: not two different documents (two
 *   one-page "Supplementary Material" PDFs are two entries), and no identifier scheme both carry with
 *   different values (DOI a vs DOI b). So a metadata-only record (a BibTeX import) and a PDF with its
 *   title complete each other, but a title never makes one PDF take another's place.
 */
export function matchEntry(existing: EntryIdentity, incoming: EntryIdentity): EntryMatch | null {
  if (incoming.documentId !== null && existing.documentId === incoming.documentId) return 'document';
  const existingKeys = new Set(existing.identityKeys);
  const shared = incoming.identityKeys.filter((key) => existingKeys.has(key));
  if (shared.some((key) => !isTitleKey(key))) return 'identifier';
  if (shared.length === 0) return null;
  const differentDocuments =
    existing.documentId !== null &&
    incoming.documentId !== null &&
    existing.documentId !== incoming.documentId;
  if (differentDocuments) return null;
  const existingSchemes = new Set(existing.identityKeys.filter((key) => !isTitleKey(key)).map(schemeOf));
  const conflicting = incoming.identityKeys.some(
    (key) => !isTitleKey(key) && existingSchemes.has(schemeOf(key)) && !existingKeys.has(key),
  );
  return conflicting ? null : 'title';
}
