/**
 * Random and hostile calls of the alexandria_pg extension's SQL functions, for its fuzz test
 * (test/contract/postgres-extension-fuzz.test.ts). A call is SQL text with typed parameters; most
 * start from a well-formed call and break one to three of its arguments (NULLs, negative or huge
 * lengths, out-of-range indexes, NaN and infinities, garbage byte strings, arrays with NULL
 * elements or of the wrong size, limits and offsets near INT_MAX), so that calls reach every stage
 * of the C code, not only the first argument check.
 */

export { seededRandom } from '../../bench/lib/seeded-random.js';

export type Random = () => number;

export const pick = <T>(random: Random, values: readonly T[]): T =>
  values[Math.floor(random() * values.length)] as T;
const integer = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

const INT_MAX = 2 ** 31 - 1;
const hostileInts = [
  0,
  -1,
  1,
  2,
  -2,
  3,
  63,
  64,
  65,
  1023,
  1024,
  1025,
  2 ** 16,
  -(2 ** 16),
  2 ** 30,
  INT_MAX,
  INT_MAX - 1,
  -INT_MAX - 1,
];
const hostileBigints = ['0', '-1', '1', '1024', '4294967296', '9223372036854775807', '-9223372036854775808'];
const hostileFloats = [
  0,
  -0,
  1,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e308,
  -1e308,
  5e-324,
  1e-6,
];

/** A hostile integer, or a random one in a small range. */
export function anyInt(random: Random): number {
  return random() < 0.6 ? pick(random, hostileInts) : integer(random, -5, 40);
}

/** An array of `n` values from `value`, sometimes with NULL elements or nested one level deeper. */
export function hostileArray<T>(random: Random, n: number, value: () => T): unknown[] {
  const values: unknown[] = Array.from({ length: n }, () => (random() < 0.03 ? null : value()));
  return random() < 0.05 && n > 0 ? [values, values] : values;
}

/** Random bytes: empty, short, long, runs of varint continuation bytes, or `base` damaged. */
export function hostileBytes(random: Random, base?: Buffer): Buffer {
  const choice = integer(random, 0, 7);
  if (base && base.length > 0 && choice < 4) {
    const copy = Buffer.from(base);
    if (choice === 0) {
      const at = integer(random, 0, copy.length - 1);
      copy[at] = (copy[at] ?? 0) ^ (1 << integer(random, 0, 7));
    }
    if (choice === 1) return copy.subarray(0, integer(random, 0, copy.length - 1));
    if (choice === 2) return Buffer.concat([copy, randomBytes(random, integer(random, 1, 40))]);
    if (choice === 3) copy.fill(pick(random, [0x00, 0x7f, 0x80, 0xff]), integer(random, 0, copy.length - 1));
    return copy;
  }
  if (choice === 4) return Buffer.alloc(0);
  if (choice === 5) return Buffer.alloc(integer(random, 1, 30), 0x80);
  if (choice === 6) return Buffer.alloc(integer(random, 1, 12), 0xff);
  return randomBytes(random, integer(random, 0, random() < 0.9 ? 64 : 20_000));
}

export function randomBytes(random: Random, n: number): Buffer {
  const bytes = Buffer.alloc(n);
  for (let at = 0; at < n; at += 1) bytes[at] = Math.floor(random() * 256);
  return bytes;
}

/** A well-formed docs list (varint deltas and one-byte frequencies) of `n` postings. */
export function docsList(random: Random, n: number): Buffer {
  const bytes: number[] = [];
  for (let at = 0; at < n; at += 1) {
    let delta = integer(random, at === 0 ? 0 : 1, 300);
    while (delta >= 0x80) {
      bytes.push((delta & 0x7f) | 0x80);
      delta >>>= 7;
    }
    bytes.push(delta, integer(random, 1, 255));
  }
  return Buffer.from(bytes);
}

/** One SQL call: text with `$n` parameters and their values. */
export interface FuzzCall {
  sql: string;
  params: unknown[];
  /** Arguments left well-formed: the call must succeed and its rows obey the function's contract. */
  wellFormed: boolean;
}

/** `name($1::type, …)` over the given types, each parameter cast so that NULLs keep their type. */
export function callOf(
  qualifiedName: string,
  types: string[],
  params: unknown[],
  wellFormed: boolean,
  setReturning = false,
): FuzzCall {
  const args = types.map((type, at) => `$${at + 1}::${type}`).join(', ');
  return {
    sql: setReturning
      ? `SELECT * FROM ${qualifiedName}(${args})`
      : `SELECT ${qualifiedName}(${args}) AS value`,
    params,
    wellFormed,
  };
}

/** A random tsvector literal: lexemes from a small set, positions with weights (or none). */
export function tsvectorText(random: Random): string {
  const lexemes = ['alpha', 'beta', 'gamma', 'delta', 'x'];
  const entries: string[] = [];
  for (const lexeme of lexemes) {
    if (random() < 0.4) continue;
    const positions = Array.from(
      { length: integer(random, 0, 6) },
      () => `${pick(random, [1, 2, 3, 4, 5, 100, 16383])}${pick(random, ['', 'A', 'B', 'C', 'D'])}`,
    );
    entries.push(positions.length > 0 ? `'${lexeme}':${positions.join(',')}` : `'${lexeme}'`);
  }
  return entries.join(' ');
}

/** A phrase for alexandria_bm25: lexemes separated by spaces (sometimes many, or odd spacing). */
export function phraseText(random: Random): string {
  const count = random() < 0.1 ? integer(random, 60, 200) : integer(random, 0, 4);
  const words = Array.from({ length: count }, () => pick(random, ['alpha', 'beta', 'gamma', 'x', '', ' ']));
  return words.join(pick(random, [' ', '  ', ' ']));
}

export { hostileBigints, hostileFloats, INT_MAX, integer };
