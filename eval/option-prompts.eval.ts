import { join } from 'node:path';
import type { Evidence, RetrievedSource } from '../src/agent/source-ledger.js';
import {
  type MultipleChoice,
  optionChoices,
  optionClassificationMessages,
  optionFindings,
  shiftedChoice,
} from '../src/agent/verdict.js';
import { emptyPaper } from '../src/domain/paper.js';
import type { ChatModel, ChatModelMessage } from '../src/ports/chat-model.js';
import { contentTerms } from '../src/text/keywords.js';
import { seededSample } from './agent-local.eval.js';
import type { EvalReport } from './index.js';
import { completeJsonLinesStore, readJsonLines } from './lib/jsonl.js';
import { promptEvalModel } from './lib/local-model.js';

/**
 * `npm run eval -- option-prompts`: how the option step reads passages on the local 1.5B model,
 * alone (no search, no answer), on LitQA2 items OUTSIDE the agent eval's (those whose paper is one
 * of the shared PDFs are left out). Each item's passages are its key passage between two other
 * items' key passages (as a run reads more than the one passage that answers), cut by
 * `optionFindings` as the agent cuts what it read; its options are the ideal and the distractors,
 * in an order of the item's own (seeded), so the ideal's letter varies. The model is asked once per
 * cyclic shift of the options (the ideal at each position in turn); each shift's probabilities of
 * the letters are stored per option. Tuning sample (30, seed 21; choices are made here) and check
 * sample (30 more; never used to choose). Rows are kept in `.eval/option-prompts.jsonl` (a rerun
 * asks only what is missing). ~15 s an item on 2 cores.
 */
const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');
const sampleSeed = 21;
const letters = 'ABCDEFG';

interface Item {
  id: string;
  question: string;
  ideal: string;
  distractors: string[];
  'key-passage'?: string;
  dois?: string[];
}

interface Row {
  id: string;
  sample: 'tuning' | 'check';
  /** The options in the item's order; the ideal's index is `ideal`. */
  options: string[];
  ideal: number;
  /** Per cyclic shift s (the option at index i shown at letter (i + s) mod n): p per option index. */
  shifts: number[][];
  /** Lexical support per option index: see `support`. */
  support: number[];
}

export async function optionPromptsEval(options: { quick: boolean }): Promise<EvalReport> {
  const name = 'Option step on the local model (LitQA2 items outside the agent eval, key passage given)';
  const opened = promptEvalModel(name);
  if ('skipped' in opened) return opened.skipped;
  const { model } = opened;
  const all = await readJsonLines<Item>(join(sharedData, 'eval', 'litqa2', 'litqa2_public.jsonl'));
  const pdfItems = await readJsonLines<{ litqa2_id: string; doi: string }>(
    join(sharedData, 'eval', 'pdf_qa', 'litqa2_pdf_questions.jsonl'),
  );
  const pdfDois = new Set(pdfItems.map((item) => item.doi.toLowerCase()));
  const pdfIds = new Set(pdfItems.map((item) => item.litqa2_id));
  const usable = all.filter(
    (item) =>
      item['key-passage'] &&
      item.distractors.length > 0 &&
      1 + item.distractors.length <= letters.length &&
      !pdfIds.has(item.id) &&
      !(item.dois ?? []).some((doi) => pdfDois.has(doi.toLowerCase())),
  );
  const order = seededSample(usable, usable.length, sampleSeed);
  const perSample = options.quick ? 5 : 30;
  const asked = [
    ...order.slice(0, perSample).map((item) => ({ item, sample: 'tuning' as const })),
    ...order.slice(30, 30 + perSample).map((item) => ({ item, sample: 'check' as const })),
  ];
  const rows = await completeJsonLinesStore(
    join('.eval', 'option-prompts.jsonl'),
    asked,
    { wantedKey: ({ item }) => item.id, rowKey: (row: Row) => row.id },
    ({ item, sample }, index) => {
      const neighbours = [order[(index + 40) % order.length], order[(index + 41) % order.length]];
      return askItem(model, item, sample, index, neighbours as Item[]);
    },
  ).finally(() => model.close());
  const scored = asked.map(({ item }) => rows.get(item.id) as Row);
  const counts = {
    tuning: scored.filter((row) => row.sample === 'tuning').length,
    check: scored.filter((row) => row.sample === 'check').length,
  };
  const rules: Array<[string, (row: Row) => number[]]> = [
    ['one order (the shipped step)', (row) => row.shifts[0] ?? []],
    ['two orders (shift 0 and n/2), mean p', (row) => meanOf([row.shifts[0], row.shifts[half(row)]])],
    ['every cyclic shift, mean p', (row) => meanOf(row.shifts)],
    ['every cyclic shift, mean log p', (row) => meanOf(row.shifts.map((shift) => shift.map(safeLog)))],
    ['lexical support alone (no model)', (row) => row.support],
    ['every shift, mean p + 0.25 × support', (row) => mix(meanOf(row.shifts), row.support, 0.25)],
    ['every shift, mean p + 0.5 × support', (row) => mix(meanOf(row.shifts), row.support, 0.5)],
    ['one order, p + 0.5 × support', (row) => mix(row.shifts[0] ?? [], row.support, 0.5)],
  ];
  const metrics: Record<string, number> = {};
  const lines: string[] = [];
  const correct = (sample: Row['sample'], rule: (row: Row) => number[]) =>
    scored.filter((row) => row.sample === sample && argmax(rule(row)) === row.ideal).length;
  for (const [label, rule] of rules) {
    const tuned = correct('tuning', rule);
    const checked = correct('check', rule);
    lines.push(`${label}: ${tuned}/${counts.tuning} · ${checked}/${counts.check}`);
    metrics[`${label} (check)`] = checked / Math.max(1, counts.check);
  }
  // Where the model's single-order choice falls, by letter: a position bias shows here.
  const chosenLetters = new Map<string, number>();
  const idealLetters = new Map<string, number>();
  for (const row of scored) {
    for (const [shift, probabilities] of row.shifts.entries()) {
      const chosen = argmax(probabilities);
      const letter = letters[(chosen + shift) % row.options.length] ?? '?';
      chosenLetters.set(letter, (chosenLetters.get(letter) ?? 0) + 1);
      const ideal = letters[(row.ideal + shift) % row.options.length] ?? '?';
      idealLetters.set(ideal, (idealLetters.get(ideal) ?? 0) + 1);
    }
  }
  const tally = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([letter, count]) => `${letter} ${count}`)
      .join(', ');
  lines.push(
    `letters chosen over every shift: ${tally(chosenLetters)} (the ideal's: ${tally(idealLetters)})`,
  );
  return {
    name,
    metrics,
    summary: [
      `ideal option chosen, tuning sample (seed ${sampleSeed}) · check sample, by rule; the goal figure is npm run eval -- agent (LitQA2 with PDFs)`,
      ...lines,
    ],
  };
}

async function askItem(
  model: ChatModel,
  item: Item,
  sample: Row['sample'],
  index: number,
  neighbours: Item[],
): Promise<Row> {
  const options = seededSample(
    [item.ideal, ...item.distractors],
    1 + item.distractors.length,
    sampleSeed + index,
  );
  const text = [neighbours[0]?.['key-passage'], item['key-passage'], neighbours[1]?.['key-passage']]
    .filter(Boolean)
    .join(' ');
  const paper = { ...emptyPaper('A study'), url: `https://example.org/litqa2/${item.id}` };
  const source: RetrievedSource = { id: 'S1', paper, label: 'S1', url: paper.url };
  const evidence: Evidence[] = [{ source, text, kind: 'fulltext' }];
  const choice: MultipleChoice = {
    question: item.question,
    options: options.map((option, position) => ({ letter: letters[position] ?? '?', text: option })),
  };
  // One set of passages for every shift, as the agent's option step reads them.
  const findings = optionFindings(choice, evidence);
  const shifts: number[][] = [];
  for (let shift = 0; shift < options.length; shift += 1) {
    const shown = shiftedChoice(choice, shift);
    const probabilities = await letterProbabilities(
      model,
      optionClassificationMessages(shown, findings),
      optionChoices(shown),
    );
    // The option at index i was shown at letter (i + shift) mod n.
    shifts.push(
      options.map((_, position) => probabilities[letters[(position + shift) % options.length] ?? ''] ?? 0),
    );
  }
  return {
    id: item.id,
    sample,
    options,
    ideal: options.indexOf(item.ideal),
    shifts,
    support: options.map((option) =>
      support(
        option,
        findings.flatMap((entry) => entry.sentences),
      ),
    ),
  };
}

/**
 * How well the passages name an option: 1 when a sentence holds its text outright (case folded),
 * else the largest share of its content terms (stemmed) that one sentence holds.
 */
function support(option: string, sentences: string[]): number {
  const wanted = option.toLowerCase().trim();
  if (wanted && sentences.some((sentence) => sentence.toLowerCase().includes(wanted))) return 1;
  const terms = [...new Set(contentTerms(option))];
  if (terms.length === 0) return 0;
  let best = 0;
  for (const sentence of sentences) {
    const present = new Set(contentTerms(sentence));
    best = Math.max(best, terms.filter((term) => present.has(term)).length / terms.length);
  }
  return best;
}

async function letterProbabilities(
  model: ChatModel,
  messages: ChatModelMessage[],
  choices: string[],
): Promise<Record<string, number>> {
  for await (const event of model.stream({ messages, choices, maxTokens: 4, temperature: 0 }))
    if (event.type === 'finish' && event.choiceProbabilities) return event.choiceProbabilities;
  throw new Error('the local model gave no probabilities for the option letters');
}

const half = (row: Row) => Math.floor(row.options.length / 2);

const safeLog = (value: number) => Math.log(Math.max(value, 1e-9));

function meanOf(rows: Array<number[] | undefined>): number[] {
  const present = rows.filter((row): row is number[] => Array.isArray(row));
  const width = present[0]?.length ?? 0;
  return Array.from(
    { length: width },
    (_, index) => present.reduce((sum, row) => sum + (row[index] ?? 0), 0) / Math.max(1, present.length),
  );
}

function mix(probabilities: number[], support: number[], weight: number): number[] {
  return probabilities.map((value, index) => value + weight * (support[index] ?? 0));
}

/** The index of the largest value (the first on ties; -1 when empty). */
function argmax(values: number[]): number {
  let best = -1;
  for (const [index, value] of values.entries()) if (best < 0 || value > (values[best] ?? 0)) best = index;
  return best;
}
