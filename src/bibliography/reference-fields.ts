import { findArxiv, findDoi, parseReference } from './reference-parser.js';

/**
 * The fields of one printed reference in a PDF's reference list, read by the one reference parser
 * (`reference-parser.ts`, decision 0048) that also reads pasted text: authors, year, title, venue,
 * DOI and arXiv id. Fields the parser cannot find are null; matching then leans on the raw text.
 */
export interface ReferenceFields {
  authors: string[];
  title: string | null;
  year: number | null;
  /** The year as printed with its disambiguating letter ("2023a"), for author–year citations. */
  yearLabel: string | null;
  venue: string | null;
  doi: string | null;
  arxiv: string | null;
}

/**
 * Fields of entries read lately, by their text: a stored PDF's list is read again on each request
 * that needs it (references, checks, citation contexts), and the labeller costs ~0.5 ms an entry.
 */
const recent = new Map<string, ReferenceFields>();
const recentLimit = 20_000;

export function readReferenceFields(raw: string): ReferenceFields {
  const known = recent.get(raw);
  if (known) return { ...known, authors: [...known.authors] };
  const fields = readFields(raw);
  if (recent.size >= recentLimit) recent.clear();
  recent.set(raw, fields);
  return { ...fields, authors: [...fields.authors] };
}

function readFields(raw: string): ReferenceFields {
  const text = raw.replace(/\s+/g, ' ').trim();
  const parsed = parseReference(text);
  // "Grobid. 2008–2023. Grobid.": software cited by the years it has been developed.
  const range = leadingYearRange(text);
  return {
    authors: parsed.authors,
    title: parsed.title,
    year: range ? Number(range.value) : parsed.year,
    yearLabel: range?.value ?? parsed.yearLabel,
    venue: parsed.containerTitle ?? parsed.publisher,
    doi: findDoi(raw),
    arxiv: findArxiv(raw),
  };
}

interface FoundYear {
  value: string;
  index: number;
  end: number;
}

/**
 * "Grobid. 2008–2023. Grobid. https://…": software cited by the years it has been developed. The
 * range stands where a year stands in "Authors. 2020. Title."; elsewhere a range is pages.
 */
function leadingYearRange(text: string): FoundYear | null {
  const match = /^(.{1,200}?[.,]\s+)((?:1[89]|20)\d{2})\s*[–-]\s*((?:1[89]|20)\d{2})(?=[.,]\s)/.exec(text);
  // The first date of the entry only: after a year, a range is pages ("2019. … ACL, 1990–2001.").
  if (!match?.[1] || !match[2] || !match[3] || /\b(?:1[89]|20)\d{2}\b/.test(match[1])) return null;
  const [from, to] = [Number(match[2]), Number(match[3])];
  if (to < from || to > new Date().getUTCFullYear() + 1) return null;
  return { value: match[2], index: match[1].length, end: match[0].length };
}

/**
 * The surname of a printed author name: "Smith, J." → smith, "Jane van Smith" → van smith,
 * "Smith JA" → smith, "Dorman,C.J." → dorman; lower case without accents.
 */
export function surnameOf(name: string): string | null {
  const trimmed = name.trim();
  let surname: string;
  if (trimmed.includes(',')) surname = trimmed.split(',')[0] ?? '';
  else {
    const words = trimmed.split(/\s+/);
    const last = (words[words.length - 1] ?? '').replace(/\./g, '');
    // Vancouver: the initials come last, in capitals without periods ("Blair JMA").
    if (words.length > 1 && /^\p{Lu}{1,3}$/u.test(last)) surname = words.slice(0, -1).join(' ');
    else {
      let start = words.length - 1;
      while (
        start > 0 &&
        /^(?:van|von|der|den|de|del|della|da|dos|la|le|du|ter)$/i.test(words[start - 1] ?? '')
      )
        start--;
      surname = words.slice(start).join(' ');
    }
  }
  const key = nameKeyOf(surname);
  return key.length >= 2 ? key : null;
}

/** Lower case, accents removed, letters only (spaces kept between words). */
export function nameKeyOf(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\s-]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}
