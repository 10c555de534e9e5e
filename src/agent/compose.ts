import { contentTerms } from './keywords.js';
import { plainLine, quotePaperText } from './markdown-text.js';
import { rankSentences } from './sentences.js';
import { citationMarkdown, type Evidence, type RetrievedSource } from './source-ledger.js';

/** A sentence chosen for an extractive answer, with where it came from. */
export interface SelectedSentence {
  text: string;
  evidence: Evidence;
  score: number;
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
 * record, no repeats, and only sentences that share enough terms with the question (two, or one
 * when the question has a single term) and score at least a quarter of the best one.
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
  const needed = Math.min(2, new Set(contentTerms(question)).size);
  const perSource = new Map<string, number>();
  const used = options.exclude ?? new Set<string>();
  const chosen: SelectedSentence[] = [];
  for (const entry of ranked) {
    if (chosen.length >= options.max) break;
    if (entry.matched < needed || entry.score < best * 0.25) continue;
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
  const where = evidence.kind === 'fulltext' && evidence.chunk ? ` (chunk ${evidence.chunk})` : '';
  return `- “${quotePaperText(sentence.text)}” ${citationMarkdown(evidence.source)}${where}\n`;
}

/** The references list of an answer: the cited records, numbered in order of first citation. */
export function referencesSection(cited: RetrievedSource[]): string {
  if (cited.length === 0) return '';
  const lines = cited.map((source, index) => {
    const { paper } = source;
    const venue = paper.venue ? ` *${plainLine(paper.venue, 120)}*.` : '';
    const fullText = paper.pdf_id ? ` Full text: \`${paper.pdf_id.replace(/`/g, '')}\`` : '';
    return `${index + 1}. ${citationMarkdown(source)} — ${plainLine(paper.title)}.${venue}${fullText}`;
  });
  return `\n**References**\n\n${lines.join('\n')}\n`;
}

export function normalizeSentence(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
