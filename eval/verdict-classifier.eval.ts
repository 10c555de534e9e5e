// `npm run eval -- verdict-classifier`: how well the agent decides that a message needs a verdict
// (an answer opening with yes, no or maybe) and that it is a multiple-choice question, on the
// labelled questions of test/fixtures/question-kinds (decision 0047). Figures are quoted on the
// report split; the tuning split is what rules may be changed by.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isMultipleChoice, verdictQuestion } from '../src/agent/question-kind.js';
import type { EvalReport } from './index.js';
import { readJsonLines } from './lib/jsonl.js';

interface LabelledQuestion {
  id: string;
  text: string;
  kind: 'yesno' | 'open' | 'request' | 'choice';
  verdict: boolean;
  source: string;
  split: 'tuning' | 'report';
}

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'question-kinds', 'questions.jsonl');
const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');

/** Wilson score interval of a proportion at 95 %. */
export function wilson(successes: number, total: number): [number, number] {
  if (total === 0) return [0, 1];
  const z = 1.96;
  const p = successes / total;
  const denominator = 1 + (z * z) / total;
  const centre = (p + (z * z) / (2 * total)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / total + (z * z) / (4 * total * total))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

interface Counts {
  truePositive: number;
  falsePositive: number;
  falseNegative: number;
  trueNegative: number;
  wrong: string[];
}

function count(items: Array<{ text: string; verdict: boolean }>, decide: (text: string) => boolean): Counts {
  const counts: Counts = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0, wrong: [] };
  for (const item of items) {
    const predicted = decide(item.text);
    if (predicted && item.verdict) counts.truePositive += 1;
    else if (predicted) counts.falsePositive += 1;
    else if (item.verdict) counts.falseNegative += 1;
    else counts.trueNegative += 1;
    if (predicted !== item.verdict)
      counts.wrong.push(`${predicted ? 'FP' : 'FN'} ${JSON.stringify(item.text.slice(0, 120))}`);
  }
  return counts;
}

const interval = ([low, high]: [number, number]) => `[${low.toFixed(3)}, ${high.toFixed(3)}]`;

function lines(label: string, counts: Counts): { text: string[]; precision: number; low: number } {
  const predicted = counts.truePositive + counts.falsePositive;
  const precision = predicted === 0 ? 1 : counts.truePositive / predicted;
  const recall = counts.truePositive / Math.max(1, counts.truePositive + counts.falseNegative);
  const bounds = wilson(counts.truePositive, predicted);
  return {
    precision,
    low: bounds[0],
    text: [
      `${label}: needs a verdict, precision ${counts.truePositive}/${predicted} = ${precision.toFixed(3)} (95% Wilson ${interval(bounds)}), recall ${counts.truePositive}/${counts.truePositive + counts.falseNegative} = ${recall.toFixed(3)} (95% ${interval(wilson(counts.truePositive, counts.truePositive + counts.falseNegative))}); no verdict given to ${counts.trueNegative}/${counts.trueNegative + counts.falsePositive} questions that need none`,
    ],
  };
}

export async function verdictClassifierEval(options: { quick: boolean }): Promise<EvalReport> {
  const items = await readJsonLines<LabelledQuestion>(fixture);
  const needsVerdict = (text: string) => verdictQuestion(text) !== undefined;
  const metrics: Record<string, number | string> = { questions: items.length };
  const summary: string[] = [];
  for (const split of ['tuning', 'report'] as const) {
    const chosen = items.filter((item) => item.split === split);
    const counts = count(chosen, needsVerdict);
    const { text, precision, low } = lines(`${split} split (${chosen.length})`, counts);
    summary.push(...text);
    metrics[`${split} precision`] = precision;
    metrics[`${split} precision 95% low`] = low;
    metrics[`${split} recall`] =
      counts.truePositive / Math.max(1, counts.truePositive + counts.falseNegative);
    for (const kind of ['yesno', 'open', 'request', 'choice'] as const) {
      const ofKind = chosen.filter((item) => item.kind === kind);
      const given = ofKind.filter((item) => needsVerdict(item.text)).length;
      summary.push(`  ${split}, ${kind}: verdict given to ${given}/${ofKind.length}`);
    }
    const choices = count(
      chosen.map((item) => ({ text: item.text, verdict: item.kind === 'choice' })),
      isMultipleChoice,
    );
    summary.push(
      `  ${split}: multiple choice recognised ${choices.truePositive}/${choices.truePositive + choices.falseNegative}, taken for one wrongly ${choices.falsePositive}/${choices.falsePositive + choices.trueNegative}`,
    );
    if (split === 'tuning' || !options.quick)
      for (const line of counts.wrong) summary.push(`    ${split} ${line}`);
    if (split === 'report') {
      metrics['report precision goal'] = precision >= 0.97 ? 'met (≥ 0.97)' : 'NOT met (≥ 0.97)';
    }
  }
  // Outside the fixture (not redistributable here): when the shared data is present, SciFact claims
  // asked as "Is it true that …?" (all need a verdict) and QASPER questions labelled by their gold
  // answer (yes/no answers need a verdict, any other answer does not).
  const scifact = join(sharedData, 'eval', 'scifact', 'queries.jsonl');
  const qasper = join(sharedData, 'eval', 'leval_scientific_qa', 'leval_scientific_qa.jsonl');
  if (existsSync(scifact) && existsSync(qasper)) {
    const claims = (await readJsonLines<{ text: string }>(scifact)).map((claim) => ({
      text: `Is it true that ${claim.text.replace(/^\p{Lu}(?!\p{Lu})/u, (letter) => letter.toLowerCase()).replace(/\.$/, '')}?`,
      verdict: true,
    }));
    const papers = await readJsonLines<{ questions: Array<{ question: string; answer: string }> }>(qasper);
    const seen = new Set<string>();
    const questions = papers
      .flatMap((paper) => paper.questions)
      .filter((entry) => !seen.has(entry.question) && seen.add(entry.question))
      .map((entry) => ({ text: entry.question, verdict: /^(?:yes|no)\.?$/i.test(entry.answer.trim()) }));
    const both = count([...claims, ...questions], needsVerdict);
    summary.push(
      ...lines(
        `shared data, not tuned on (${claims.length} SciFact claims, ${questions.length} QASPER questions)`,
        both,
      ).text,
    );
    for (const line of both.wrong.filter((entry) => entry.startsWith('FP')))
      summary.push(`    shared ${line}`);
  }
  return { name: 'verdict-classifier', metrics, summary };
}
