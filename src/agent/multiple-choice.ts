// Multiple-choice questions (lettered options): what the option step reads, its turn, the chosen letter.
import type { ChatModelMessage } from '../ports/chat-model.js';
import { rankPassages, splitSentences } from '../text/sentences.js';
import type { LetteredOption, MultipleChoice } from './question-kind.js';
import type { Evidence } from './source-ledger.js';
import { bestRecords, classificationTurn, findingsText, type VerdictFindings } from './verdict.js';

/**
 * The passages an option step reads: of the full text the run read (`ask_pdf`, `read_full_text`),
 * else of the abstracts, the record that best matches the question with its options (and a second
 * one matching nearly as well, as `verdictFindings`), and in it the sentences that best match the
 * question with its options and, for each option, the sentence that best matches the option itself.
 * At most `maxChars` characters per record (default 1,500), in the record's own order.
 */
export function optionFindings(
  choice: MultipleChoice,
  evidence: Evidence[],
  options: { matching?: number; maxChars?: number } = {},
): VerdictFindings[] {
  const matching = options.matching ?? 4;
  const maxChars = options.maxChars ?? 1500;
  const fullText = evidence.filter((item) => item.kind === 'fulltext');
  const pool = fullText.length > 0 ? fullText : evidence;
  const query = [choice.question, ...choice.options.map((option) => option.text)].join(' ');
  return bestRecords(query, pool).map((origin) => {
    const sentences = origin.texts
      .flatMap((text) => splitSentences(text))
      .map((text, index) => ({ text, origin: index }));
    // Fragments and run-on extraction artefacts left out, as `rankSentences` does.
    const candidates = sentences.filter((entry) => entry.text.length >= 30 && entry.text.length <= 500);
    const rankAmong = (terms: string) => rankPassages(terms, candidates).map((entry) => entry.origin);
    const wanted = rankAmong(query).slice(0, matching);
    for (const option of choice.options) {
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
