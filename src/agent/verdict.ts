import type { ChatModelMessage } from '../ports/chat-model.js';
import { rankPassages, rankSentences, splitSentences } from '../text/sentences.js';
import { citationMarkdown, type Evidence, type RetrievedSource } from './source-ledger.js';

/** The answer to a yes/no research question. */
export type Verdict = 'yes' | 'no' | 'maybe';

export const verdictChoices: readonly Verdict[] = ['yes', 'no', 'maybe'];

/** Auxiliary verbs that open a yes/no question ("Is …?", "Does …?", "Can …?"). */
const auxiliaries =
  /^(?:is|are|was|were|am|do|does|did|can|could|should|would|will|shall|has|have|had|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|cannot|couldn't|shouldn't|wouldn't|won't|hasn't|haven't|hadn't)\b/i;

/**
 * The yes/no question a user's message asks, or undefined when it asks none. A message is a yes/no
 * question when one of its questions (a sentence ending in "?", or a clause of it after a colon:
 * "Adjuvant radiation of stage III thymoma: is it necessary?") opens with an auxiliary verb, or when
 * it asks outright for "yes or no". Messages that list lettered options ("(A) …") ask to choose one:
 * not a yes/no question. Returns the question sentence itself (without format instructions around it).
 */
export function yesNoQuestion(message: string): string | undefined {
  const text = message.replace(/\s+/g, ' ').trim();
  if ((message.match(/(?:^|\n)\s*\(?[A-G][).]\s/g) ?? []).length >= 2) return undefined;
  const questions = text.match(/[^?.!]*\?/g) ?? [];
  for (const raw of questions) {
    const question = raw.trim();
    const clauses = question.split(/[:;—–]\s+|\s-\s/);
    const last = clauses.at(-1)?.trim() ?? '';
    if (auxiliaries.test(question) || auxiliaries.test(last)) return question;
  }
  if (/\byes\b[^.?!]{0,20}\bno\b/i.test(text) && questions.length > 0) return questions[0]?.trim();
  return undefined;
}

/** What the verdict step reads: the question, and the findings of the records that bear on it. */
export interface VerdictFindings {
  source: RetrievedSource;
  /** Sentences of the record, in its own order. */
  sentences: string[];
}

/**
 * The findings for a verdict: the retrieved record whose text (title and what the run read of it)
 * best matches the question, its closing sentences (where an abstract states its results and
 * conclusion) and the sentences that best match the question; a second record when it matches
 * nearly as well (80 % of the best score). At most `maxChars` characters per record.
 */
export function verdictFindings(
  question: string,
  evidence: Evidence[],
  options: { closing?: number; matching?: number; maxChars?: number } = {},
): VerdictFindings[] {
  const closing = options.closing ?? 3;
  const matching = options.matching ?? 2;
  const maxChars = options.maxChars ?? 1200;
  const bySource = new Map<string, { source: RetrievedSource; texts: string[] }>();
  for (const item of evidence) {
    const entry = bySource.get(item.source.id) ?? { source: item.source, texts: [] };
    entry.texts.push(item.text);
    bySource.set(item.source.id, entry);
  }
  const ranked = rankPassages(
    question,
    [...bySource.values()].map((entry) => ({
      text: `${entry.source.paper.title}\n\n${entry.texts.join('\n\n')}`,
      origin: entry,
    })),
  );
  const best = ranked[0]?.score ?? 0;
  const chosen = ranked.filter((entry, index) => index === 0 || entry.score >= best * 0.8).slice(0, 2);
  return chosen.map(({ origin }) => {
    const sentences = origin.texts.flatMap((text) => splitSentences(text));
    const keep = new Set<number>();
    for (let index = Math.max(0, sentences.length - closing); index < sentences.length; index += 1)
      keep.add(index);
    const matched = rankSentences(
      question,
      sentences.map((text, index) => ({ text, origin: index })),
    );
    for (const entry of matched.slice(0, matching + closing)) {
      if (keep.size >= closing + matching) break;
      keep.add(entry.origin);
    }
    const picked: string[] = [];
    let length = 0;
    // The closing sentences first when the record is long: they state what was found.
    const order = [...keep].sort((a, b) => a - b);
    for (const index of order) {
      const sentence = sentences[index] ?? '';
      if (length + sentence.length > maxChars && picked.length > 0) continue;
      picked.push(sentence);
      length += sentence.length + 1;
    }
    return { source: origin.source, sentences: picked };
  });
}

/**
 * The first instruction of the verdict step: the question and the findings quoted with their
 * record's citation; the model states in one sentence what they conclude, before it is asked for
 * the verdict (asked for one word at once, the 1.5B model said "yes" to every question, even where
 * its own answer then said "not necessary": docs/decisions/0035-local-chat-model.md).
 */
export function conclusionPrompt(question: string, findings: VerdictFindings[]): string {
  const quoted = findings
    .map(
      (entry) =>
        `Findings of ${citationMarkdown(entry.source)} (${entry.source.paper.title.replace(/\s+/g, ' ').trim()}):\n"${entry.sentences.join(' ')}"`,
    )
    .join('\n\n');
  return `Before writing the answer, weigh the evidence. The question: "${question}"
${quoted ? `\n${quoted}\n` : ''}
In one sentence, state what these findings show about the question, including any "no difference", "not significant" or "did not" result. Do not answer yes or no yet.`;
}

/**
 * The second instruction of the verdict step, after the model's conclusion: the three possible
 * replies, one word (a local model is held to it by a grammar: `ChatTurnRequest.choices`).
 */
export function verdictPrompt(question: string): string {
  return `Given that conclusion, what is the answer to the question "${question}"? Reply with one word: yes if the findings support it, no if they do not support it or contradict it, maybe if they are mixed or inconclusive.`;
}

/**
 * Most tokens of the verdict step's conclusion: one sentence is ~25-45 tokens. Not lowered: the
 * verdict reads the conclusion (a 60-token cap was tried and not kept: decision 0035).
 */
export const conclusionTokens = 100;

/**
 * Most tokens of the answer written after a verdict: the 2-3 sentences asked for take ~60-150; the
 * cap stops a small model that copies the quoted findings out at length (a whole answer's slowest
 * part then), at ~25 s of writing on 2 CPU cores.
 */
export const verdictAnswerTokens = 240;

/** The instruction after the verdict: write the answer, starting with it, explained and cited. */
export function afterVerdictPrompt(verdict: Verdict): string {
  const word = capitalized(verdict);
  return `The verdict is "${word}". Now write the answer: start with "${word}." and then explain it in 2-3 sentences from the findings, citing the record of each statement as instructed.`;
}

/**
 * Worked examples for the verdict's classification turn, written for this project (not taken from
 * any benchmark): findings and a question, and the word they call for. One per reading a small
 * model gets wrong: a measured benefit (yes), no difference (no), the opposite of what is asked
 * (no), a benefit in one subgroup only on a small sample (maybe).
 */
const verdictExamples: ReadonlyArray<{ findings: string; question: string; verdict: Verdict }> = [
  {
    findings:
      'Patients given the drug had fewer relapses over two years than those given placebo (18% vs 31%, p=0.004). Adverse events were similar in both arms.',
    question: 'Does the drug reduce relapses?',
    verdict: 'yes',
  },
  {
    findings:
      'Length of stay did not differ between the two groups (6.1 vs 6.4 days, p=0.52), and neither did readmission rates.',
    question: 'Does early mobilisation shorten hospital stay?',
    verdict: 'no',
  },
  {
    findings:
      'The score was associated with mortality in older patients (OR 2.1) but not in those under 65; the confidence intervals were wide and the sample small.',
    question: 'Does the score predict mortality?',
    verdict: 'maybe',
  },
  {
    findings:
      'Surgeons who trained on the simulator completed the task faster and made fewer errors than those who did not.',
    question: 'Does simulator training improve surgical skill?',
    verdict: 'yes',
  },
  {
    findings: 'Rates of infection were higher, not lower, in the screened group (4.2% vs 2.9%).',
    question: 'Does screening lower infection rates?',
    verdict: 'no',
  },
];

const classifyInstruction =
  'You judge whether the findings of a study answer a research question with yes, no or maybe. yes: the findings support it. no: the findings show no effect, no difference, no association, or the opposite. maybe: mixed, partial or inconclusive findings.';

const classifyQuestion = (findings: string, question: string) =>
  `Findings: "${findings}"\nQuestion: ${question}\nAnswer yes, no or maybe.`;

/**
 * The verdict's classification turn: a conversation of its own (`ChatTurnRequest.isolated`), the
 * instruction and the worked examples (a stable prefix the local model evaluates once), then the
 * findings and the question. Asked inside the research conversation, right after the model's own
 * conclusion, the 1.5B model answered "yes" to 17 of 17 "yes" items and 8 of 10 "no" items of the
 * PubMedQA goal sample; measured apart on 58 items outside it: docs/decisions/0035-local-chat-model.md.
 */
export function verdictClassificationMessages(
  question: string,
  findings: VerdictFindings[],
): ChatModelMessage[] {
  const text = findings
    .map((entry) => entry.sentences.join(' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [
    { role: 'system', content: classifyInstruction },
    ...verdictExamples.flatMap((example): ChatModelMessage[] => [
      { role: 'user', content: classifyQuestion(example.findings, example.question) },
      { role: 'assistant', content: example.verdict },
    ]),
    { role: 'user', content: classifyQuestion(text || 'none were found', question) },
  ];
}

/**
 * How much each verdict's probability counts when the model gives them (`chooseVerdict`). Equal
 * weights take the model's most probable word.
 */
export type VerdictWeights = Record<Verdict, number>;

export const equalVerdictWeights: VerdictWeights = { yes: 1, no: 1, maybe: 1 };

/**
 * The weights of the classification turn's probabilities on a local model: "no" counts 1.5 times,
 * "maybe" half. Qwen2.5-1.5B leans to "yes" after a null finding, and the examples' "maybe" draws
 * it to "maybe" on clear findings. Chosen on the PubMedQA tuning sample (30 items outside the goal's
 * sample: 22/30, against 17/30 with equal weights) and checked on 28 more items outside both
 * (19/28 against 17/28): docs/decisions/0035-local-chat-model.md.
 */
export const localVerdictWeights: VerdictWeights = { yes: 1, no: 1.5, maybe: 0.5 };

/**
 * The verdict from the model's probabilities of the three words: the largest weighted probability
 * (ties in the order yes, no, maybe). Undefined without probabilities for all three.
 */
export function chooseVerdict(
  probabilities: Record<string, number> | undefined,
  weights: VerdictWeights = equalVerdictWeights,
): Verdict | undefined {
  if (!probabilities) return undefined;
  let best: { verdict: Verdict; score: number } | undefined;
  for (const verdict of verdictChoices) {
    const probability = probabilities[verdict];
    if (typeof probability !== 'number' || !Number.isFinite(probability)) return undefined;
    const score = probability * weights[verdict];
    if (!best || score > best.score) best = { verdict, score };
  }
  return best?.verdict;
}

/** The verdict a reply names (its first word), or undefined. */
export function parseVerdict(text: string): Verdict | undefined {
  const first = /^[\s*_"'`]*(yes|no|maybe)\b/i.exec(text);
  return first?.[1]?.toLowerCase() as Verdict | undefined;
}

export function capitalized(verdict: Verdict): string {
  return `${verdict.charAt(0).toUpperCase()}${verdict.slice(1)}`;
}

/**
 * Makes a streamed answer start with the verdict: the model's own leading "Yes"/"No"/"Maybe" (with
 * its punctuation and emphasis) is replaced by the verdict the constrained step chose, so the answer
 * never opens with a different one. Text is held back only until its first word is known.
 */
export class VerdictLead {
  private pending = '';
  private decided = false;

  constructor(private readonly verdict: Verdict) {}

  push(text: string): string {
    if (this.decided) return text;
    this.pending += text;
    const trimmed = this.pending.trimStart();
    // Wait for the first word and what follows it (up to a few characters of emphasis).
    if (!/^[*_"'`]*[\p{L}]+[^\p{L}]/u.test(trimmed) && trimmed.length < 24) return '';
    return this.lead();
  }

  end(): string {
    if (this.decided) return '';
    return this.lead();
  }

  private lead(): string {
    this.decided = true;
    const trimmed = this.pending.trimStart();
    this.pending = '';
    const rest = trimmed.replace(/^[*_"'`]*(?:yes|no|maybe)\b[*_"'`]*[.,:;!—–-]*[*_"'`]*\s*/i, '');
    const body = rest.replace(/^\p{Ll}/u, (letter) => letter.toUpperCase());
    return `${capitalized(this.verdict)}.${body ? ` ${body}` : ''}`;
  }
}
