import { percentile } from '../../src/platform/percentile.js';
import { wilson } from '../verdict-classifier.eval.js';
import { type AgentItem, type AgentSet, agentSets, type Verdict } from './agent-sets.js';
import type { StoredAnswer } from './agent-store.js';

/** yes / no / maybe when the answer opens with it (after markdown, quotes and "Answer:"). */
export function verdictOf(answer: string): Verdict | null {
  const first = /^[\s*_#>"'`-]*(?:answer\s*:\s*)?[*_]*(yes|no|maybe)\b/i.exec(answer);
  return (first?.[1]?.toLowerCase() as Verdict | undefined) ?? null;
}

/**
 * Traces a rewrite of the model's words leaves in an answer (decision 0066): an opening verdict
 * followed by a sentence in lower case ("Yes. because …") and a doubled full stop ("No..", not an
 * ellipsis). The service only drops citations and sentences and adds its own notes, so this is 0
 * by construction; the count guards against a regression.
 */
export function rewriteTraces(text: string): number {
  // The model's text: the references list after it is the service's own.
  const end = text.lastIndexOf('**References**');
  const answer = end >= 0 ? text.slice(0, end) : text;
  const lowerAfterVerdict = /^[\s*_#>"'`-]*(?:[Yy]es|[Nn]o|[Mm]aybe)[*_]*[.!][*_]*\s+[a-z]/.test(answer)
    ? 1
    : 0;
  const doubled = [...answer.matchAll(/(?<!\.)\.\.(?!\.)/g)].length;
  return lowerAfterVerdict + doubled;
}

/** The answer says that the papers found do not answer (decision 0064's text or note). */
export const saysNotAnswered = (answer: string) => /the papers found do not answer this/i.test(answer);

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const bounds = ([low, high]: [number, number]) => `[${pct(low)}, ${pct(high)}]`;

/** "k/n = x% (95% Wilson [a, b])". */
function rate(hits: number, n: number): string {
  return n === 0 ? `0/0` : `${hits}/${n} = ${pct(hits / n)} (95% Wilson ${bounds(wilson(hits, n))})`;
}

/** A goal's verdict: never "met" while items are left. */
export function goalStatus(done: number, total: number, holds: boolean): string {
  if (done < total) return `incomplete (${done} of ${total} answered)`;
  return holds ? 'met' : 'NOT met';
}

/** "yes (120) → yes 80, no 10, maybe 5, none 25; …": how each gold label was answered. */
export function confusionLine(answers: Array<{ gold?: Verdict; verdict: Verdict | null }>): string {
  const labels: Verdict[] = ['yes', 'no', 'maybe'];
  return labels
    .map((gold) => {
      const row = answers.filter((answer) => answer.gold === gold);
      if (row.length === 0) return '';
      const counts = [...labels, null].map(
        (verdict) => `${verdict ?? 'none'} ${row.filter((answer) => answer.verdict === verdict).length}`,
      );
      return `${gold} (${row.length}) → ${counts.join(', ')}`;
    })
    .filter((line) => line.length > 0)
    .join('; ');
}

function majority(golds: Verdict[]): string {
  const counts = new Map<Verdict, number>();
  for (const gold of golds) counts.set(gold, (counts.get(gold) ?? 0) + 1);
  const [label, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  return `${label} ${golds.length === 0 ? '-' : pct(count / golds.length)}`;
}

const supportDropped = (answer: StoredAnswer) =>
  Number((answer.summary.support as { dropped?: number } | undefined)?.dropped ?? 0);

/** The report of one split: per-set figures and issue 35's goal lines. */
export function agentReport(
  items: AgentItem[],
  answers: StoredAnswer[],
  stale: number,
): { metrics: Record<string, number | string>; lines: string[] } {
  const gold = new Map(items.map((item) => [item.id, item.gold]));
  const metrics: Record<string, number | string> = {};
  const lines: string[] = [];
  const sets = agentSets.filter((set) => items.some((item) => item.set === set));
  const progress = (set: AgentSet) => {
    const total = items.filter((item) => item.set === set).length;
    const done = answers.filter((answer) => answer.set === set);
    return { total, done };
  };
  lines.push(
    `done / left per set: ${sets
      .map((set) => {
        const { total, done } = progress(set);
        return `${set} ${done.length} done, ${total - done.length} left`;
      })
      .join('; ')}; stale stored answers (another fingerprint): ${stale}`,
  );
  const goals: string[] = [];
  for (const set of sets) {
    const { total, done } = progress(set);
    const n = done.length;
    metrics[`${set} done`] = n;
    metrics[`${set} total`] = total;
    if (n === 0) {
      lines.push(`${set} (0 of ${total}): not answered yet`);
      if (set === 'pubmedqa' || set === 'scifact')
        goals.push(
          `${set === 'pubmedqa' ? 'PubMedQA' : 'SciFact SUPPORT/CONTRADICT'} verdict accuracy ≥ ${set === 'pubmedqa' ? 65 : 70}%: ${goalStatus(0, total, false)}`,
        );
      if (set === 'open')
        goals.push(`open requests (no opening verdict, every one cited): ${goalStatus(0, total, false)}`);
      continue;
    }
    if (set === 'pubmedqa' || set === 'scifact') {
      const scored = done.map((answer) => ({ gold: gold.get(answer.id), verdict: answer.verdict }));
      const right = scored.filter((answer) => answer.verdict === answer.gold).length;
      const accuracy = right / Math.max(1, n);
      metrics[`${set} accuracy`] = accuracy;
      lines.push(
        `${set} (${n} of ${total}): verdict accuracy ${rate(right, n)}; majority class of the answered items ${majority(scored.flatMap((answer) => answer.gold ?? []))}; confusion (gold → opening verdict): ${confusionLine(scored)}`,
      );
      const goal = set === 'pubmedqa' ? 0.65 : 0.7;
      goals.push(
        `${set === 'pubmedqa' ? 'PubMedQA' : 'SciFact SUPPORT/CONTRADICT'} verdict accuracy ≥ ${goal * 100}%: ${pct(accuracy)} — ${goalStatus(n, total, accuracy >= goal)}`,
      );
    } else if (set === 'scifact-none') {
      const yes = done.filter((answer) => answer.verdict === 'yes').length;
      const notAnswered = done.filter((answer) => saysNotAnswered(answer.answer)).length;
      metrics[`${set} no yes`] = (n - yes) / Math.max(1, n);
      metrics[`${set} says not answered`] = notAnswered / Math.max(1, n);
      lines.push(
        `${set} (${n} of ${total}): no opening "yes" ${rate(n - yes, n)}; says the papers found do not answer ${rate(notAnswered, n)}; opening verdicts ${confusionLine(done.map((answer) => ({ gold: 'yes' as const, verdict: answer.verdict }))).replace(/^yes \(\d+\) → /, '')}`,
      );
    } else {
      const verdicts = done.filter((answer) => answer.verdict !== null).length;
      const cited = done.filter((answer) => answer.citations.length > 0).length;
      const clean = done.filter(
        (answer) =>
          answer.verdict === null && answer.citations.length > 0 && answer.outsideLedger.length === 0,
      ).length;
      metrics[`${set} opens with a verdict`] = verdicts;
      metrics[`${set} cited`] = cited / Math.max(1, n);
      lines.push(
        `${set} (${n} of ${total}): opens with a verdict ${verdicts}/${n}; ≥ 1 citation ${rate(cited, n)}; all three (no verdict, cited, nothing outside the ledger) ${rate(clean, n)}`,
      );
      goals.push(
        `no open request opens with a verdict: ${verdicts} did — ${goalStatus(n, total, verdicts === 0)}`,
      );
      goals.push(
        `every open request cites a paper: ${n - cited} did not — ${goalStatus(n, total, cited === n)}`,
      );
    }
  }
  const all = items.filter((item) => sets.includes(item.set)).length;
  const rewritten = answers.reduce((sum, answer) => sum + rewriteTraces(answer.answer), 0);
  const outside = answers.reduce((sum, answer) => sum + answer.outsideLedger.length, 0);
  const dropped = answers.reduce((sum, answer) => sum + supportDropped(answer), 0);
  const seconds = answers.map((answer) => answer.seconds);
  const first = answers.flatMap((answer) => answer.firstProgressSeconds ?? []);
  const [p50, p95, firstP95] = [percentile(seconds, 0.5), percentile(seconds, 0.95), percentile(first, 0.95)];
  Object.assign(metrics, {
    'rewritten sentences': rewritten,
    'citations outside the ledger': outside,
    'citations dropped by support': dropped,
    'answer p50 s': p50,
    'answer p95 s': p95,
    'first progress p95 s': firstP95,
  });
  lines.push(
    `all sets (${answers.length} of ${all}): rewritten sentences ${rewritten} (traces of a rewrite in the text: a lower-case sentence after an opening verdict, a doubled full stop); citations outside the ledger ${outside}; citations dropped by the support check ${dropped}; answer p50 ${p50.toFixed(1)} s, p95 ${p95.toFixed(1)} s; first progress p95 ${firstP95.toFixed(2)} s`,
  );
  goals.push(`0 rewritten sentences: ${rewritten} — ${goalStatus(answers.length, all, rewritten === 0)}`);
  goals.push(
    `0 citations outside the ledger: ${outside} — ${goalStatus(answers.length, all, outside === 0)}`,
  );
  goals.push(`answer p95 ≤ 90 s: ${p95.toFixed(1)} s — ${goalStatus(answers.length, all, p95 <= 90)}`);
  goals.push(
    `first progress p95 ≤ 1 s: ${firstP95.toFixed(2)} s — ${goalStatus(answers.length, all, firstP95 <= 1)}`,
  );
  return { metrics, lines: [...lines, ...goals.map((goal) => `goal: ${goal}`)] };
}
