import { readFileSync } from 'node:fs';
import wordListPath from 'word-list';

/**
 * Whether a lower-case word is an English word, by the `word-list` package (MIT; ~274,000 words,
 * inflections included: "representations", "condensates", "pretrained"). De-hyphenation asks it
 * whether two halves broken at a line end join into a word (decision 0050).
 *
 * The list is read once per process (per parse worker), on first use, into a table of two 32-bit
 * hashes per word: 4 MB, built in ~250 ms, where a Set of the strings takes ~30 MB. Two hashes make a
 * false "yes" about one in 2^50 look-ups.
 */
export function isEnglishWord(word: string): boolean {
  if (word.length < 2 || word.length > 40) return false;
  const table = loadTable();
  const [first, second] = hashPair(word);
  const mask = table.length / 2 - 1;
  for (let slot = first & mask; ; slot = (slot + 1) & mask) {
    const stored = table[slot * 2] as number;
    if (stored === 0 && table[slot * 2 + 1] === 0) return false;
    if (stored === first && table[slot * 2 + 1] === second) return true;
  }
}

let cachedTable: Uint32Array | undefined;

function loadTable(): Uint32Array {
  if (cachedTable) return cachedTable;
  const text = readFileSync(wordListPath, 'latin1');
  const count = text.split('\n').length;
  // Open addressing, linear probing, a power of two of slots at most two-thirds full.
  const slots = 2 ** Math.ceil(Math.log2(count * 1.5 + 1));
  const table = new Uint32Array(slots * 2);
  const mask = slots - 1;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const word = text.slice(start, end).trim();
    start = end + 1;
    if (word.length === 0) continue;
    const [first, second] = hashPair(word);
    let slot = first & mask;
    while (table[slot * 2] !== 0 || table[slot * 2 + 1] !== 0) {
      if (table[slot * 2] === first && table[slot * 2 + 1] === second) break;
      slot = (slot + 1) & mask;
    }
    table[slot * 2] = first;
    table[slot * 2 + 1] = second;
  }
  cachedTable = table;
  return table;
}

/** FNV-1a and a MurmurHash-style hash of the same characters; never both zero (the empty slot). */
function hashPair(word: string): [number, number] {
  let first = 0x811c9dc5;
  let second = 0x9e3779b9;
  for (let index = 0; index < word.length; index++) {
    const code = word.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
    second ^= second >>> 13;
  }
  // Murmur3's finaliser spreads the last characters over every bit.
  second = Math.imul(second ^ (second >>> 16), 0x85ebca6b);
  second = Math.imul(second ^ (second >>> 13), 0xc2b2ae35);
  second ^= second >>> 16;
  const pair: [number, number] = [first >>> 0, second >>> 0];
  return pair[0] === 0 && pair[1] === 0 ? [0, 1] : pair;
}
