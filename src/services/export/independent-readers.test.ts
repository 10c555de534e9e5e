import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Creator, parse as parseBibtexIndependently } from '@retorquere/bibtex-parser';
import { Ajv } from 'ajv';
import { parse as parseRisIndependently } from 'astrocite-ris';
import { describe, expect, it } from 'vitest';
import { fixtures } from '../../../test/helpers/requirements.js';
import type { Paper } from '../../domain/paper.js';
import { type CitationFormat, formatPapers, parseReferences } from './citation-formats.js';
import { displayName } from './csl-bibliographic.js';

/**
 * Issue 37 goals 1 and 3 (decision 0049): a rich BibTeX file imported and exported as BibTeX, RIS
 * and CSL-JSON loses no field, read back by parsers we did not write (@retorquere/bibtex-parser, the
 * reader of Zotero's Better BibTeX; astrocite-ris), and the CSL-JSON validates against the official
 * CSL data schema. Every field of every entry is compared; `and others` is "et al.", never a person.
 */

const source = readFileSync(join(fixtures, 'bibliography', 'rich.bib'), 'utf8');
const cslSchema = JSON.parse(readFileSync(join(fixtures, 'csl', 'csl-data.json'), 'utf8'));

/** One entry as the tests compare it: field → normalised value. */
type Canonical = Record<string, string>;

const clean = (value: unknown): string =>
  String(value ?? '')
    // A reader's dotless i under an accent ({\'\i}) is the accented i.
    .replace(/ı(?=[\u0300-\u036f])/g, 'i')
    .normalize('NFC')
    .replace(/[–—]|--/g, '-')
    .replace(/\s+/g, ' ')
    .trim();

function put(record: Canonical, key: string, value: unknown): void {
  const text = Array.isArray(value) ? value.map(clean).join('; ') : clean(value);
  if (text) record[key] = text;
}

function creatorText(creator: Creator): string {
  if (creator.name) return `${creator.name}|`;
  return `${[creator.prefix, creator.lastName].filter(Boolean).join(' ')}|${creator.firstName ?? ''}`;
}

/** A BibTeX file as @retorquere/bibtex-parser reads it (no sentence-casing, no guessing). */
function readBibtex(text: string): Canonical[] {
  const library = parseBibtexIndependently(text, { sentenceCase: false, english: false });
  expect(library.errors).toEqual([]);
  return library.entries.map((entry) => {
    const fields = entry.fields as Record<string, unknown>;
    const record: Canonical = {};
    const creators = (key: string) => (fields[key] as Creator[] | undefined) ?? [];
    const others = (creator: Creator) => creator.lastName === 'others' && !creator.firstName;
    put(
      record,
      'authors',
      creators('author')
        .filter((creator) => !others(creator))
        .map(creatorText),
    );
    if (creators('author').some(others)) record['et al.'] = 'yes';
    put(record, 'editors', creators('editor').map(creatorText));
    put(record, 'title', fields.title);
    put(record, 'container', fields.journal ?? fields.booktitle);
    put(record, 'year', fields.year);
    put(record, 'month', fields.month);
    put(record, 'volume', fields.volume);
    put(record, entry.type === 'techreport' ? 'report number' : 'issue', fields.number);
    put(record, 'pages', fields.pages);
    put(record, 'publisher', fields.publisher);
    put(record, 'institution', fields.institution ?? fields.school);
    put(record, 'place', fields.address);
    put(record, 'isbn', fields.isbn);
    put(record, 'issn', fields.issn);
    put(record, 'edition', fields.edition);
    put(record, 'series', fields.series);
    put(record, 'doi', String(fields.doi ?? '').toLowerCase());
    put(record, 'url', fields.url);
    put(record, 'arxiv', fields.eprint);
    put(record, 'arxiv class', fields.primaryclass);
    put(record, 'note', fields.note);
    // Keywords are a set (the reader sorts them).
    put(record, 'keywords', [...((fields.keywords as string[] | undefined) ?? [])].sort());
    return record;
  });
}

interface Csl {
  type?: string;
  [key: string]: unknown;
}

function cslName(name: Record<string, string>): string {
  if (name.literal) return `${name.literal}|`;
  const family = [name['non-dropping-particle'] ?? name['dropping-particle'], name.family].filter(Boolean);
  return `${family.join(' ')}|${name.given ?? ''}`;
}

/** CSL-JSON items (ours, or astrocite-ris's reading of our RIS) in the same terms. */
function readCsl(items: Csl[]): Canonical[] {
  return items.map((item) => {
    const record: Canonical = {};
    const names = (key: string) =>
      ((item[key] as Array<Record<string, string>> | undefined) ?? []).map(cslName);
    put(record, 'authors', names('author'));
    put(record, 'editors', names('editor'));
    put(record, 'title', item.title);
    put(record, 'container', item['container-title']);
    const [year, month] = ((item.issued as { 'date-parts'?: unknown[][] } | undefined)?.['date-parts']?.[0] ??
      []) as unknown[];
    put(record, 'year', year);
    put(record, 'month', month === undefined ? '' : Number(month));
    put(record, 'volume', item.volume);
    put(record, 'issue', item.issue);
    put(record, 'pages', item.page);
    const institution = item.type === 'thesis' || item.type === 'report';
    put(record, institution ? 'institution' : 'publisher', item.publisher);
    put(record, 'place', item['publisher-place']);
    put(record, 'isbn', item.ISBN);
    put(record, 'issn', item.ISSN);
    put(record, 'edition', item.edition);
    put(record, 'series', item['collection-title']);
    const number = clean(item.number);
    const arxiv = /^arXiv:(\S+?)(?: \[(.+)\])?$/.exec(number);
    if (arxiv) {
      put(record, 'arxiv', arxiv[1]);
      put(record, 'arxiv class', arxiv[2]);
    } else put(record, 'report number', number);
    put(record, 'doi', String(item.DOI ?? '').toLowerCase());
    put(record, 'url', item.URL);
    put(record, 'note', item.note);
    const keywords = item.keyword;
    const list = Array.isArray(keywords) ? keywords.map(clean) : clean(keywords).split(/\s*[,;]\s*/);
    put(record, 'keywords', list.filter(Boolean).sort());
    return record;
  });
}

/** Values of `expected` that `actual` lacks or changed, as "entry.field". */
function lost(expected: Canonical[], actual: Canonical[], skip: string[] = []): string[] {
  return expected.flatMap((record, index) =>
    Object.entries(record)
      .filter(([key]) => !skip.includes(key))
      .filter(([key, value]) => actual[index]?.[key] !== value)
      .map(
        ([key, value]) =>
          `${index}.${key}: ${JSON.stringify(value)} → ${JSON.stringify(actual[index]?.[key])}`,
      ),
  );
}

const expected = readBibtex(source);
const exported = (format: CitationFormat) => formatPapers(parseReferences(source, 'bibtex').papers, format);

describe('a rich BibTeX file through Alexandria, read back by independent readers', () => {
  it('the fixture is rich: ten entries, over 90 values', () => {
    expect(expected).toHaveLength(10);
    const values = expected.reduce((sum, record) => sum + Object.keys(record).length, 0);
    expect(values).toBeGreaterThanOrEqual(90);
  });

  it('BibTeX → BibTeX loses no value (@retorquere/bibtex-parser)', () => {
    expect(lost(expected, readBibtex(exported('bibtex'))).join('\n')).toBe('');
  });

  it('BibTeX → RIS loses no value RIS can carry (astrocite-ris)', () => {
    const items = parseRisIndependently(exported('ris')) as Csl[];
    // RIS has no "et al." and no month-only field beyond DA: the list ends, the month is in DA.
    expect(lost(expected, readCsl(items), ['et al.']).join('\n')).toBe('');
  });

  it('BibTeX → CSL-JSON loses no value CSL can carry, and validates against the CSL data schema', () => {
    const items = JSON.parse(exported('csl')) as Csl[];
    expect(lost(expected, readCsl(items), ['et al.']).join('\n')).toBe('');
    const validate = new Ajv({ strict: false, allErrors: true }).compile(cslSchema);
    expect(validate(items) ? [] : validate.errors).toEqual([]);
  });

  it.each(['ris', 'csl'] as const)('re-importing our %s export keeps every field of the record', (format) => {
    const papers = parseReferences(source, 'bibtex').papers;
    const back = parseReferences(formatPapers(papers, format), format).papers;
    // Names compare as displayed (a RIS name has no separate particle); "et al." has no RIS/CSL form.
    const comparable = (paper: Paper) => {
      const { author_names, more_authors: _more, editors, ...rest } = paper.bibliographic ?? {};
      return {
        ...paper,
        source: undefined,
        bibliographic: {
          ...rest,
          editors: editors?.map(displayName),
          author_names: author_names?.map(displayName),
        },
      };
    };
    expect(back.map(comparable)).toEqual(papers.map(comparable));
  });

  it('never makes a person of "and others" (an author named "others" in every format before)', () => {
    const bibtex = exported('bibtex');
    expect(bibtex).toContain('Weld, Daniel and others}');
    expect(bibtex).not.toMatch(/\{others\}/);
    expect(exported('ris')).not.toMatch(/^AU {2}- others$/m);
    const csl = JSON.parse(exported('csl')) as Csl[];
    const names = csl.flatMap((item) => (item.author as Array<Record<string, string>>).map(cslName));
    expect(names.filter((name) => /others/i.test(name))).toEqual([]);
    expect(exported('ris')).not.toMatch(/^C2 {2}-/m);
  });
});
