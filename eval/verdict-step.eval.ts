// `npm run eval -- verdict-step`: the agent's verdict word alone, on hundreds of questions in
// minutes instead of days (decision 0071). Each PubMedQA question and each SciFact claim with
// evidence ("Is it true that …?") is given the findings the verdict step would read if the run had
// retrieved the question's own record (`verdictFindings` over its abstract), and the local model's
// classification turn (`verdictClassificationMessages`, the three words under a grammar) gives
// p(yes), p(no), p(maybe). The agent takes the most probable word; beside it, the same
// probabilities divided by the model's answer to content-free findings ("N/A") for the same
// question — contextual calibration, a correction with no parameter fitted to labels — so the
// evaluation says whether the model's lean towards "yes" is what loses the "no" questions.
//
// An upper bound for the agent's verdicts (its own retrieval may miss the record), not a
// replacement for `npm run eval -- agent`. Split: the agent evaluation's (odd = reporting, the
// default; `EVAL_VERDICT_SPLIT=tuning` for the even half); `EVAL_VERDICT_LIMIT` items per set.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LlamaCppChatModel } from '../src/adapters/chat/llama-cpp-chat-model.js';
import { turnReply } from '../src/agent/model-turn.js';
import type { Evidence, RetrievedSource } from '../src/agent/source-ledger.js';
import {
  chooseVerdict,
  type Verdict,
  type VerdictFindings,
  verdictChoices,
  verdictClassificationMessages,
  verdictFindings,
} from '../src/agent/verdict.js';
import { chatModelDir, localChatModelFiles } from '../src/config/sections/chat.js';
import type { Paper } from '../src/domain/paper.js';
import { percentile } from '../src/platform/percentile.js';
import type { EvalReport } from './index.js';
import { type AgentItem, corpusRecords, loadAgentItems, type Split } from './lib/agent-sets.js';
import { wilson } from './verdict-classifier.eval.js';

type Probabilities = Record<Verdict, number>;

interface Scored {
  item: AgentItem & { gold: Verdict };
  raw: Probabilities;
  prior: Probabilities;
  seconds: number;
}

/** The agent's own rule (`chooseVerdict`: the most probable word); all three are always present here. */
const agentsWord = (probabilities: Probabilities): Verdict => chooseVerdict(probabilities) ?? 'yes';

/** Contextual calibration: each word's probability over its probability for content-free findings. */
function calibrated(raw: Probabilities, prior: Probabilities): Probabilities {
  const scaled = verdictChoices.map((verdict) => raw[verdict] / Math.max(prior[verdict], 1e-6));
  const total = scaled.reduce((sum, value) => sum + value, 0);
  return Object.fromEntries(
    verdictChoices.map((verdict, index) => [verdict, (scaled[index] ?? 0) / total]),
  ) as Probabilities;
}

function source(paper: Paper): RetrievedSource {
  return { id: 'S1', paper, label: paper.title.slice(0, 40), url: paper.url ?? null };
}

/** The findings the verdict step reads when the run retrieved `paper` (its abstract). */
function findingsOf(question: string, paper: Paper): VerdictFindings[] {
  const evidence: Evidence[] = [{ source: source(paper), text: paper.abstract ?? '', kind: 'abstract' }];
  return verdictFindings(question, evidence);
}

async function classify(
  model: LlamaCppChatModel,
  question: string,
  findings: VerdictFindings[],
): Promise<Probabilities> {
  const reply = await turnReply(
    model,
    {
      messages: verdictClassificationMessages(question, findings),
      choices: [...verdictChoices],
      maxTokens: 8,
      isolated: true,
      temperature: 0,
    },
    { promptTokens: 0, completionTokens: 0 },
  );
  const probabilities = reply.choiceProbabilities;
  if (!probabilities) throw new Error('the local model gave no probabilities for the choices');
  return { yes: probabilities.yes ?? 0, no: probabilities.no ?? 0, maybe: probabilities.maybe ?? 0 };
}

function confusion(rows: Scored[], decide: (row: Scored) => Verdict): string {
  const cells = verdictChoices.map((gold) => {
    const ofGold = rows.filter((row) => row.item.gold === gold);
    if (ofGold.length === 0) return undefined;
    const predicted = verdictChoices.map(
      (word) => `${word} ${ofGold.filter((row) => decide(row) === word).length}`,
    );
    return `gold ${gold} (${ofGold.length}): ${predicted.join(', ')}`;
  });
  return cells.filter(Boolean).join('; ');
}

function accuracyLine(
  label: string,
  rows: Scored[],
  decide: (row: Scored) => Verdict,
): { line: string; share: number } {
  const right = rows.filter((row) => decide(row) === row.item.gold).length;
  const [low, high] = wilson(right, rows.length);
  const share = rows.length ? right / rows.length : 0;
  return {
    share,
    line: `${label}: ${right}/${rows.length} = ${(100 * share).toFixed(1)}% [${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}] — ${confusion(rows, decide)}`,
  };
}

export async function verdictStepEval(): Promise<EvalReport> {
  const modelPath = join(chatModelDir(), localChatModelFiles['qwen2.5-1.5b']);
  if (!existsSync(modelPath))
    return { name: 'verdict-step', metrics: {}, summary: [`skipped: no local chat model at ${modelPath}`] };
  const split: Split = process.env.EVAL_VERDICT_SPLIT === 'tuning' ? 'tuning' : 'reporting';
  const limit = Number(process.env.EVAL_VERDICT_LIMIT ?? Number.POSITIVE_INFINITY);
  const items = (await loadAgentItems()).filter(
    (item): item is AgentItem & { gold: Verdict } =>
      (item.set === 'pubmedqa' || item.set === 'scifact') && item.split === split && item.gold !== undefined,
  );
  const pubmed = new Map(
    (await corpusRecords('pubmedqa')).map((paper) => [paper.identifiers?.pmid ?? '', paper]),
  );
  const scifact = new Map(
    (await corpusRecords('scifact')).map((paper) => [paper.identifiers?.corpus_id ?? '', paper]),
  );
  const recordOf = (item: AgentItem): Paper | undefined =>
    (item.set === 'pubmedqa' ? pubmed : scifact).get(item.ownRecord ?? '');

  const model = new LlamaCppChatModel({
    modelPath,
    threads: 2,
    contextTokens: 4096,
    timeoutMs: 120_000,
    temperature: 0,
  });
  const scored: Scored[] = [];
  try {
    for (const set of ['pubmedqa', 'scifact'] as const) {
      const ofSet = items.filter((item) => item.set === set).slice(0, limit);
      for (const item of ofSet) {
        const paper = recordOf(item);
        if (!paper) continue;
        const started = performance.now();
        const raw = await classify(model, item.question, findingsOf(item.question, paper));
        const prior = await classify(model, item.question, [{ source: source(paper), sentences: ['N/A'] }]);
        scored.push({ item, raw, prior, seconds: (performance.now() - started) / 1000 });
      }
    }
  } finally {
    await model.close();
  }

  const summary: string[] = [
    `split ${split}; the question's own record as the findings (an upper bound for the agent's verdicts); model ${localChatModelFiles['qwen2.5-1.5b']}`,
  ];
  const metrics: Record<string, number> = {};
  for (const set of ['pubmedqa', 'scifact'] as const) {
    const rows = scored.filter((row) => row.item.set === set);
    if (rows.length === 0) continue;
    const raw = accuracyLine(`${set}: most probable word (the agent today)`, rows, (row) =>
      agentsWord(row.raw),
    );
    const fixed = accuracyLine(`${set}: calibrated by content-free findings`, rows, (row) =>
      agentsWord(calibrated(row.raw, row.prior)),
    );
    summary.push(raw.line, fixed.line);
    metrics[`${set} accuracy`] = raw.share;
    metrics[`${set} accuracy, calibrated`] = fixed.share;
  }
  const seconds = scored.map((row) => row.seconds);
  if (seconds.length)
    summary.push(
      `seconds per question (two classification turns): p50 ${percentile(seconds, 0.5).toFixed(1)}, p95 ${percentile(seconds, 0.95).toFixed(1)}`,
    );
  return { name: 'verdict-step', metrics, summary };
}
