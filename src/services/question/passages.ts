import { LoopTurns } from '../../platform/loop-turns.js';
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
  /**
   * Section headings close windows and are put in front of their section's passages (default
   * true); false treats a heading as one more sentence.
   */
  sectionContext?: boolean;
}

/**
 * Splits chunks into sentence windows: sentences are packed until `targetTokens`, the next window
 * repeats the last `overlapSentences` sentences, and a sentence longer than the limit is cut between
 * words. A section heading (markdown `#`, or a short unpunctuated paragraph before a long one, as
 * run-in headings come out of PDFs) closes the window, and the heading of the current section is
 * put in front of each of its passages (`Heading\nsentences…`), so a passage keeps its context.
 * Figure links are dropped. `countTokens` is the model's own counter, so the limit holds in the
 * model's word pieces, heading included.
 */
export function splitPassages(
  chunks: readonly string[],
  sizes: PassageSizes,
  countTokens: (text: string) => number,
): Passage[] {
  return [...passagesByChunk(chunks, sizes, countTokens)].flat();
}

/**
 * `splitPassages` in slices, giving the event loop a turn every ~10 ms (`LoopTurns`): a document
 * of thousands of chunks is split without holding up other requests (decision 0042).
 */
export async function splitPassagesYielding(
  chunks: readonly string[],
  sizes: PassageSizes,
  countTokens: (text: string) => number,
  turns: LoopTurns = new LoopTurns(),
): Promise<Passage[]> {
  const passages: Passage[] = [];
  for (const ofChunk of passagesByChunk(chunks, sizes, countTokens)) {
    passages.push(...ofChunk);
    await turns.due();
  }
  return passages;
}

/** The passages of each chunk in turn (a heading carries over from one chunk into the next). */
function* passagesByChunk(
  chunks: readonly string[],
  sizes: PassageSizes,
  countTokens: (text: string) => number,
): Generator<Passage[]> {
  // The section heading in force: it carries over into the next chunk until a new heading comes.
  let heading: Sentence | undefined;
  let headingClosed = true; // a body sentence followed the heading: the next heading replaces it
  for (const [chunkIndex, chunk] of chunks.entries()) {
    const passages: Passage[] = [];
    let window: Sentence[] = [];
    let fresh = 0; // sentences in the window that no earlier passage holds
    const emit = () => {
      if (fresh > 0) {
        const body = window.map((item) => item.text).join(' ');
        passages.push({ chunk: chunkIndex, text: heading ? `${heading.text}\n${body}` : body });
      }
      window = sizes.overlapSentences > 0 ? window.slice(-sizes.overlapSentences) : [];
      fresh = 0;
    };
    for (const unit of sentenceUnits(chunk)) {
      if (unit.heading && sizes.sectionContext !== false) {
        if (fresh > 0) emit();
        window = [];
        const text = heading && !headingClosed ? `${heading.text} — ${unit.text}` : unit.text;
        const tokens = countTokens(text);
        // A heading longer than a quarter of the limit would crowd out the text: it becomes a sentence.
        heading = tokens <= sizes.maxTokens / 4 ? { text, tokens } : undefined;
        headingClosed = false;
        if (heading) continue;
      }
      headingClosed = true;
      // Joining with a space or newline never merges word pieces; +1 per join keeps a margin anyway.
      const budget = sizes.maxTokens - (heading ? heading.tokens + 1 : 0);
      const limit = Math.min(sizes.targetTokens, budget);
      for (const sentence of cutLongSentence(unit.text, countTokens(unit.text), budget, countTokens)) {
        while (window.length > 0 && tokensOf([...window, sentence]) > budget) {
          if (fresh > 0) emit();
          else window.shift(); // only carried-over context left and no room: drop the oldest
        }
        window.push(sentence);
        fresh += 1;
        if (tokensOf(window) >= limit) emit();
      }
    }
    if (fresh > 0) emit();
    yield passages;
  }
}

interface Sentence {
  text: string;
  tokens: number;
}

function tokensOf(items: readonly Sentence[]): number {
  return items.reduce((sum, item) => sum + item.tokens, 0) + Math.max(0, items.length - 1);
}

/** Splits a sentence longer than `maxTokens` between words into pieces that fit. */
function cutLongSentence(
  text: string,
  tokens: number,
  maxTokens: number,
  countTokens: (text: string) => number,
): Sentence[] {
  if (tokens <= maxTokens) return [{ text, tokens }];
  const pieces: Sentence[] = [];
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

/** Sentences of a markdown chunk, as text (see `sentenceUnits`). */
export function splitSentences(markdown: string): string[] {
  return sentenceUnits(markdown).map((unit) => unit.text);
}

/**
 * Sentences of a markdown chunk, headings marked. Blank lines, headings and list items always
 * break; inside a paragraph a break needs `.`, `!` or `?` followed by a capital, digit or bracket,
 * and not after an abbreviation or a single capital letter ("E. coli", "J. Smith"). A paragraph of
 * at most 20 words with no final punctuation, followed by a paragraph of 20 words or more, counts as
 * a heading (PDF run-in headings are rarely marked).
 */
export function sentenceUnits(markdown: string): Array<{ text: string; heading: boolean }> {
  const blocks = markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .split(/\n\s*\n|\n(?=\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s))/)
    .map((block) => ({
      marked: /^\s*#{1,6}\s/.test(block),
      text: block
        .replace(/^\s*#{1,6}\s+/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    }))
    .filter((block) => block.text.length > 0);
  const units: Array<{ text: string; heading: boolean }> = [];
  blocks.forEach((block, index) => {
    const next = blocks[index + 1];
    const words = block.text.split(' ').length;
    const runIn =
      !block.marked &&
      words <= 20 &&
      /^[\p{Lu}\d]/u.test(block.text) &&
      !/[.!?:;,]$/.test(block.text) &&
      !/^[-*+]\s/.test(block.text) &&
      next !== undefined &&
      !next.marked &&
      next.text.split(' ').length >= 20;
    if (block.marked || runIn) {
      units.push({ text: block.text, heading: true });
      return;
    }
    let start = 0;
    for (const match of block.text.matchAll(/[.!?]["')\]]*\s+(?=["'([]?[A-Z0-9])/g)) {
      const end = (match.index ?? 0) + match[0].length;
      const lastWord =
        block.text
          .slice(start, match.index ?? 0)
          .split(/\s+/)
          .at(-1) ?? '';
      if (abbreviations.has(lastWord.toLowerCase()) || /^[A-Z]$/.test(lastWord)) continue;
      units.push({ text: block.text.slice(start, end).trim(), heading: false });
      start = end;
    }
    const rest = block.text.slice(start).trim();
    if (rest.length > 0) units.push({ text: rest, heading: false });
  });
  return units;
}
