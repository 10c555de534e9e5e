import { readFileSync } from 'node:fs';
import type { PaperLayout, PaperSection } from './paper-pdf.js';

/** A QASPER question about a whole paper, asked by a reader who saw only the abstract. */
export interface ReaderQuestion {
  question: string;
  answer: string;
}

export interface ReaderPaper {
  id: string;
  layout: PaperLayout;
  questions: ReaderQuestion[];
}

interface LevalRow {
  id: string;
  paper_text: string;
  questions: ReaderQuestion[];
}

/**
 * The papers of `eval/leval_scientific_qa` (QASPER full texts with readers' questions), laid out as
 * papers. The source text is one paragraph or heading per line, with QASPER's "Parent ::: Child"
 * section names and no title. A line is a heading when it is short (≤ 12 words, ≤ 90 characters),
 * starts with a capital or digit, does not end like a sentence or a lead-in (. : ; , ? !) and the
 * next line is a paragraph of 20 words or more or another heading; otherwise it is a paragraph.
 * LaTeX residue lines ("[leftmargin=4mm]") are dropped. The title is the set id (the source has
 * none; a made-up title would add words no question was written against).
 */
export function loadReaderPapers(file: string): ReaderPaper[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LevalRow)
    .map((row) => ({
      id: row.id,
      layout: { title: `Paper ${row.id}`, sections: sectionsOf(row.paper_text) },
      questions: row.questions,
    }));
}

function sectionsOf(text: string): PaperSection[] {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0 && !/^\[[^\]]*\]$/.test(line));
  const shortUnpunctuated = (line: string) =>
    line.length <= 90 && line.split(' ').length <= 12 && /^[\p{Lu}\d]/u.test(line) && !/[.:;,?!]$/.test(line);
  const sections: PaperSection[] = [];
  let path: string[] = [];
  lines.forEach((line, index) => {
    const next = lines[index + 1];
    const heading =
      shortUnpunctuated(line) &&
      next !== undefined &&
      (next.split(' ').length >= 20 || shortUnpunctuated(next));
    if (heading) {
      const parts = line.split(/\s*:::\s*/).filter((part) => part.length > 0);
      // A "Parent ::: Child" whose parent has not been opened yet opens the parent first.
      parts.forEach((part, depth) => {
        if (depth < parts.length - 1 && path[depth] === part) return;
        sections.push({ heading: part, level: depth + 1, paragraphs: [] });
      });
      path = parts;
      return;
    }
    if (sections.length === 0) sections.push({ heading: 'Introduction', level: 1, paragraphs: [] });
    sections[sections.length - 1]?.paragraphs.push({ text: line });
  });
  return sections;
}

interface PubMedRow {
  pmid: string;
  question: string;
  contexts: string[];
  context_labels: string[];
}

export interface PubMedGroup {
  layout: PaperLayout;
  items: Array<{ pmid: string; question: string; abstract: string }>;
}

/**
 * PubMedQA abstracts grouped `size` to a document in file order, as an abstract book: each abstract a
 * numbered section headed "Abstract one", "Abstract two", … (never its title: PubMedQA's
 * questions are the titles),
 * its structured parts as paragraphs with their run-in labels ("RESULTS.").
 */
export function loadPubMedGroups(file: string, size: number, limit: number): PubMedGroup[] {
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as PubMedRow)
    .slice(0, limit);
  const groups: PubMedGroup[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const members = rows.slice(start, start + size);
    groups.push({
      layout: {
        title: `Abstracts ${start + 1}–${start + members.length}`,
        sections: members.map((row, index) => ({
          heading: `Abstract ${ordinals[index] ?? index + 1}`,
          level: 1,
          paragraphs: row.contexts.map((text, index) => ({
            text,
            label: row.context_labels[index] ? `${capitalized(row.context_labels[index])}.` : undefined,
          })),
        })),
      },
      items: members.map((row) => ({
        pmid: row.pmid,
        question: row.question,
        abstract: row.contexts.join(' '),
      })),
    });
  }
  return groups;
}

// Spelled out: a numbered heading at the top of several pages reads as a running header and is dropped.
const ordinals =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen'.split(
    ' ',
  );

function capitalized(label: string): string {
  return label.charAt(0) + label.slice(1).toLowerCase();
}
