import { nameParticles as particles } from '../domain/name-particles.js';
import { normalizeText } from './text-cleaning.js';

/**
 * Person names as bylines print them: pieces of text cleaned of affiliation markers and checked to
 * read like a name ("Jessica M. A. Blair", "Adrian Del Maestro", "Weinan E", "김창호"), in the
 * "Given Family" order the exporters split (decision 0028).
 */

/** Footnote and affiliation markers set after a name (digits are markers too). */
const markerChars = /[\d*#†‡§¶∗⋆⋄◇□■○●•✝✉♯♮♣♠♥♦⊥∥‖]/gu;
const markerOnly = /^[\p{N}\p{P}\p{S}\s\u03b1-\u03c9]*$/u;
/** Capitalised words that are never part of a person's name on a title page. */
const notNames = new Set(
  (
    'abstract introduction keywords research article open access editorial review letter original paper ' +
    'journal volume issue preprint supplementary received accepted published correspondence corresponding ' +
    'chair committee thesis dissertation doctor philosophy submitted university institute department ' +
    'school college laboratory center centre hospital foundation company corporation inc ltd limited gmbh ' +
    'press proceedings conference workshop symposium technical report memo note series the of and for with ' +
    'in on at to from by an a via using towards toward united states america patent national academy ' +
    'sciences science society international association group team lab labs member fellow senior student ' +
    'ieee acm extended version draft appendix chapter edition invited tutorial survey position'
  ).split(' '),
);
const hangulOrHan = /^[\p{Script=Hangul}\p{Script=Han}]+$/u;

/**
 * The name in a piece of byline text, or undefined when the piece does not read like one person's
 * name. Markers (digits, *, †, superscript letters already cut off by the caller) and a leading
 * "and"/"by" are dropped; an all-capitals family name ("C. E. SHANNON") is put in title case;
 * Korean and Chinese names set with spaces between syllables ("김 창 호") are joined.
 */
export function cleanPersonName(piece: string): string | undefined {
  const text = normalizeText(piece)
    .replace(/[\u2010\u2011]/g, '-')
    .replace(/\([^)]*\)/g, ' ')
    .replace(markerChars, ' ')
    .replace(/^\s*(?:and|by|&)\s+/i, '')
    .replace(/\s+(?:and|&)\s*$/i, '')
    .replace(/^[\s,;.]+|[\s,;]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || markerOnly.test(text)) return undefined;
  const words = text.split(' ');
  if (words.every((word) => hangulOrHan.test(word))) {
    const joined = words.every((word) => word.length === 1) ? words.join('') : text;
    return joined.replace(/\s/g, '').length >= 2 && joined.replace(/\s/g, '').length <= 8
      ? joined
      : undefined;
  }
  if (words.length < 2 || words.length > 6) return undefined;
  const allCaps = words.every((word) => !/\p{Ll}/u.test(word));
  const shaped: string[] = [];
  let named = 0;
  for (const [index, word] of words.entries()) {
    const lower = word.toLowerCase();
    if (/^(?:\p{Lu}\.)+(?:-\p{Lu}\.)?$|^\p{Lu}\.?-\p{Lu}\.$/u.test(word)) {
      shaped.push(word); // initials: "A.", "J.-P.", "M.A."
      continue;
    }
    if (notNames.has(lower)) return undefined;
    if (index > 0 && index < words.length - 1 && particles.has(lower) && word === lower) {
      shaped.push(word);
      continue;
    }
    if (/^(?:Jr\.?|Sr\.?|II|III|IV)$/.test(word) && index === words.length - 1 && index > 1) {
      shaped.push(word);
      continue;
    }
    if (!/^\p{Lu}[\p{L}\p{M}'’.-]*$/u.test(word) || /\.\p{L}{2}/u.test(word)) return undefined;
    const letters = word.replace(/[^\p{L}]/gu, '');
    const capitals = !/\p{Ll}/u.test(letters);
    if (capitals && letters.length > 1 && !allCaps) {
      // "Meta AI", "NLP Group": an acronym inside a mixed-case name is an organisation.
      if (letters.length <= 3) return undefined;
    }
    if (letters.length === 1 && index < words.length - 1) {
      shaped.push(word); // an initial without its period ("John F Kennedy")
      continue;
    }
    shaped.push(capitals && letters.length > 1 ? titleCase(word) : word);
    named++;
  }
  if (named === 0) return undefined;
  return shaped.join(' ');
}

/** "SHANNON" → "Shannon", "O'BRIEN" → "O'Brien", "HARTMANN-PETERSEN" → "Hartmann-Petersen". */
function titleCase(word: string): string {
  return word.toLowerCase().replace(/(^|[-'’])(\p{L})/gu, (_, before: string, letter: string) => {
    return before + letter.toUpperCase();
  });
}

/**
 * Names in a list written out as text: separated by commas, semicolons, "and", "&" or the
 * separator `|` (where the caller saw a marker or a wide gap). Pieces that are not names are left
 * out.
 */
export function splitPersonNames(text: string): string[] {
  return text
    .split(/\s*(?:\||;|,|\band\b|&)\s*/i)
    .map(cleanPersonName)
    .filter((name): name is string => name !== undefined);
}

/** A comparable form of a name: lower case, accents and punctuation dropped, words sorted. */
export function nameKey(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .sort()
    .join(' ');
}
