import { stemmer } from 'stemmer';

/**
 * The one analyzer of the product (issue 39, decision 0057; Lucene's `Analyzer` is the model): text
 * is folded (lower case, diacritics off), cut into tokens, stop words are dropped and the rest is
 * stemmed by Porter's algorithm (the `stemmer` package). Two settings of the same pipeline:
 *
 * - `indexTerms`: what the paper index holds. Bound to SQLite FTS5's `porter unicode61
 *   remove_diacritics 2` (PostgreSQL's documents must hold the same terms): no stop words, every
 *   token kept, only Latin letters lose their diacritics, tokens of 3 to 64 characters stemmed.
 *   `test/contract/index-tokenizer.test.ts` compares it with FTS5's own tokens on real corpora.
 * - `analyze`: what in-memory ranking compares (a question against passages or sentences, the
 *   agent's keywords): compatibility folding, stop words out, a possessive "'s" dropped, words with
 *   digits ("A456V", "p53", "Rev1") kept whole, since they are often the point of a question.
 */

/** Runs of letters, digits and private-use characters: FTS5 unicode61's token characters. */
const indexTokenRun = /[\p{L}\p{N}\p{Co}]+/gu;
/** A word: letters and digits, an apostrophe inside it kept ("don't" is one stop word). */
const wordRun = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const combiningMarks = /\p{M}+/gu;
const plainWord = /^[\p{L}\p{N}]+$/u;
const digit = /\d/;

/** The index terms of `text`, in order, with repeats (never drops a token). */
export function indexTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of foldLatin(text).matchAll(indexTokenRun)) terms.push(stem(match[0]));
  return terms;
}

/** What `analyze` drops besides function words, and how far it stems. */
export interface AnalyzeOptions {
  /** Also drop the words of asking about the literature ("describe", "study", "role"): the agent's questions. */
  askingWords?: boolean;
  /**
   * `porter` (the default): Porter's stems, as the index and the rankers compare words.
   * `minimal`: inflections only (plurals, -ing, -ed, -ance/-ence and -ant/-ent), for decisions that a
   * text speaks of the same thing as a question ("is this record related?", "does this message
   * continue that one?"), where Porter's wider classes join unrelated words ("general" and
   * "generation", "operation" and "operative") and make two texts look related (decision 0057).
   */
  stemming?: Stemming;
}

export type Stemming = 'porter' | 'minimal';

/**
 * The content terms of `text` for in-memory ranking, in order, with repeats (for term frequencies):
 * stop words and one-letter words out (but a lone digit stays), the rest stemmed unless it holds a
 * digit.
 */
export function analyze(text: string, options: AnalyzeOptions = {}): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    if (isStopword(word, options) || (word.length < 2 && !digit.test(word))) continue;
    terms.push(termOf(word, options.stemming));
  }
  return terms;
}

/** The folded words of `text`, in order, a possessive "'s" dropped; no stop words removed, no stems. */
export function words(text: string): string[] {
  const found: string[] = [];
  for (const match of foldCompatible(text).matchAll(wordRun)) found.push(match[0].replace(/['’]s$/, ''));
  return found;
}

/** Whether `word` (folded, as `words` gives it) carries no topic. */
export function isStopword(word: string, options: AnalyzeOptions = {}): boolean {
  return functionWords.has(word) || (options.askingWords === true && askingWords.has(word));
}

/** The term a folded word stands for: its stem, or the word itself when it holds a digit ("p53s"). */
export function termOf(word: string, stemming: Stemming = 'porter'): string {
  if (digit.test(word)) return word;
  return stemming === 'minimal' ? minimalStem(word) : stem(word);
}

/**
 * The inflection a folded word carries, taken off: plural "-s"/"-ies"/"-sses", "-ing", "-ed", and the
 * "-ance"/"-ence" and "-ant"/"-ent" pairs ("resistant" and "resistance" → "resist"). Words of three
 * letters or fewer stay as they are.
 */
export function minimalStem(word: string): string {
  const n = word.length;
  if (n <= 3) return word;
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('ing') && n > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && n > 4) return word.slice(0, -2);
  if (n >= 7 && /(?:ance|ence)$/.test(word)) return word.slice(0, -4);
  if (n >= 7 && /(?:ant|ent)$/.test(word)) return word.slice(0, -3);
  return word;
}

/**
 * Porter's stem of a folded token ("resistant" and "resistance" → "resist"). Tokens shorter than 3
 * or longer than 64 characters, and tokens holding anything but letters and digits, stay as they are
 * (FTS5's porter tokenizer does the same).
 */
export function stem(token: string): string {
  if (token.length < 3 || token.length > 64) return token;
  let stemmed = stems.get(token);
  if (stemmed === undefined) {
    stemmed = plainWord.test(token) ? stemmer(token) : token;
    if (stems.size >= 500_000) stems.clear();
    stems.set(token, stemmed);
  }
  return stemmed;
}

/** Stems of tokens seen so far: real text repeats its words, and the stemmer is the costly part. */
const stems = new Map<string, string>();

/** Lower case, diacritics off Latin letters only (FTS5's `remove_diacritics 2`). */
function foldLatin(text: string): string {
  const lower = text.toLowerCase();
  // Fast path: ASCII text has nothing to strip.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (/^[\u0000-\u007f]*$/.test(lower)) return lower;
  return lower.replace(/[\u00c0-\u024f\u1e00-\u1eff]/g, (char) =>
    char.normalize('NFD').replace(combiningMarks, ''),
  );
}

/** Lower case after compatibility decomposition: every mark off, ligatures ("ﬁ") spelled out. */
function foldCompatible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (/^[\u0000-\u007f]*$/.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(combiningMarks, '').toLowerCase();
}

/** English function words (Lucene's English list and more): they carry no topic anywhere. */
const functionWords = wordSet(
  `a about above after again against all also am an and any are aren't as at be because been before
  being below between both but by can cannot can't could did didn't do does doesn't doing don't done
  down during each either few for from further had has have having he her here hers herself him
  himself his how however i if in into is isn't it its itself just let like may me might more most
  must my myself no nor not now of off on once only or other others our ours ourselves out over own
  per same shall she should since so some such than that the their theirs them themselves then there
  these they this those through thus to too under until up upon us very via was wasn't we were
  weren't what when where whether which while who whom whose why will with within without won't
  would yet you your yours yourself yourselves`,
);

/**
 * Words of asking about the literature ("describe", "evidence", "study", "role"): no topic in a
 * question to the agent. The question ranker keeps them (dropping "paper", "propose", "used" … from
 * its BM25 gained nothing, decision 0012).
 */
const askingWords = wordSet(
  `among amongst across already always anyone anything around become becomes certain else etc
  ever every give given gives go goes got get gets know known make makes made many much need needs
  often one ones onto part particular perhaps please rather really regarding say says see seem seems
  several show shows shown tell tells thing things think two use used uses using way ways well whatever
  wherever whichever following describe described explain find found list mention mentioned paper
  papers study studies research article articles literature evidence result results according question
  answer answers based relation related relationship effect effects role roles`,
);

function wordSet(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/).filter((word) => word.length > 0));
}
