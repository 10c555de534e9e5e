import { join } from 'node:path';
import type { Evidence, RetrievedSource } from '../src/agent/source-ledger.js';
import {
  chooseVerdict,
  conclusionPrompt,
  equalVerdictWeights,
  localVerdictWeights,
  type Verdict,
  type VerdictWeights,
  verdictChoices,
  verdictClassificationMessages,
  verdictFindings,
  verdictPrompt,
} from '../src/agent/verdict.js';
import { emptyPaper } from '../src/domain/paper.js';
import type { ChatModel, ChatModelMessage } from '../src/ports/chat-model.js';
import { stratifiedSample } from './agent-local.eval.js';
import type { EvalReport } from './index.js';
import { completeJsonLinesStore, readJsonLines } from './lib/jsonl.js';
import { promptEvalModel } from './lib/local-model.js';

/**
 * `npm run eval -- verdict-prompts`: how the verdict step's prompts answer PubMedQA items on the
 * local 1.5B model, each prompt alone (no search, no answer): the findings `verdictFindings` picks
 * from the item's abstract, and the model's probabilities of yes/no/maybe. Only items OUTSIDE the
 * agent eval's goal sample: the tuning sample (30, seed 16; the verdict weights are chosen here)
 * and a check sample (30 more, seed 17; never used to choose). Results are kept in
 * `.eval/verdict-prompts.jsonl` (a rerun asks only what is missing). ~15 s an item on 2 cores.
 *
 * Prompts: `conversation` (the step's free-text conclusion, then the one-word question: the agent
 * before the classification turn, here in a short context), `direct` (findings and question, one
 * word), `direct, calibrated` (divided by the probabilities for "N/A" findings: contextual
 * calibration), `instruction only` (the classification turn's instruction without its examples),
 * `classification` (the shipped turn: instruction and five worked examples).
 */
const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');
const goalSeed = 15;
const tuningSeed = 16;
const checkSeed = 17;

interface Item {
  pmid: string;
  question: string;
  contexts: string[];
  final_decision: Verdict;
}

type Probabilities = Record<string, number>;

interface Row {
  pmid: string;
  gold: Verdict;
  sample: 'tuning' | 'check';
  prompts: Record<string, Probabilities>;
}

const promptNames = ['conversation', 'direct', 'direct, calibrated', 'instruction only', 'classification'];

export async function verdictPromptsEval(options: { quick: boolean }): Promise<EvalReport> {
  const name = 'Verdict prompts on the local model (PubMedQA items outside the goal sample)';
  const opened = promptEvalModel(name);
  if ('skipped' in opened) return opened.skipped;
  const { model } = opened;
  const all = await readJsonLines<Item>(join(sharedData, 'eval', 'pubmedqa', 'pubmedqa_pqal.jsonl'));
  const goal = stratifiedSample(all, 30, goalSeed);
  const outside = all.filter((item) => !goal.includes(item));
  const tuning = stratifiedSample(outside, 30, tuningSeed);
  const check = stratifiedSample(
    outside.filter((item) => !tuning.includes(item)),
    30,
    checkSeed,
  );
  const perSample = options.quick ? 5 : 30;
  const asked = [
    ...tuning.slice(0, perSample).map((item) => ({ item, sample: 'tuning' as const })),
    ...check.slice(0, perSample).map((item) => ({ item, sample: 'check' as const })),
  ];
  const rows = await completeJsonLinesStore(
    join('.eval', 'verdict-prompts.jsonl'),
    asked,
    { wantedKey: ({ item }) => item.pmid, rowKey: (row: Row) => row.pmid },
    async ({ item, sample }): Promise<Row> => ({
      pmid: item.pmid,
      gold: item.final_decision,
      sample,
      prompts: await askPrompts(model, item),
    }),
  ).finally(() => model.close());
  const scored = asked.map(({ item }) => rows.get(item.pmid) as Row);
  const correct = (sample: Row['sample'], prompt: string, weights: VerdictWeights) =>
    scored.filter((row) => row.sample === sample && chooseVerdict(row.prompts[prompt], weights) === row.gold)
      .length;
  const counts = {
    tuning: scored.filter((row) => row.sample === 'tuning').length,
    check: scored.filter((row) => row.sample === 'check').length,
  };
  const weightSets: Array<[string, VerdictWeights]> = [
    ['equal', equalVerdictWeights],
    ['no 1.5', { yes: 1, no: 1.5, maybe: 1 }],
    [`shipped (no ${localVerdictWeights.no}, maybe ${localVerdictWeights.maybe})`, localVerdictWeights],
    ['no 2, maybe 0.5', { yes: 1, no: 2, maybe: 0.5 }],
  ];
  const metrics: Record<string, number> = {};
  const lines: string[] = [];
  for (const prompt of promptNames) {
    const cells = weightSets.map(([label, weights]) => {
      const tuned = correct('tuning', prompt, weights);
      const checked = correct('check', prompt, weights);
      return `${label} ${tuned}/${counts.tuning} · ${checked}/${counts.check}`;
    });
    lines.push(`${prompt}: ${cells.join('; ')}`);
    metrics[`${prompt}, shipped weights (check)`] =
      correct('check', prompt, localVerdictWeights) / Math.max(1, counts.check);
  }
  return {
    name,
    metrics,
    summary: [
      `correct verdicts, tuning sample (seed ${tuningSeed}) · check sample (seed ${checkSeed}), by prompt and weights; the goal figure is npm run eval -- agent-local`,
      ...lines,
    ],
  };
}

async function askPrompts(model: ChatModel, item: Item): Promise<Record<string, Probabilities>> {
  const paper = {
    ...emptyPaper(item.question),
    abstract: item.contexts.join(' '),
    url: `https://pubmed.ncbi.nlm.nih.gov/${item.pmid}/`,
  };
  const source: RetrievedSource = { id: 'S1', paper, label: 'S1', url: paper.url };
  const evidence: Evidence[] = [{ source, text: paper.abstract, kind: 'abstract' }];
  const findings = verdictFindings(item.question, evidence);
  const quoted = findings.map((entry) => entry.sentences.join(' ')).join(' ');
  const system: ChatModelMessage = {
    role: 'system',
    content:
      'You are a careful research assistant. You answer research questions from the findings of papers.',
  };
  const direct = (text: string): ChatModelMessage[] => [
    system,
    {
      role: 'user',
      content: `Findings of a study:\n"${text}"\n\nQuestion: ${item.question}\nDo the findings answer the question with yes, no or maybe? Reply with one word.`,
    },
  ];
  const weigh: ChatModelMessage[] = [
    system,
    { role: 'user', content: item.question },
    { role: 'system', content: conclusionPrompt(item.question, findings) },
  ];
  const conclusion = await reply(model, weigh);
  const directProbabilities = await probabilities(model, direct(quoted));
  const contentFree = await probabilities(model, direct('N/A'));
  const classification = verdictClassificationMessages(item.question, findings);
  return {
    conversation: await probabilities(model, [
      ...weigh,
      { role: 'assistant', content: conclusion },
      { role: 'system', content: verdictPrompt(item.question) },
    ]),
    direct: directProbabilities,
    'direct, calibrated': calibrated(directProbabilities, contentFree),
    'instruction only': await probabilities(model, [
      classification[0] as ChatModelMessage,
      classification.at(-1) as ChatModelMessage,
    ]),
    classification: await probabilities(model, classification),
  };
}

async function reply(model: ChatModel, messages: ChatModelMessage[]): Promise<string> {
  let text = '';
  for await (const event of model.stream({ messages, maxTokens: 100, temperature: 0 }))
    if (event.type === 'text') text += event.text;
  return text.trim();
}

async function probabilities(model: ChatModel, messages: ChatModelMessage[]): Promise<Probabilities> {
  for await (const event of model.stream({
    messages,
    choices: [...verdictChoices],
    maxTokens: 4,
    temperature: 0,
  }))
    if (event.type === 'finish' && event.choiceProbabilities) return event.choiceProbabilities;
  throw new Error('the local model gave no probabilities for yes/no/maybe');
}

/** Contextual calibration: each probability divided by its content-free one, normalised. */
function calibrated(probabilities: Probabilities, contentFree: Probabilities): Probabilities {
  const raw = Object.fromEntries(
    verdictChoices.map((choice) => [
      choice,
      (probabilities[choice] ?? 0) / Math.max(contentFree[choice] ?? 0, 1e-6),
    ]),
  );
  const total = Object.values(raw).reduce((sum, value) => sum + value, 0) || 1;
  return Object.fromEntries(Object.entries(raw).map(([choice, value]) => [choice, value / total]));
}
