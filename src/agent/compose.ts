import type { PageAnchor } from '../domain/page-anchors.js';
import type { FullTextReader } from '../services/services.js';
import { contentTerms } from '../text/keywords.js';
import { plainLine, quotePaperText } from '../text/markdown-text.js';
import { rankSentences } from '../text/sentences.js';
import { termsNeeded } from './relevance.js';
import { citationMarkdown, type Evidence, type RetrievedSource } from './source-ledger.js';

/** A sentence chosen for an extractive answer, with where it came from. */
export interface SelectedSentence {
  text: string;
  evidence: Evidence;
  score: number;
  /** Where a full-text sentence is printed (pages and boxes), when known. */
  anchor?: PageAnchor | null;
}

export interface SelectOptions {
  /** Most sentences in total. */
  max: number;
  /** Most sentences from one source. */
  perSource: number;
  /** Sentences already used (normalised text), so a later section does not repeat them. */
  exclude?: Set<string>;
}

/**
 * The retrieved sentences that best answer the question: BM25-ranked, at most `perSource` per
 * record, no repeats, and only sentences that share enough terms with the question (two; for long
 * questions a third of their terms, at most four), that are not bibliography entries, and score at least a quarter of the best one.
 */
export function selectSentences(
  question: string,
  evidence: Evidence[],
  options: SelectOptions,
): SelectedSentence[] {
  const ranked = rankSentences(
    question,
    evidence.map((item) => ({ text: item.text, origin: item })),
  );
  const best = ranked[0]?.score ?? 0;
  const needed = termsNeeded(new Set(contentTerms(question)).size);
  const perSource = new Map<string, number>();
  const used = options.exclude ?? new Set<string>();
  const chosen: SelectedSentence[] = [];
  for (const entry of ranked) {
    if (chosen.length >= options.max) break;
    if (entry.matched < needed || entry.score < best * 0.25 || isBibliographic(entry.text)) continue;
    const key = normalizeSentence(entry.text);
    const count = perSource.get(entry.origin.source.id) ?? 0;
    if (used.has(key) || count >= options.perSource) continue;
    used.add(key);
    perSource.set(entry.origin.source.id, count + 1);
    chosen.push({ text: entry.text, evidence: entry.origin, score: entry.score });
  }
  return chosen;
}

/** One answer line: the sentence verbatim (quoted, markdown-inert) and its citation. */
export function sentenceLine(sentence: SelectedSentence): string {
  const { evidence } = sentence;
  const pages = sentence.anchor?.pages ?? [];
  const page =
    pages.length === 0
      ? ''
      : pages.length === 1
        ? `, p. ${pages[0]}`
        : `, pp. ${pages[0]}–${pages[pages.length - 1]}`;
  const where = evidence.kind === 'fulltext' && evidence.chunk ? ` (chunk ${evidence.chunk}${page})` : '';
  return `- “${quotePaperText(sentence.text)}” ${citationMarkdown(evidence.source)}${where}\n`;
}

/**
 * Looks up where each full-text sentence is printed (pages and boxes), from documents the run has
 * already read; sentences stay unanchored when the reader cannot tell.
 */
export async function anchorSentences(
  reader: FullTextReader | undefined,
  tenantId: string,
  sentences: SelectedSentence[],
): Promise<SelectedSentence[]> {
  const locate = reader?.locate?.bind(reader);
  if (!locate) return sentences;
  return Promise.all(
    sentences.map(async (sentence) => {
      const { evidence } = sentence;
      const ref = evidence.source.paper.pdf_id;
      if (evidence.kind !== 'fulltext' || !evidence.chunk || !ref) return sentence;
      const anchor = await locate(tenantId, ref, evidence.chunk, sentence.text).catch(() => null);
      return anchor ? { ...sentence, anchor } : sentence;
    }),
  );
}

/** The references list of an answer: the cited records, numbered in order of first citation. */
export function referencesSection(cited: RetrievedSource[]): string {
  if (cited.length === 0) return '';
  const lines = cited.map((source, index) => {
    const { paper } = source;
    const venue = paper.venue ? ` *${plainLine(paper.venue, 120)}*.` : '';
    const fullText = paper.pdf_id ? ` Full text: \`${paper.pdf_id.replace(/`/g, '')}\`` : '';
    // A title that ends a sentence itself ("…invasion.", "…discharge?") gets no second full stop.
    const title = plainLine(paper.title);
    return `${index + 1}. ${citationMarkdown(source)} — ${title}${/[.?!]$/.test(title) ? '' : '.'}${venue}${fullText}`;
  });
  return `\n**References**\n\n${lines.join('\n')}\n`;
}

export function normalizeSentence(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Whether a "sentence" is an entry of a bibliography rather than prose: several Vancouver-style
 * author names ("Heredia VV, Thomson J,"), a volume/issue/pages pattern ("2019;12:345", "pp. 3–9")
 * or a DOI. Chunks that continue a paper's reference list have no heading to cut them by.
 */
export function isBibliographic(sentence: string): boolean {
  const names = sentence.match(/\b\p{Lu}[\p{L}'’-]+,? (?:\p{Lu}\.? ?){1,3}[,.]/gu) ?? [];
  if (names.length >= 2) return true;
  return /\b(?:19|20)\d{2}\s*;\s*\d+|\bpp?\.\s*\d+|\bdoi:\s*10\.|\bvol\.\s*\d+/i.test(sentence);
}

/** The text of a chunk before a references/bibliography heading, if it has one. */
export function withoutBibliography(chunk: string): string {
  const heading =
    /^#{1,6}\s*(?:\d+\.?\s*)?(?:references|bibliography|literature cited|works cited)\b.*$/im.exec(chunk);
  return heading ? chunk.slice(0, heading.index) : chunk;
}
