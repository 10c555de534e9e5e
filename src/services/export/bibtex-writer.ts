import type { CslItem, CslName } from '@citation-js/core';

/**
 * CSL-JSON items as BibTeX (decision 0049). Written here rather than by citation-js, whose output
 * braced `others` into a person, dropped keywords and the arXiv eprint, wrote a thesis as @misc and
 * a proceedings publisher as `organization`. Values are UTF-8 (biber, Zotero, JabRef and
 * bibtexparser read it; citation-js reads its own LaTeX accents back wrongly); only the characters
 * BibTeX itself treats specially are escaped.
 */

const entryTypeOfCsl: Record<string, string> = {
  'article-journal': 'article',
  'article-magazine': 'article',
  'article-newspaper': 'article',
  article: 'misc',
  'paper-conference': 'inproceedings',
  book: 'book',
  chapter: 'incollection',
  thesis: 'phdthesis',
  report: 'techreport',
  dataset: 'misc',
  patent: 'patent',
};

/** `& % $ # _` escaped, and braces balanced (an unbalanced brace would end the value). */
function escapeValue(value: string): string {
  const escaped = value.replace(/\\/g, '\\textbackslash{}').replace(/([&%$#_])/g, '\\$1');
  let depth = 0;
  for (const character of escaped) {
    if (character === '{') depth += 1;
    else if (character === '}') depth -= 1;
    if (depth < 0) break;
  }
  return depth === 0 ? escaped : escaped.replace(/[{}]/g, (brace) => `\\${brace}`);
}

/**
 * A title with its capitals kept: a word holding a capital is braced, so a style that lower-cases
 * titles leaves "BERT" and "Annual" alone. The first letter of the title and of a subtitle (after a
 * colon) is left bare, as BibTeX styles never lower-case it; punctuation stays outside the braces.
 */
function protectCase(title: string): string {
  const words = escapeValue(title).split(' ');
  return words
    .map((word, index) => {
      const match = /^(\p{P}*)(.*?)(\p{P}*)$/u.exec(word);
      const [, lead = '', core = '', trail = ''] = match ?? [];
      const startsPart = index === 0 || /:$/.test(words[index - 1] ?? '');
      const rest = startsPart ? core.slice(1) : core;
      if (!/\p{Lu}/u.test(rest) || core.includes('{') || core.includes('\\')) return word;
      return `${lead}{${core}}${trail}`;
    })
    .join(' ');
}

/** "Family, Given" with the particle in front ("van der Berg, Pieter"); an organisation braced. */
function bibtexName(name: CslName): string {
  if (name.literal) return `{${escapeValue(name.literal)}}`;
  const family = [name['non-dropping-particle'] ?? name['dropping-particle'], name.family]
    .filter(Boolean)
    .join(' ');
  if (!name.given) return `{${escapeValue(family)}}`;
  return [family, name.suffix, name.given]
    .filter(Boolean)
    .map((part) => escapeValue(part as string))
    .join(', ');
}

function names(list: CslName[] | undefined, more = false): string | null {
  if (!list?.length) return null;
  return [...list.map(bibtexName), ...(more ? ['others'] : [])].join(' and ');
}

/** The arXiv id and class an item's number carries ("arXiv:1810.04805 [cs.CL]"). */
function arxivOf(number: unknown): { id: string; primaryClass: string | null } | null {
  const match = typeof number === 'string' ? /^arXiv:\s*(\S+?)(?:\s*\[([^\]]+)\])?$/i.exec(number) : null;
  return match?.[1] ? { id: match[1], primaryClass: match[2] ?? null } : null;
}

/** One BibTeX entry; `moreAuthors` adds `and others` (et al.). */
export function bibtexEntry(item: CslItem, moreAuthors = false): string {
  const type = item.type ?? 'document';
  const entryType = entryTypeOfCsl[type] ?? 'misc';
  const fields: Array<[string, string | null | undefined]> = [];
  const plain = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : null;
  fields.push(['author', names(item.author, moreAuthors)]);
  fields.push(['editor', names((item as { editor?: CslName[] }).editor)]);
  fields.push(['title', item.title ? protectCase(item.title) : null]);
  const container = plain(item['container-title']);
  const containerField =
    entryType === 'article' ? 'journal' : entryType === 'misc' ? 'howpublished' : 'booktitle';
  fields.push([containerField, container ? protectCase(container) : null]);
  const [year, month] = item.issued?.['date-parts']?.[0] ?? [];
  fields.push(['year', plain(year)], ['month', plain(month)]);
  fields.push(['volume', plain(item.volume)], ['number', plain(item.issue)]);
  fields.push(['pages', plain(item.page)?.replace(/\s*[-–—]+\s*/g, '--')]);
  fields.push(['edition', plain(item.edition)], ['series', plain(item['collection-title'])]);
  const publisher = plain(item.publisher);
  const publisherField =
    entryType === 'phdthesis' ? 'school' : entryType === 'techreport' ? 'institution' : 'publisher';
  fields.push([publisherField, publisher], ['address', plain(item['publisher-place'])]);
  const arxiv = arxivOf(item.number);
  if (arxiv) {
    fields.push(['eprint', arxiv.id], ['archiveprefix', 'arXiv'], ['primaryclass', arxiv.primaryClass]);
  } else {
    fields.push(['number', entryType === 'techreport' || type === 'patent' ? plain(item.number) : null]);
  }
  fields.push(['isbn', plain(item.ISBN)], ['issn', plain(item.ISSN)]);
  fields.push(['doi', plain(item.DOI)], ['url', plain(item.URL)]);
  fields.push(['pmid', plain(item.PMID)], ['pmcid', plain(item.PMCID)]);
  fields.push(
    ['keywords', plain(item.keyword)],
    ['note', plain(item.note)],
    ['abstract', plain(item.abstract)],
  );
  const verbatim = new Set([
    'doi',
    'url',
    'eprint',
    'author',
    'editor',
    'title',
    'journal',
    'booktitle',
    'howpublished',
  ]);
  const seen = new Set<string>();
  const lines = fields.flatMap(([key, value]) => {
    if (!value || seen.has(key)) return [];
    seen.add(key);
    return [`\t${key} = {${verbatim.has(key) ? value : escapeValue(value)}},`];
  });
  return `@${entryType}{${item.id},\n${lines.join('\n')}\n}\n`;
}
