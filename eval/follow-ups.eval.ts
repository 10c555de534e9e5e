// `npm run eval -- follow-ups`: how well the agent decides that a message is a follow-up (read
// against the previous turn) rather than a question that stands alone, on the labelled turn pairs of
// test/fixtures/follow-ups (decision 0047). Figures are quoted on the report split; the tuning split
// is what rules may be changed by.
import { join } from 'node:path';
import { readAgainstPrevious } from '../src/agent/conversation.js';
import type { EvalReport } from './index.js';
import { readJsonLines } from './lib/jsonl.js';
import { wilson } from './verdict-classifier.eval.js';

interface LabelledPair {
  id: string;
  previous: string;
  message: string;
  followUp: boolean;
  kind: 'switch' | 'pronoun' | 'same-topic' | 'followup';
  source: string;
  split: 'tuning' | 'report';
}

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'follow-ups', 'pairs.jsonl');
const interval = ([low, high]: [number, number]) => `[${low.toFixed(3)}, ${high.toFixed(3)}]`;

export async function followUpsEval(options: { quick: boolean }): Promise<EvalReport> {
  const pairs = await readJsonLines<LabelledPair>(fixture);
  const metrics: Record<string, number | string> = { pairs: pairs.length };
  const summary: string[] = [];
  for (const split of ['tuning', 'report'] as const) {
    const chosen = pairs.filter((pair) => pair.split === split);
    let right = 0;
    let truePositive = 0;
    let predicted = 0;
    let actual = 0;
    const wrong: string[] = [];
    for (const pair of chosen) {
      const reading = readAgainstPrevious(pair.message);
      if (reading.followUp === pair.followUp) right += 1;
      else
        wrong.push(
          `${reading.followUp ? 'FP' : 'FN'} (${pair.kind}, ${reading.reason}) ${JSON.stringify(pair.message.slice(0, 120))}`,
        );
      if (reading.followUp) predicted += 1;
      if (pair.followUp) actual += 1;
      if (reading.followUp && pair.followUp) truePositive += 1;
    }
    const accuracy = right / Math.max(1, chosen.length);
    const precision = predicted === 0 ? 1 : truePositive / predicted;
    const recall = truePositive / Math.max(1, actual);
    summary.push(
      `${split} split (${chosen.length} pairs): accuracy ${right}/${chosen.length} = ${accuracy.toFixed(3)} (95% Wilson ${interval(wilson(right, chosen.length))}); "follow-up" precision ${truePositive}/${predicted} = ${precision.toFixed(3)} (95% ${interval(wilson(truePositive, predicted))}), recall ${truePositive}/${actual} = ${recall.toFixed(3)} (95% ${interval(wilson(truePositive, actual))})`,
    );
    for (const kind of ['switch', 'pronoun', 'same-topic', 'followup'] as const) {
      const ofKind = chosen.filter((pair) => pair.kind === kind);
      const kindRight = ofKind.filter(
        (pair) => readAgainstPrevious(pair.message).followUp === pair.followUp,
      ).length;
      summary.push(`  ${split}, ${kind}: ${kindRight}/${ofKind.length} read right`);
    }
    if (split === 'tuning' || !options.quick) for (const line of wrong) summary.push(`    ${split} ${line}`);
    metrics[`${split} accuracy`] = accuracy;
    metrics[`${split} accuracy 95% low`] = wilson(right, chosen.length)[0];
    metrics[`${split} follow-up precision`] = precision;
    metrics[`${split} follow-up recall`] = recall;
  }
  return { name: 'follow-ups', metrics, summary };
}
