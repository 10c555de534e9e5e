/**
 * The fields of one printed reference: authors, year, title, venue, DOI and arXiv id, read from
 * its text by the shapes the common styles give it — "Authors. 2020. Title. Venue" (ACL, ACM,
 * AAAI, ASM), "Authors (2014) Title. Venue" (NAR), "Authors. Title. Venue. 2021;27:1–9"
 * (Vancouver), "Authors; Title. Venue 2019, 31" (ACS), "Authors. Title. Venue, 2020" (NeurIPS,
 * theses). Fields that cannot be told apart are left null; matching then leans on the raw text.
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

const doiPattern = /\b(10\.\d{4,9}\/[^\s"<>]+)/;
const arxivPatterns = [
  /arxiv(?:\.org\/(?:abs|pdf)\/|:\s*|\s+preprint\s+arxiv:\s*|,?\s*abs\/)\s*(\d{4}\.\d{4,5})(?:v\d+)?/i,
  /\babs\/(\d{4}\.\d{4,5})\b/i,
];
const yearToken = /(?<![\d.])((?:1[89]|20)\d{2})([a-z])?(?![\d])/g;

/** Words of an author list that are not names. */
const authorNoise = /^(?:and|&|et\.?|al\.?|others)$/i;

export function readReferenceFields(raw: string): ReferenceFields {
  const doi = findDoi(raw);
  const arxiv = findArxiv(raw);
  const text = raw.replace(/\s+/g, ' ').trim();
  const year = leadingYearRange(text) ?? firstYear(maskLocators(text));
  const { authors, title, venue } = splitParts(text, year);
  return {
    authors,
    title,
    year: year ? Number(year.value.slice(0, 4)) : null,
    yearLabel: year?.value ?? null,
    venue,
    doi,
    arxiv,
  };
}

function findDoi(raw: string): string | null {
  // A DOI broken over two lines gains a space after "doi:" or inside; close that gap first.
  const joined = raw.replace(/(doi\.org\/|doi:)\s+/gi, '$1');
  const match = doiPattern.exec(joined);
  if (!match?.[1]) return null;
  return match[1].replace(/[.,;:)\]]+$/, '').toLowerCase();
}

function findArxiv(raw: string): string | null {
  for (const pattern of arxivPatterns) {
    const match = pattern.exec(raw);
    if (match?.[1]) return match[1];
  }
  return null;
}

/**
 * The text with URLs, DOIs, arXiv ids and page ranges blanked out (same length, so positions
 * still point into the text): numbers there are not years.
 */
function maskLocators(text: string): string {
  const blank = (found: string) => ' '.repeat(found.length);
  return text
    .replace(/https?:\s?\S+/g, blank)
    .replace(/\bdoi:?\s*10\.\S+/gi, blank)
    .replace(/\b10\.\d{4,9}\/\S+/g, blank)
    .replace(/\b(?:arxiv:?\s*|abs\/)\d{4}\.\d{4,5}(?:v\d+)?/gi, blank)
    .replace(/\b\d+\s*[–-]\s*\d+\b/g, blank)
    .replace(/\b(?:pages|pp\.)\s*\d+/g, blank);
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

function firstYear(text: string): FoundYear | null {
  const latest = new Date().getUTCFullYear() + 1;
  for (const match of text.matchAll(yearToken)) {
    const year = Number(match[1]);
    if (year < 1800 || year > latest) continue;
    const index = match.index ?? 0;
    return { value: `${match[1]}${match[2] ?? ''}`, index, end: index + match[0].length };
  }
  return null;
}

/**
 * Sentences of a reference: cut at ". " and "? " except after an initial ("J."), "et al." inside
 * an author list, and common abbreviations. Vancouver initials ("Blair JMA.") do end a sentence.
 */
function sentencesOf(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const match of text.matchAll(/[.?!]\s+/g)) {
    const end = (match.index ?? 0) + 1;
    const before = text.slice(start, end);
    const lastWord = /(\S+)$/.exec(before)?.[1] ?? '';
    if (/^(?:\p{Lu}\.)+$|^\p{Lu}\p{Ll}?\.$/u.test(lastWord)) continue;
    if (
      /^(?:Proc|Natl|Acad|Sci|Int|Conf|Assoc|Comput|Ling|Vol|No|pp|Eds?|eds?|Inc|St|vs|ed|Lett|Rev|Phys|Univ|Dept|Trans|Mol|Biol|Res|Med)\.$/.test(
        lastWord,
      )
    ) {
      continue;
    }
    parts.push(before.trim());
    start = (match.index ?? 0) + match[0].length;
  }
  const rest = text.slice(start).trim();
  if (rest) parts.push(rest);
  return parts;
}

/** Whether a piece of text reads like a list of person names (no lower-case words but particles). */
function looksLikeAuthors(text: string): boolean {
  const words = text.split(/[\s,;]+/).filter(Boolean);
  if (words.length === 0) return false;
  const lower = words.filter(
    (word) =>
      /^\p{Ll}{3,}/u.test(word) &&
      !/^(?:and|van|von|der|den|del|della|dos|das|de|la|le|du|ter|al|et|others)\.?$/.test(word),
  );
  return lower.length === 0;
}

const vancouverName = "\\p{Lu}[\\p{L}'’-]+(?:\\s\\p{Lu}[\\p{L}'’-]+)*\\s\\p{Lu}{1,3}";
const vancouverAuthors = new RegExp(
  `^((?:${vancouverName},\\s)*${vancouverName}(?:,\\s(?:et al|others))?)\\.\\s+(.*)$`,
  'u',
);

function splitParts(
  text: string,
  year: FoundYear | null,
): Pick<ReferenceFields, 'authors' | 'title' | 'venue'> {
  // "Authors. 2020. Title. Venue" and "Authors (2014) Title. Venue": the year follows the authors.
  if (year) {
    const head = text.slice(0, year.index).replace(/[\s(,]+$/, '');
    const tail = text.slice(year.end).replace(/^[).,:\s]+/, '');
    if ((head === '' || looksLikeAuthors(head)) && tail.length > 0) {
      const [title = null, ...rest] = sentencesOf(tail);
      return { authors: splitAuthors(head), title: cleanTitle(title), venue: cleanVenue(rest.join(' ')) };
    }
  }
  // Vancouver: "Bange EM, Han NA, et al. Title. Venue. 2021;27:1280–9."
  const vancouver = vancouverAuthors.exec(text);
  if (vancouver?.[1] && vancouver[2]) {
    const [title = null, ...rest] = sentencesOf(vancouver[2]);
    return {
      authors: splitAuthors(vancouver[1]),
      title: cleanTitle(title),
      venue: cleanVenue(rest.join(' ')),
    };
  }
  // "Authors. Title. Venue …": the first sentence is the authors when it reads like names.
  const sentences = sentencesOf(text);
  const [first = '', second = null, ...rest] = sentences;
  if (looksLikeAuthors(first.replace(/\.$/, '')) && second) {
    return { authors: splitAuthors(first), title: cleanTitle(second), venue: cleanVenue(rest.join(' ')) };
  }
  // ACS: "A, B.; C, D.; E, F. Title. Venue": the authors run to the last "; ".
  const semicolon = first.lastIndexOf('; ');
  if (semicolon > 0 && looksLikeAuthors(first.slice(0, semicolon))) {
    const lastAuthor = /^((?:\p{Ll}+\s)?\p{Lu}[\p{L}'’ -]+,\s(?:\p{Lu}\.\s?-?)+)\s*(.*)$/u.exec(
      first.slice(semicolon + 2),
    );
    if (lastAuthor) {
      const title = lastAuthor[2] || second;
      return {
        authors: splitAuthors(`${first.slice(0, semicolon)}; ${lastAuthor[1]}`),
        title: cleanTitle(title ?? null),
        venue: cleanVenue((lastAuthor[2] ? [second, ...rest] : rest).filter(Boolean).join(' ')),
      };
    }
  }
  return { authors: [], title: null, venue: null };
}

/** Authors as printed, one string each ("Smith, J.", "Jane Smith", "Smith JA"). */
export function splitAuthors(text: string): string[] {
  const cleaned = text.replace(/\bet\.? al\.?/gi, '').trim();
  const separator = cleaned.includes(';') ? /\s*;\s*/ : /\s*,\s*(?:and\s+|&\s+)?|\s+and\s+|\s+&\s+/;
  // A closing period is the list's, unless it ends an initial ("Dorman,C.J.").
  const pieces = cleaned
    .split(separator)
    .map((piece) => piece.replace(/^(?:and|&)\s+/i, '').trim())
    .map((piece) => (/(?:^|[\s.,])\p{Lu}\.$/u.test(piece) ? piece : piece.replace(/\.$/, '')));
  // "Smith, J., Jones, K." splits a surname from its initials: rejoin them.
  const joined: string[] = [];
  for (const piece of pieces) {
    if (!piece || authorNoise.test(piece)) continue;
    const previous = joined[joined.length - 1];
    if (previous && /^(?:\p{Lu}\.\s?-?)+$/u.test(piece) && !previous.includes(',') && !/\s/.test(previous)) {
      joined[joined.length - 1] = `${previous}, ${piece}`;
    } else joined.push(piece);
  }
  return joined.filter((name) => /\p{L}{2}/u.test(name)).slice(0, 100);
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

function cleanTitle(title: string | null): string | null {
  if (!title) return null;
  const cleaned = title
    .replace(/^["“'‘]+|["”'’.,]+$/g, '')
    .replace(/^In\s+/, '')
    .trim();
  return cleaned.length >= 3 ? cleaned : null;
}

function cleanVenue(venue: string): string | null {
  const cleaned = venue
    .replace(/^In:?\s+/, '')
    .replace(/\s*[,.;]\s*$/, '')
    .trim();
  return cleaned.length >= 2 ? cleaned.slice(0, 300) : null;
}
