/** A short span of one chunk, sized for the embedding model. */
export interface Passage {
  /** 0-based index of the chunk the passage was cut from (passages never span chunks). */
  chunk: number;
  text: string;
}

export interface PassageSizes {
  /** A window closes once it holds this many tokens (it may stay shorter at a chunk's end). */
  targetTokens: number;
  /** Hard limit (the model's `maxTokens`); no passage is longer. */
  maxTokens: number;
  /** Sentences carried over from the end of one window into the next (context across the cut). */
  overlapSentences: number;
}

/**
 * Splits chunks into sentence windows: sentences are packed until `targetTokens`, the next window
 * repeats the last `overlapSentences` sentences, and a sentence longer than `maxTokens` is cut
 * between words. Headings, list items and paragraphs are sentence bounds; figure links are dropped
 * (they carry no text worth matching). `countTokens` is the model's own counter, so the limit holds
 * in the model's word pieces.
 */
export function splitPassages(
  chunks: readonly string[],
  sizes: PassageSizes,
  countTokens: (text: string) => number,
): Passage[] {
  const limit = Math.min(sizes.targetTokens, sizes.maxTokens);
  const passages: Passage[] = [];
  chunks.forEach((chunk, chunkIndex) => {
    const sentences = splitSentences(chunk).flatMap((sentence) =>
      cutLongSentence(sentence, countTokens(sentence), sizes.maxTokens, countTokens),
    );
    let window: Array<{ text: string; tokens: number }> = [];
    let fresh = 0; // sentences in the window that no earlier passage holds
    // Joining sentences with a space never merges word pieces; +1 per join keeps a margin anyway.
    const tokensOf = (items: typeof window) =>
      items.reduce((sum, item) => sum + item.tokens, 0) + Math.max(0, items.length - 1);
    const emit = () => {
      if (fresh > 0) passages.push({ chunk: chunkIndex, text: window.map((item) => item.text).join(' ') });
      window = sizes.overlapSentences > 0 ? window.slice(-sizes.overlapSentences) : [];
      fresh = 0;
    };
    for (const sentence of sentences) {
      while (window.length > 0 && tokensOf([...window, sentence]) > sizes.maxTokens) {
        if (fresh > 0) emit();
        else window.shift(); // only carried-over context left and no room: drop the oldest
      }
      window.push(sentence);
      fresh += 1;
      if (tokensOf(window) >= limit) emit();
    }
    if (fresh > 0) emit();
  });
  return passages;
}

/** Splits a sentence longer than `maxTokens` between words into pieces that fit. */
function cutLongSentence(
  text: string,
  tokens: number,
  maxTokens: number,
  countTokens: (text: string) => number,
): Array<{ text: string; tokens: number }> {
  if (tokens <= maxTokens) return [{ text, tokens }];
  const pieces: Array<{ text: string; tokens: number }> = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const word of text.split(/\s+/)) {
    // A single "word" longer than the limit (a DNA sequence, a URL) is cut by characters.
    const parts = countTokens(word) > maxTokens ? (word.match(/.{1,64}/gu) ?? [word]) : [word];
    for (const part of parts) {
      const partTokens = countTokens(part);
      if (current.length > 0 && currentTokens + partTokens > maxTokens) {
        pieces.push({ text: current.join(' '), tokens: countTokens(current.join(' ')) });
        current = [];
        currentTokens = 0;
      }
      current.push(part);
      currentTokens += partTokens;
    }
  }
  if (current.length > 0) pieces.push({ text: current.join(' '), tokens: countTokens(current.join(' ')) });
  return pieces;
}

// Abbreviations after which a period does not end a sentence (scientific prose).
const abbreviations = new Set(
  'al fig figs eq eqs ref refs e.g i.e vs cf approx ca no nos vol sec suppl dr prof st mr ms mrs etc resp incl'.split(
    ' ',
  ),
);

/**
 * Sentences of a markdown chunk. Blank lines, headings and list items always break; inside a
 * paragraph a break needs `.`, `!` or `?` followed by a capital, digit or bracket, and not after an
 * abbreviation or a single capital letter ("E. coli", "J. Smith").
 */
export function splitSentences(markdown: string): string[] {
  const blocks = markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .split(/\n\s*\n|\n(?=\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s))/)
    .map((block) =>
      block
        .replace(/^#{1,6}\s+/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((block) => block.length > 0);
  const sentences: string[] = [];
  for (const block of blocks) {
    let start = 0;
    for (const match of block.matchAll(/[.!?]["')\]]*\s+(?=["'([]?[A-Z0-9])/g)) {
      const end = (match.index ?? 0) + match[0].length;
      const before = block.slice(start, match.index ?? 0);
      const lastWord = before.split(/\s+/).at(-1) ?? '';
      if (abbreviations.has(lastWord.toLowerCase()) || /^[A-Z]$/.test(lastWord)) continue;
      sentences.push(block.slice(start, end).trim());
      start = end;
    }
    const rest = block.slice(start).trim();
    if (rest.length > 0) sentences.push(rest);
  }
  return sentences;
}
