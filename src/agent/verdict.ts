import type { ChatModelMessage } from '../ports/chat-model.js';
import { contentTerms } from '../text/keywords.js';
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
 * The retrieved records whose title and text (what the run read of them) best match `query`
 * (BM25 over the records): the best, and a second when it scores at least 80 % of the best.
 */
function bestRecords(
  query: string,
  evidence: Evidence[],
): Array<{ source: RetrievedSource; texts: string[] }> {
  const bySource = new Map<string, { source: RetrievedSource; texts: string[] }>();
  for (const item of evidence) {
    const entry = bySource.get(item.source.id) ?? { source: item.source, texts: [] };
    entry.texts.push(item.text);
    bySource.set(item.source.id, entry);
  }
  const ranked = rankPassages(
    query,
    [...bySource.values()].map((entry) => ({
      text: `${entry.source.paper.title}\n\n${entry.texts.join('\n\n')}`,
      origin: entry,
    })),
  );
  const best = ranked[0]?.score ?? 0;
  return ranked
    .filter((entry, index) => index === 0 || entry.score >= best * 0.8)
    .slice(0, 2)
    .map((entry) => entry.origin);
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
  return bestRecords(question, evidence).map((origin) => {
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
  return classificationTurn(
    classifyInstruction,
    verdictExamples.map((example) => [classifyQuestion(example.findings, example.question), example.verdict]),
    classifyQuestion(findingsText(findings), question),
  );
}

/** The findings' sentences as one paragraph ("none were found" when there are none). */
function findingsText(findings: VerdictFindings[]): string {
  const text = findings
    .map((entry) => entry.sentences.join(' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text || 'none were found';
}

/** A classification turn: the instruction, each worked example as an exchange, then the asked item. */
function classificationTurn(
  instruction: string,
  examples: Array<[string, string]>,
  asked: string,
): ChatModelMessage[] {
  return [
    { role: 'system', content: instruction },
    ...examples.flatMap(([question, reply]): ChatModelMessage[] => [
      { role: 'user', content: question },
      { role: 'assistant', content: reply },
    ]),
    { role: 'user', content: asked },
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
 * Makes a streamed answer start with a decided lead (a verdict, an option): the model's own opening,
 * when it states a lead of its kind (`strip` removes it, with its punctuation and emphasis), is
 * replaced by the decided one, so the answer never opens with a different one. Text is held back
 * only until `ready` says enough of the opening is known (or the turn ends).
 */
export class AnswerLead {
  private pending = '';
  private decided = false;

  constructor(
    private readonly lead: string,
    private readonly strip: (opening: string) => string,
    private readonly ready: (opening: string) => boolean,
  ) {}

  push(text: string): string {
    if (this.decided) return text;
    this.pending += text;
    if (!this.ready(this.pending.trimStart())) return '';
    return this.emit();
  }

  end(): string {
    if (this.decided) return '';
    return this.emit();
  }

  private emit(): string {
    this.decided = true;
    const rest = this.strip(this.pending.trimStart());
    this.pending = '';
    const body = rest.replace(/^\p{Ll}/u, (letter) => letter.toUpperCase());
    return `${this.lead}${body ? ` ${body}` : ''}`;
  }
}

/**
 * Makes a streamed answer start with the verdict: the model's own leading "Yes"/"No"/"Maybe" (with
 * its punctuation and emphasis) is replaced by the verdict the constrained step chose. Text is held
 * back only until its first word is known.
 */
export class VerdictLead extends AnswerLead {
  constructor(verdict: Verdict) {
    super(
      `${capitalized(verdict)}.`,
      (opening) => opening.replace(/^[*_"'`]*(?:yes|no|maybe)\b[*_"'`]*[.,:;!—–-]*[*_"'`]*\s*/i, ''),
      // Wait for the first word and what follows it (up to a few characters of emphasis).
      (opening) => /^[*_"'`]*[\p{L}]+[^\p{L}]/u.test(opening) || opening.length >= 24,
    );
  }
}

/** One lettered option of a multiple-choice question: "(B) gentamicin". */
export interface LetteredOption {
  letter: string;
  text: string;
}

/** A question that asks to choose one of its lettered options. */
export interface MultipleChoice {
  /** The question, without its options and the instructions after them. */
  question: string;
  options: LetteredOption[];
}

const optionLetters = 'ABCDEFG';

/**
 * The multiple-choice question a user's message asks, or undefined: at least two lines that list
 * options lettered from A on ("(A) …", "A) …" or "A. …", the form `yesNoQuestion` recognises),
 * one a line, in order. The question is the text before the first option.
 */
export function letteredOptions(message: string): MultipleChoice | undefined {
  const lines = message.split('\n');
  const options: LetteredOption[] = [];
  let first = -1;
  for (const [index, line] of lines.entries()) {
    const match = /^\s*\(?([A-G])[).]\s+(\S.*?)\s*$/.exec(line);
    const letter = match?.[1];
    if (letter && letter === optionLetters[options.length]) {
      if (options.length === 0) first = index;
      options.push({ letter, text: match?.[2] ?? '' });
    } else if (options.length > 0) {
      break;
    }
  }
  if (options.length < 2) return undefined;
  const question = lines.slice(0, first).join(' ').replace(/\s+/g, ' ').trim();
  return { question, options };
}

/** Text read for one option: chunks of a record's full text ranked by the question with that option. */
export interface OptionReading {
  letter: string;
  /** The ledger id of the record the texts are of. */
  sourceId: string;
  texts: string[];
}

/**
 * The passages an option step reads: of the full text the run read (`ask_pdf`, `read_full_text`),
 * else of the abstracts, the record that best matches the question with its options (and a second
 * one matching nearly as well, as `verdictFindings`), and in it the sentences that best match the
 * question with its options and, for each option, the sentence that best matches the option itself
 * (a sentence naming it is what tells the options apart). With `readings` (chunks read for each
 * option, `OptionReading`), an option's sentences are instead the `perOption` sentences of its own
 * chunks that best match the question with that option, and they come first. At most `maxChars`
 * characters per record (default 1,500; 2,000 with `readings`), in the record's own order.
 */
export function optionFindings(
  choice: MultipleChoice,
  evidence: Evidence[],
  options: {
    matching?: number;
    maxChars?: number;
    readings?: OptionReading[];
    perOption?: number;
    /**
     * With `readings`: each option's sentences start with the one of its chunks that best names it
     * by a term no other option has (`distinctiveTerms`), ranked by the question with those terms,
     * then its `perOption` sentences as without (a second view of the same reading, see
     * `ToolAgentOptions.optionViews`).
     */
    naming?: boolean;
  } = {},
): VerdictFindings[] {
  const matching = options.matching ?? 4;
  const perOption = options.perOption ?? 2;
  // Room for each option's own sentences beside the question's.
  const maxChars = options.maxChars ?? (options.readings?.length ? 2000 : 1500);
  const fullText = evidence.filter((item) => item.kind === 'fulltext');
  const pool = fullText.length > 0 ? fullText : evidence;
  const query = [choice.question, ...choice.options.map((option) => option.text)].join(' ');
  return bestRecords(query, pool).map((origin) => {
    const sentences = origin.texts
      .flatMap((text) => splitSentences(text))
      .map((text, index) => ({ text, origin: index }));
    // Fragments and run-on extraction artefacts left out, as `rankSentences` does.
    const candidates = sentences.filter((entry) => entry.text.length >= 30 && entry.text.length <= 500);
    const rankAmong = (terms: string, among = candidates) =>
      rankPassages(terms, among).map((entry) => entry.origin);
    const readings = (options.readings ?? []).filter((reading) => reading.sourceId === origin.source.id);
    const wanted: number[] = [];
    for (const option of choice.options) {
      const read = new Set(
        readings
          .filter((reading) => reading.letter === option.letter)
          .flatMap((reading) => reading.texts.flatMap((text) => splitSentences(text))),
      );
      if (read.size > 0) {
        const own = candidates.filter((entry) => read.has(entry.text));
        const ranked = rankAmong(`${choice.question} ${option.text}`, own).slice(0, perOption);
        if (options.naming) {
          const distinct = distinctiveTerms(option, choice.options);
          const naming = own.filter((entry) =>
            contentTerms(entry.text).some((term) => distinct.has(looseTerm(term))),
          );
          wanted.push(...rankAmong(`${choice.question} ${[...distinct].join(' ')}`, naming).slice(0, 1));
        }
        wanted.push(...ranked);
      }
    }
    wanted.push(...rankAmong(query).slice(0, matching));
    for (const option of choice.options) {
      if (readings.some((reading) => reading.letter === option.letter)) continue;
      const top = rankAmong(option.text)[0];
      if (top !== undefined) wanted.push(top);
    }
    const keep: number[] = [];
    let length = 0;
    for (const index of wanted) {
      if (keep.includes(index)) continue;
      const sentence = sentences[index]?.text ?? '';
      if (length + sentence.length > maxChars && keep.length > 0) continue;
      keep.push(index);
      length += sentence.length + 1;
    }
    return {
      source: origin.source,
      sentences: keep.sort((a, b) => a - b).map((index) => sentences[index]?.text ?? ''),
    };
  });
}

/**
 * The content terms of an option that no other option of the question has (stemmed, see
 * `looseTerm`): "Supercoiled and doubly tethered (Y-shape)" beside "Relaxed and doubly tethered
 * (J-shape)" gives {supercoil}. A sentence holding one says something of this option alone, where a
 * sentence listing every option tells them apart no better than the question does. Empty when the
 * option has no term of its own (a one-letter word such as the Y of "Y-shape" is not a term).
 */
export function distinctiveTerms(option: LetteredOption, options: LetteredOption[]): Set<string> {
  const shared = new Set(
    options
      .filter((other) => other.letter !== option.letter)
      .flatMap((other) => contentTerms(other.text).map(looseTerm)),
  );
  return new Set(
    contentTerms(option.text)
      .map(looseTerm)
      .filter((term) => !shared.has(term)),
  );
}

/** A stem without a final "e", so "shape" and "shaped" (stemmed "shap") meet. */
function looseTerm(term: string): string {
  return term.length > 3 && term.endsWith('e') ? term.slice(0, -1) : term;
}

/**
 * Worked examples for the option step's classification turn, written for this project (not taken
 * from any benchmark): passages, a question with lettered options, and the letter they call for.
 * Their letters differ (C, B), so neither example teaches a favourite position.
 */
const optionExamples: ReadonlyArray<{ passages: string; choice: MultipleChoice; letter: string }> = [
  {
    passages:
      'Wild-type plants flowered 30 days after sowing under long days. Plants lacking FLC flowered after 18 days, and plants lacking SOC1 after 41 days.',
    choice: {
      question: 'Loss of which gene made the plants flower earlier?',
      options: [
        { letter: 'A', text: 'SOC1' },
        { letter: 'B', text: 'FT' },
        { letter: 'C', text: 'FLC' },
        { letter: 'D', text: 'CO' },
      ],
    },
    letter: 'C',
  },
  {
    passages:
      'Of 212 patients screened, 148 were enrolled and randomised to the two arms; 131 completed the six-month follow-up.',
    choice: {
      question: 'How many patients were randomised?',
      options: [
        { letter: 'A', text: '212' },
        { letter: 'B', text: '148' },
        { letter: 'C', text: '131' },
        { letter: 'D', text: '81' },
      ],
    },
    letter: 'B',
  },
];

const optionInstruction =
  'You answer a multiple-choice question about a study from passages of its text. Reply with the letter of the option the passages support; when no passage names the answer outright, the letter of the option most consistent with them.';

const optionQuestion = (passages: string, choice: MultipleChoice) =>
  `Passages: "${passages}"\nQuestion: ${choice.question}\n${choice.options
    .map((option) => `(${option.letter}) ${option.text}`)
    .join('\n')}\nReply with the letter of the right option.`;

/**
 * The option step's classification turn: a conversation of its own (`ChatTurnRequest.isolated`),
 * the instruction and two worked examples, then the passages, the question and its options. Its
 * choices are the option letters (`optionChoices`).
 */
export function optionClassificationMessages(
  choice: MultipleChoice,
  findings: VerdictFindings[],
): ChatModelMessage[] {
  return classificationTurn(
    optionInstruction,
    optionExamples.map((example) => [optionQuestion(example.passages, example.choice), example.letter]),
    optionQuestion(findingsText(findings), choice),
  );
}

/**
 * The choice with its options moved `shift` letters on, cyclically: the option lettered at position
 * i is shown at position (i + shift) mod n. Asking once per shift puts each option at each letter,
 * so a small model's favourite letter no longer decides (see `meanOverShifts`).
 */
export function shiftedChoice(choice: MultipleChoice, shift: number): MultipleChoice {
  const count = choice.options.length;
  return {
    question: choice.question,
    options: choice.options.map((_, position) => ({
      letter: optionLetters[position] ?? String(position),
      text: choice.options[(((position - shift) % count) + count) % count]?.text ?? '',
    })),
  };
}

/**
 * Each option's mean probability over the shifted askings, keyed by its own letter in `choice`:
 * `perShift[s]` holds the letters' probabilities of `shiftedChoice(choice, s)`. Undefined when an
 * asking lacks a letter's probability.
 */
export function meanOverShifts(
  choice: MultipleChoice,
  perShift: Array<Record<string, number> | undefined>,
): Record<string, number> | undefined {
  const count = choice.options.length;
  // Each shift's probabilities by the letter each option has unshifted; undefined if one is missing.
  const unshifted = perShift.map((probabilities, shift) => {
    const entries = choice.options.map((option, position) => [
      option.letter,
      probabilities?.[optionLetters[(position + shift) % count] ?? ''],
    ]);
    return entries.every(([, probability]) => typeof probability === 'number' && Number.isFinite(probability))
      ? (Object.fromEntries(entries) as Record<string, number>)
      : undefined;
  });
  return meanOfRecords(unshifted);
}

/**
 * The mean of several views' probabilities per option letter (`meanOverShifts` of each view);
 * undefined when any view has none (the option is then read from the first reply's text).
 */
export function meanOfRecords(
  records: Array<Record<string, number> | undefined>,
): Record<string, number> | undefined {
  if (records.length === 0 || records.some((record) => record === undefined)) return undefined;
  const sums = new Map<string, number>();
  for (const record of records as Array<Record<string, number>>)
    for (const [key, value] of Object.entries(record)) sums.set(key, (sums.get(key) ?? 0) + value);
  return Object.fromEntries([...sums.entries()].map(([key, sum]) => [key, sum / records.length]));
}

/** The replies the option step allows: the options' letters. */
export function optionChoices(choice: MultipleChoice): string[] {
  return choice.options.map((option) => option.letter);
}

/**
 * The option the model's probabilities of the letters favour (ties in the letters' order), or
 * undefined without a probability for every letter.
 */
export function chooseOption(
  choice: MultipleChoice,
  probabilities: Record<string, number> | undefined,
): LetteredOption | undefined {
  if (!probabilities) return undefined;
  let best: { option: LetteredOption; probability: number } | undefined;
  for (const option of choice.options) {
    const probability = probabilities[option.letter];
    if (typeof probability !== 'number' || !Number.isFinite(probability)) return undefined;
    if (!best || probability > best.probability) best = { option, probability };
  }
  return best?.option;
}

/** The option a reply names by its letter first ("B", "(B)", "**B.**"), or undefined. */
export function parseOption(choice: MultipleChoice, text: string): LetteredOption | undefined {
  const letter = /^[\s*_"'`]*\(?([A-G])(?![\p{L}\d])/u.exec(text)?.[1];
  return choice.options.find((option) => option.letter === letter);
}

/** An option as the answer states it: "(B) gentamicin." */
export function optionStatement(option: LetteredOption): string {
  const text = option.text.trim();
  return `(${option.letter}) ${text}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/** The instruction after the option step: write the answer, starting with the option, explained and cited. */
export function afterOptionPrompt(option: LetteredOption): string {
  return `The passages point to option (${option.letter}). Now write the answer: start with "${optionStatement(option)}" and then explain it in 2-3 sentences from what you read, citing the record of each statement as instructed.`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The part of an answer's opening that states an option, the model's own way: "(B)", "B)", "**B**",
 * "B." before the option's text, "The answer is B:", each perhaps followed by the option's text, or
 * the option's text alone before a punctuation mark. Returns the opening without it (unchanged when
 * it states none; "A. baumannii evolved …" is not option A).
 */
function stripOptionOpening(opening: string, options: LetteredOption[]): string {
  const start = /^[*_"'`#>\s]*/.exec(opening)?.[0].length ?? 0;
  const text = opening.slice(start);
  const prefix =
    /^(?:the\s+)?(?:(?:correct|right|best)\s+)?(?:answer|option|choice)(?:\s+is)?\s*:?\s*[*_"'`]*/i.exec(
      text,
    );
  const afterPrefix = prefix ? text.slice(prefix[0].length) : text;
  const trailing = /^[*_"'`]*[.,:;!—–-]*[*_"'`]*\s*/;
  const skip = (rest: string) => rest.slice(trailing.exec(rest)?.[0].length ?? 0);
  for (const option of options) {
    const { letter } = option;
    const statement = escapeRegExp(option.text.trim().replace(/[.!?]$/, ''));
    const letterForm = new RegExp(
      prefix
        ? `^(?:\\(${letter}\\)|${letter}(?![\\p{L}\\d]))`
        : `^(?:\\(${letter}\\)|${letter}\\)|${letter}[.:]?(?=[*_]{1,2}(?![\\p{L}\\d]))|${letter}[.:](?=[*_"'\`]*\\s*(?:${statement})(?![\\p{L}\\d])|[*_"'\`]*\\s*$))`,
      'u',
    ).exec(afterPrefix);
    if (letterForm) {
      let rest = afterPrefix.slice(letterForm[0].length);
      rest = rest.replace(/^[*_"'`]*[.,:;—–-]?\s*/, '');
      const named = new RegExp(`^[*_"'\`]*${statement}(?![\\p{L}\\d])`, 'iu').exec(rest);
      if (named) rest = rest.slice(named[0].length);
      return skip(rest);
    }
  }
  // The option's text alone, closed by a punctuation mark ("Gentamicin. The strain …").
  for (const option of options) {
    const statement = escapeRegExp(option.text.trim().replace(/[.!?]$/, ''));
    const named = new RegExp(`^${statement}[*_"'\`]*(?=[.,:;!—–-]|\\s*$)`, 'iu').exec(afterPrefix);
    if (named) return skip(afterPrefix.slice(named[0].length));
  }
  return opening;
}

/**
 * Makes a streamed answer start with the option the option step chose, "(B) gentamicin.", in place
 * of the option the model's own opening states (any of them). Text is held back until the opening
 * is long enough to hold the longest option with its letter, or the turn ends.
 */
export class OptionLead extends AnswerLead {
  constructor(option: LetteredOption, choice: MultipleChoice) {
    const hold = Math.min(240, Math.max(...choice.options.map((entry) => entry.text.length)) + 24);
    super(
      optionStatement(option),
      (opening) => stripOptionOpening(opening, choice.options),
      (opening) => opening.length >= hold,
    );
  }
}
