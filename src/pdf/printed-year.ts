import type { FrontMatter } from './front-matter.js';
import type { TextLine } from './layout-types.js';

/** What the printed year is read from: page 1 as `frontMatterOf` splits it, and the arXiv id. */
export interface YearSources {
  /** Text drawn at an angle on page 1 (the arXiv stamp). */
  rotated: string[];
  front: FrontMatter;
  /** Page 1's lines in reading order (a patent's "(45) Date of Patent" and its date). */
  firstPage: TextLine[];
  arxivId?: string | undefined;
}

const months = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const year = '((?:19|20)\\d{2})';
const arxivStamp = new RegExp(`\\b\\d{1,2}\\s+(?:${months})\\w*\\s+${year}\\b`);
const labelled = (label: string) => new RegExp(`\\b(?:${label})\\b[^.;]{0,40}?\\b${year}\\b`, 'i');
const atLineStart = (label: string) => new RegExp(`^\\s*(?:${label})\\b[^.;]{0,40}?\\b${year}\\b`, 'i');

const publishedLabel =
  'published(?: online)?|publication date|date of publication|this version posted|dated|issue date';
/** "Nucleic Acids Research, 2024, 52, 4456", "Immunology. 2022;165:141", "(2023) 24:97". */
const journalLines = [
  new RegExp(`^\\p{L}[\\p{L}.&' -]{2,80}[,.]\\s+${year}\\s*[,;]\\s*\\d+`, 'u'),
  new RegExp(`\\(${year}\\)\\s*\\d+\\s*:\\s*\\w+`),
  /\b(?:vol\.?|volume)\s*\d+[^.]{0,60}?\b((?:19|20)\d{2})\b/i,
];
/** "Proceedings of the 40th International Conference on Machine Learning, … PMLR 202, 2023". */
const venueLine = new RegExp(
  `\\b(?:conference|proceedings|workshop|symposium|annual meeting)\\b[^;]{0,100}?\\b${year}\\b`,
  'i',
);
const copyrightLine = new RegExp(
  `(?:©|\\(c\\)|\\bcopyright\\s*(?:©|\\(c\\)|c\\b)?)[^.;]{0,40}?\\b${year}\\b`,
  'i',
);
const frontMatterDates = [
  new RegExp(`\\b(?:${months})\\w*\\.?,?\\s+(?:\\d{1,2}(?:st|nd|rd|th)?,?\\s+)?${year}\\b`),
  new RegExp(`\\b\\d{1,2}\\s+(?:${months})\\w*\\.?,?\\s+${year}\\b`),
  // Korean, Chinese and Japanese dates: "2020년 4월 2일", "2020年4月".
  new RegExp(`${year}\\s*[년年]`),
];

/**
 * The year a document prints as its own (decision 0050), most telling first: a patent's date, the
 * arXiv stamp, a "published"/"posted" line, the journal line ("Nucleic Acids Research, 2024, 52",
 * "Genome Biology (2023) 24:97"), the venue line ("Proceedings of … 2023"), the copyright line,
 * "accepted", "received", the arXiv id's yymm, then a date in the front matter ("September 1996",
 * "2020년 4월 2일"). Never the file's creation or modification date: a scan made in 1998 of a
 * 1960s memo, or a patent's PDF written two years before its grant, says nothing of the document.
 * Nothing printed, no year.
 */
export function printedYear(sources: YearSources): number | undefined {
  const { front } = sources;
  const top = [...front.opening, ...front.margins].map((line) => line.text);
  const page = front.beforeReferences.map((line) => line.text);
  const first = (patterns: RegExp[], texts: string[]) => {
    for (const pattern of patterns) {
      for (const text of texts) {
        const found = plausible(pattern.exec(text)?.[1]);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return (
    patentDate(sources.firstPage) ??
    first(
      [arxivStamp],
      sources.rotated.filter((text) => /arxiv/i.test(text)),
    ) ??
    first([labelled(publishedLabel)], top) ??
    first([atLineStart('published')], page) ??
    first(journalLines, top) ??
    first([venueLine], top) ??
    first([copyrightLine], page) ??
    first([labelled('accepted')], top) ??
    first([atLineStart('accepted')], page) ??
    first([labelled('received')], top) ??
    first([atLineStart('received')], page) ??
    yearOfArxivId(sources.arxivId) ??
    first(frontMatterDates, top)
  );
}

/**
 * A patent's date: the "(45) Date of Patent" (a grant) or "(43) Pub. Date" (an application)
 * field, whose date is printed on the same row or just after it. The "(65) Prior Publication"
 * and "(22) Filed" dates are earlier events.
 */
function patentDate(lines: TextLine[]): number | undefined {
  const at = lines.findIndex((line) => /date of patent|\(\s*4[35]\s*\)\s*pub\.?\s*date/i.test(line.text));
  const label = lines[at];
  if (!label) return undefined;
  const row = lines.filter(
    (line) => line !== label && Math.abs(line.bottom - label.bottom) < label.size && line.x0 > label.x0,
  );
  for (const line of [label, ...row, ...lines.slice(at + 1, at + 3)]) {
    const found = plausible(/\b((?:19|20)\d{2})\b/.exec(line.text)?.[1]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** New-style arXiv ids begin with the year and month they were submitted in: 2304.02623 → 2023. */
function yearOfArxivId(id: string | undefined): number | undefined {
  const modern = /^(\d{2})(\d{2})\.\d{4,5}/.exec(id ?? '');
  if (modern?.[1] && Number(modern[2]) >= 1 && Number(modern[2]) <= 12) return 2000 + Number(modern[1]);
  // Old style: "hep-th/9901001", "cond-mat.str-el/0601001".
  const old = /\/(\d{2})(\d{2})\d{3}/.exec(id ?? '');
  if (!old?.[1]) return undefined;
  const twoDigits = Number(old[1]);
  return twoDigits >= 91 ? 1900 + twoDigits : 2000 + twoDigits;
}

function plausible(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  return value >= 1900 && value <= new Date().getFullYear() + 1 ? value : undefined;
}
