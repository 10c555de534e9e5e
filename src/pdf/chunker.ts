import type { ChunkLine, ParsedChunk } from '../ports/pdf-extractor.js';
import { letterKey } from '../text/letter-stream.js';
import type { TextBlock } from './layout-types.js';
import { pieceLines } from './line-anchors.js';

export interface ChunkSizes {
  /** A chunk is closed at the first block boundary after it reaches this many characters. */
  targetChars: number;
  /** No chunk is longer than this; longer paragraphs are cut between sentences. */
  maxChars: number;
}

export const defaultChunkSizes: ChunkSizes = { targetChars: 3000, maxChars: 6000 };

interface Piece {
  text: string;
  block: number;
  heading: boolean;
  /** The piece's letters `[from, to)` in its block's letter stream (see `line-anchors.ts`). */
  from: number;
  to: number;
}

/**
 * Cuts the blocks of a document into chunks of a few thousand characters, at heading and
 * paragraph bounds (a heading never ends a chunk; a new section starts a new chunk once the current
 * one is half full). A paragraph longer than the target is cut between sentences, and a sentence
 * longer than the maximum between words, so no chunk ever ends inside a word. The result depends
 * only on the blocks, so the same PDF always gives the same chunks.
 */
export function buildChunks(
  blocks: TextBlock[],
  figureBlocks: Array<{ id: string; block: number }>,
  sizes: ChunkSizes = defaultChunkSizes,
): ParsedChunk[] {
  const pieces = blocks.flatMap((block, index) => toPieces(block, index, sizes));
  const groups: Piece[][] = [];
  let current: Piece[] = [];
  let length = 0;
  const flush = () => {
    // Keep trailing headings with the text they introduce.
    const carried: Piece[] = [];
    while (current.length > 1 && current[current.length - 1]?.heading)
      carried.unshift(current.pop() as Piece);
    groups.push(current);
    current = carried;
    length = lengthOf(carried);
  };
  for (const piece of pieces) {
    const added = piece.text.length + (current.length > 0 ? 2 : 0);
    // A block that starts in lower case continues a sentence (after an equation or a float):
    // keep it with what precedes while the maximum allows.
    const continues = /^\p{Ll}/u.test(piece.text) && length + added <= sizes.maxChars;
    if (
      current.length > 0 &&
      (length + added > sizes.maxChars ||
        (length >= sizes.targetChars && !continues) ||
        (piece.heading && length >= sizes.targetChars / 2))
    ) {
      flush();
    }
    current.push(piece);
    length += piece.text.length + (current.length > 1 ? 2 : 0);
  }
  if (current.length > 0) {
    const last = groups[groups.length - 1];
    // A short tail joins the previous chunk when both fit, unless it starts a section of its own.
    const ownSection = current[0]?.heading === true;
    if (
      last &&
      !ownSection &&
      length < sizes.targetChars / 4 &&
      lengthOf(last) + 2 + length <= sizes.maxChars
    ) {
      last.push(...current);
    } else groups.push(current);
  }

  return groups.map((group) => {
    const blockIndexes = new Set(group.map((piece) => piece.block));
    const pages = new Set<number>();
    for (const index of blockIndexes) for (const page of blocks[index]?.pages ?? []) pages.add(page);
    const lines: ChunkLine[] = [];
    let offset = 0;
    for (const piece of group) {
      const spans = blocks[piece.block]?.lineSpans;
      if (spans) lines.push(...pieceLines(piece.text, offset, spans, piece.from, piece.to));
      offset += piece.text.length + 2;
    }
    return {
      text: group.map((piece) => piece.text).join('\n\n'),
      pages: [...pages].sort((a, b) => a - b),
      figureIds: figureBlocks.filter((figure) => blockIndexes.has(figure.block)).map((figure) => figure.id),
      ...(lines.length > 0 ? { lines } : {}),
    };
  });
}

function lengthOf(pieces: Piece[]): number {
  return pieces.reduce((sum, piece, index) => sum + piece.text.length + (index > 0 ? 2 : 0), 0);
}

function toPieces(block: TextBlock, index: number, sizes: ChunkSizes): Piece[] {
  if (block.kind === 'heading') {
    const text = `${'#'.repeat(block.level ?? 2)} ${block.text}`.slice(0, sizes.maxChars);
    return [{ text, block: index, heading: true, from: 0, to: letterKey(text).length }];
  }
  // Body text that starts like markdown syntax ("# These authors contributed equally") is escaped.
  const text = /^[#>]/.test(block.text) ? `\\${block.text}` : block.text;
  if (text.length <= sizes.targetChars)
    return [{ text, block: index, heading: false, from: 0, to: letterKey(text).length }];
  // Half-target pieces let the chunk loop close near the target instead of near the maximum.
  const pieceSizes = { ...sizes, targetChars: Math.ceil(sizes.targetChars / 2) };
  let from = 0;
  return splitLongText(text, pieceSizes).map((piece) => {
    const to = from + letterKey(piece).length;
    const result = { text: piece, block: index, heading: false, from, to };
    from = to;
    return result;
  });
}

/** Packs sentences into pieces of at most `targetChars` (a sentence over `maxChars` is cut at spaces). */
export function splitLongText(text: string, sizes: ChunkSizes): string[] {
  const sentences = text
    .split(/(?<=[.!?;])\s+(?=[\p{Lu}\p{N}([“"'])/u)
    .flatMap((sentence) =>
      sentence.length <= sizes.maxChars ? [sentence] : splitAtSpaces(sentence, sizes.targetChars),
    );
  const pieces: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current.length > 0 && current.length + 1 + sentence.length > sizes.targetChars) {
      pieces.push(current);
      current = sentence;
    } else current = current.length > 0 ? `${current} ${sentence}` : sentence;
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

function splitAtSpaces(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    // A "word" longer than a whole chunk (a base64 blob, a URL list) is cut hard.
    const cut = space > 0 ? space : limit;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(space > 0 ? cut + 1 : cut);
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}
