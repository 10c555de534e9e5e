import { words as wordsOf } from '../text/analyzer.js';
import { agentTerm, contentTerms } from '../text/keywords.js';
import { splitSentences } from '../text/sentences.js';
import type { Verdict } from './verdict.js';

/** A sentence of an answer that says the opposite of the answer's verdict. */
export interface VerdictConflict {
  verdict: Verdict;
  /** The answer's sentence, as written (its links kept out). */
  sentence: string;
  /** What the sentence does to the question's claim. */
  stance: 'affirms' | 'denies';
}

/** Words that negate what follows them in a sentence. */
const negation =
  /\b(?:not|no|never|neither|nor|without|cannot|none|lacks?|lacked|lacking|fail(?:s|ed)? to|absence|absent)\b|n['’]t\b/gi;

/**
 * Words that leave a sentence's stance open (a possibility, a condition, a concession between two
 * clauses): such a sentence neither affirms nor denies the claim, so it contradicts no verdict.
 */
const openStance =
  /\b(?:may|might|could|whether|unclear|uncertain|if|although|though|whereas|while|inconclusive|mixed|conflicting)\b/i;

/** Prefixes that make a word its opposite ("unstable" of "stable"). */
const oppositePrefixes = ['un', 'in', 'im', 'non', 'dis', 'ir', 'il'];

/** The frame of a yes/no question that is no part of its claim ("Is it true that …"). */
const frameWords = new Set(['true', 'correct', 'case', 'fact']);

/** Prepositions that open a modifier of the claim ("on small datasets", "in diabetic patients"). */
const preposition =
  /\b(?:in|on|at|for|with|among|amongst|of|after|before|during|from|by|than|under|over|between|within|without|versus|vs|compared)\b/i;

/** The terms of a clause up to its first preposition: its subject and predicate, not their modifiers. */
function coreTerms(clause: string): string[] {
  const cut = preposition.exec(clause);
  return contentTerms(cut ? clause.slice(0, cut.index) : clause).filter((term) => !frameWords.has(term));
}

/**
 * The question's claim: the content terms (stemmed) of its subject and predicate — the last clause
 * up to its first preposition ("Is BERT fine-tuning unstable" of "… on small datasets?"), with the
 * clause before a colon when the last one names fewer than two ("Double reading of barium enemas: is
 * it necessary?") — and how many negations the question itself has ("Is X not …?").
 */
function claimOf(question: string): { terms: string[]; negations: number } {
  const clauses = question.split(/[:.]\s+|\s+--\s*|\s+-\s+/).filter((clause) => /\p{L}/u.test(clause));
  const last = clauses.at(-1) ?? question;
  let terms = coreTerms(last);
  if (terms.length < 2 && clauses.length > 1) terms = [...coreTerms(clauses.at(-2) ?? ''), ...terms];
  return { terms: [...new Set(terms)], negations: question.match(negation)?.length ?? 0 };
}

/** Whether `term` is `target` with an opposite prefix, or `target` is `term` with one. */
function opposite(term: string, target: string): boolean {
  return oppositePrefixes.some(
    (prefix) =>
      (term === prefix + target && target.length >= 4) || (target === prefix + term && term.length >= 4),
  );
}

/**
 * What a sentence does to the claim: it speaks to the claim when it has every term of the claim (a
 * term or its opposite, "stable" for "unstable"), at least two; its stance is
 * then the parity of its negations and opposite terms against the question's own negations.
 * Undefined when it does not speak to the claim or leaves its stance open ("may", "whether", a
 * concession).
 */
export function stanceOf(question: string, sentence: string): 'affirms' | 'denies' | undefined {
  const claim = claimOf(question);
  if (claim.terms.length === 0) return undefined;
  // The verdict word that opens an answer ("No." / "Yes, …") is the verdict, not a statement.
  const text = sentence
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '')
    .replace(/^\s*(?:yes|no|maybe)\b[.,:;!—–-]*\s*/i, '');
  if (openStance.test(text) || text.trim().endsWith('?')) return undefined;
  const words = [...new Set(wordsOf(text).map(agentTerm))];
  let matched = 0;
  let flips = 0;
  for (const term of claim.terms) {
    if (words.includes(term)) matched += 1;
    else if (words.some((word) => opposite(word, term))) {
      matched += 1;
      flips += 1;
    }
  }
  if (matched < 2 || matched < claim.terms.length) return undefined;
  const negations = text.match(negation)?.length ?? 0;
  return (negations + flips + claim.negations) % 2 === 0 ? 'affirms' : 'denies';
}

/**
 * The first sentence of an answer that contradicts its verdict: a "no" answer with a sentence that
 * affirms the question's claim ("No. … This indicates that BERT fine-tuning is unstable" for "Is
 * BERT fine-tuning unstable on small datasets?"), or a "yes" answer with one that denies it.
 * "Maybe" contradicts nothing.
 */
export function verdictConflict(
  question: string,
  verdict: Verdict,
  answer: string,
): VerdictConflict | undefined {
  if (verdict === 'maybe') return undefined;
  const against = verdict === 'yes' ? 'denies' : 'affirms';
  for (const sentence of splitSentences(answer)) {
    if (stanceOf(question, sentence) === against)
      return {
        verdict,
        sentence: sentence
          .replace(/\[([^\]]*)\]\([^)]*\)/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
        stance: against,
      };
  }
  return undefined;
}

/** The sentence added to an answer that contradicts its verdict: the evidence is mixed. */
export function mixedEvidenceNote(conflict: VerdictConflict): string {
  const word = conflict.verdict === 'yes' ? 'Yes' : 'No';
  const quoted = conflict.sentence.replace(/[*_]/g, '').slice(0, 300);
  return `\n\n*(The evidence is mixed: this answer opens with "${word}", but it also says "${quoted}".)*\n`;
}
