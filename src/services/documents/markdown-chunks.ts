import type { ParsedChunk } from '../../ports/pdf-extractor.js';

/** Target and hard limit of a chunk's length, in characters (a few thousand: an LLM-sized read). */
const targetLength = 4000;
const maxLength = 6000;

/**
 * Cuts markdown (from a full-text source) into chunks the way PDF chunks are cut: at section
 * headings and paragraph bounds, never mid-word; an oversized paragraph is split between
 * sentences. Deterministic, so chunk numbers are stable for the same text.
 */
export function chunkMarkdown(markdown: string): ParsedChunk[] {
  const blocks = markdown
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((block) => block.trim())
    .filter((block) => block.length > 0)
    .flatMap((block) => (block.length > maxLength ? splitLongBlock(block) : [block]));
  const chunks: ParsedChunk[] = [];
  let current: string[] = [];
  let length = 0;
  const flush = () => {
    if (current.length > 0) chunks.push({ text: current.join('\n\n'), pages: [], figureIds: [] });
    current = [];
    length = 0;
  };
  for (const block of blocks) {
    const isHeading = /^#{1,6}\s/.test(block);
    // A heading starts a new chunk once the current one is reasonably full.
    if ((isHeading && length >= targetLength / 2) || length + block.length > targetLength) flush();
    current.push(block);
    length += block.length + 2;
  }
  flush();
  return chunks;
}

/** Splits a block longer than `maxLength` between sentences (or words, as a last resort). */
function splitLongBlock(block: string): string[] {
  const sentences = block.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [block];
  const parts: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current.length + sentence.length > targetLength && current.length > 0) {
      parts.push(current.trim());
      current = '';
    }
    if (sentence.length > maxLength) {
      for (const piece of splitWords(sentence)) parts.push(piece);
      continue;
    }
    current += sentence;
  }
  if (current.trim().length > 0) parts.push(current.trim());
  return parts;
}

function splitWords(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current.length + word.length + 1 > targetLength && current.length > 0) {
      parts.push(current);
      current = '';
    }
    current = current ? `${current} ${word}` : word;
  }
  if (current) parts.push(current);
  return parts;
}
