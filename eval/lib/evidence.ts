/**
 * The containment rule of the PDF question evaluation: a chunk "contains" a gold passage when at
 * least `threshold` (default 80%) of the passage's word trigrams occur in the chunk, both texts
 * normalised (NFKC, lower case, runs of letters/digits only). PDF text differs from a curated key
 * passage in hyphenation, ligatures, Greek letters and figure references, so exact substring
 * matching would miss true hits; 80% of trigrams still pins the passage to one chunk (on the shared
 * PDFs the best chunk holds 90–100% and the runner-up at most 31%).
 */
export function containsPassage(chunk: string, passage: string, threshold = 0.8): boolean {
  return trigramCoverage(chunk, passage) >= threshold;
}

/** Share of the passage's word trigrams found in `text` (1 for a passage shorter than 3 words found whole). */
export function trigramCoverage(text: string, passage: string): number {
  const words = normalizedWords(passage);
  const haystack = ` ${normalizedWords(text).join(' ')} `;
  if (words.length < 3) return haystack.includes(` ${words.join(' ')} `) ? 1 : 0;
  let found = 0;
  for (let index = 0; index + 3 <= words.length; index += 1) {
    if (haystack.includes(` ${words.slice(index, index + 3).join(' ')} `)) found += 1;
  }
  return found / (words.length - 2);
}

export function normalizedWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}
