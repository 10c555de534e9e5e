// `npm run eval -- verdict-step`: the agent's verdict word alone, on hundreds of questions in
// minutes instead of days (decisions 0071, 0072). Each PubMedQA question and each SciFact claim
// with evidence ("Is it true that …?") is given the findings the verdict step would read if the run
// had retrieved the question's own record (`verdictFindings` over its abstract), and the local
// model's classification turn (the three words under a grammar) gives p(yes), p(no), p(maybe).
//
// Ways of asking, each computed once per item and kept in `.eval/verdict-step/rows.jsonl`
// (`EVAL_VERDICT_WAYS`, comma-separated; default `agent`):
// - `agent`: the agent's classification turn over its findings (`verdictClassificationMessages`);
// - `conclusion`: the model first states what the findings show (`conclusionPrompt`, one sentence),
//   and the classification turn reads that sentence alone (`conclusion`) or after the findings
//   (`findings+conclusion`);
// - `abstract`: the classification turn over the whole abstract (up to 2,000 characters) instead of
//   the findings' five sentences.
// Each is scored by the most probable word, by the agent's rule (`chooseVerdict` with the local
// model's log-priors, `verdictLogPriorsByModelFile`, fitted on the tuning split: decision 0072) and,
// where at least 100 rows of the other split are stored, by log-priors fitted on those rows (both
// sets pooled) — never fitted on the split it is scored on; on the reporting split, with the whole
// tuning split stored, the fit reproduces the agent's priors.
//
// An upper bound for the agent's verdicts (its own retrieval may miss the record), not a
// replacement for `npm run eval -- agent`. Split: the agent evaluation's (odd = reporting, the
// default; `EVAL_VERDICT_SPLIT=tuning` for the even half); `EVAL_VERDICT_LIMIT` items per set.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LlamaCppChatModel } from '../src/adapters/chat/llama-cpp-chat-model.js';
import { turnReply, turnText } from '../src/agent/model-turn.js';
import type { Evidence, RetrievedSource } from '../src/agent/source-ledger.js';
import {
  chooseVerdict,
  conclusionPrompt,
  conclusionTokens,
  type Verdict,
  type VerdictFindings,
  verdictChoices,
  verdictClassificationMessages,
  verdictFindings,
} from '../src/agent/verdict.js';
import {
  chatModelDir,
  localChatModelFiles,
  verdictLogPriorsByModelFile,
} from '../src/config/sections/chat.js';
import { emptyPaper, type Paper } from '../src/domain/paper.js';
import { percentile } from '../src/platform/percentile.js';
import { splitSentences } from '../src/text/sentences.js';
import type { EvalReport } from './index.js';
import { type AgentItem, corpusRecords, loadAgentItems, type Split } from './lib/agent-sets.js';
import { completeJsonLinesStore } from './lib/jsonl.js';
import { wilson } from './verdict-classifier.eval.js';

type Probabilities = Record<Verdict, number>;
type Scored = AgentItem & { gold: Verdict };

const ways = ['agent', 'conclusion', 'abstract'] as const;
type Way = (typeof ways)[number];

/** One item asked one way: the probabilities of each rule the way yields, and the model's sentence. */
interface Row {
  key: string;
  id: string;
  way: Way;
  probabilities: Record<string, Probabilities>;
  conclusion?: string;
  seconds: number;
}

/**
 * The store's file, named by what its rows depend on: the prompts of the classification and
 * conclusion turns (with a sample question and finding) and the model file. A change of any starts
 * a new file.
 */
function storePath(paper: Paper): string {
  const sample: VerdictFindings[] = [{ source: source(paper), sentences: ['A finding.'] }];
  const fingerprint = createHash('sha256')
    .update(
      JSON.stringify([
        verdictClassificationMessages('A question?', sample),
        conclusionPrompt('A question?', sample),
        localChatModelFiles['qwen2.5-1.5b'],
      ]),
    )
    .digest('hex')
    .slice(0, 12);
  return join(import.meta.dirname, '..', '.eval', 'verdict-step', `rows-${fingerprint}.jsonl`);
}

function source(paper: Paper): RetrievedSource {
  return { id: 'S1', paper, label: paper.title.slice(0, 40), url: paper.url ?? null };
}

/** The findings the verdict step reads when the run retrieved `paper` (its abstract). */
function findingsOf(question: string, paper: Paper): VerdictFindings[] {
  const evidence: Evidence[] = [{ source: source(paper), text: paper.abstract ?? '', kind: 'abstract' }];
  return verdictFindings(question, evidence);
}

/** The whole abstract as findings, whole sentences up to 2,000 characters. */
function abstractOf(paper: Paper): VerdictFindings[] {
  const sentences: string[] = [];
  let length = 0;
  for (const sentence of splitSentences(paper.abstract ?? '')) {
    if (length + sentence.length > 2000 && sentences.length > 0) break;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return [{ source: source(paper), sentences }];
}

const noUsage = () => ({ promptTokens: 0, completionTokens: 0 });

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
    noUsage(),
  );
  const probabilities = reply.choiceProbabilities;
  if (!probabilities) throw new Error('the local model gave no probabilities for the choices');
  return { yes: probabilities.yes ?? 0, no: probabilities.no ?? 0, maybe: probabilities.maybe ?? 0 };
}

async function ask(
  model: LlamaCppChatModel,
  way: Way,
  item: Scored,
  paper: Paper,
): Promise<Omit<Row, 'key' | 'id' | 'way' | 'seconds'>> {
  const findings = findingsOf(item.question, paper);
  if (way === 'agent') return { probabilities: { agent: await classify(model, item.question, findings) } };
  if (way === 'abstract')
    return { probabilities: { abstract: await classify(model, item.question, abstractOf(paper)) } };
  const conclusion = (
    await turnText(
      model,
      {
        messages: [{ role: 'user', content: conclusionPrompt(item.question, findings) }],
        maxTokens: conclusionTokens,
        isolated: true,
        temperature: 0,
      },
      noUsage(),
    )
  )
    .replace(/\s+/g, ' ')
    .trim();
  const alone: VerdictFindings[] = [{ source: source(paper), sentences: [conclusion] }];
  const both: VerdictFindings[] = findings.map((entry, index) =>
    index === findings.length - 1
      ? { ...entry, sentences: [...entry.sentences, `In short: ${conclusion}`] }
      : entry,
  );
  return {
    conclusion,
    probabilities: {
      conclusion: await classify(model, item.question, alone),
      'findings+conclusion': await classify(model, item.question, both),
    },
  };
}

/** The priors the agent adds for this model (decision 0072). */
const productPriors = verdictLogPriorsByModelFile[localChatModelFiles['qwen2.5-1.5b']] ?? {
  yes: 0,
  no: 0,
  maybe: 0,
};

/** The most probable word after adding `bias` to each word's log-probability: the agent's `chooseVerdict`. */
function decide(probabilities: Probabilities, bias: Probabilities = { yes: 0, no: 0, maybe: 0 }): Verdict {
  return chooseVerdict(probabilities, bias) ?? 'yes';
}

/**
 * One log-prior per word ("yes" fixed at 0) maximising accuracy over `rows`, on a 0.1 grid in
 * [-4, 4]; of equally accurate priors, the smallest correction (least |no| + |maybe|).
 */
function fitBias(rows: Array<{ gold: Verdict; probabilities: Probabilities }>): Probabilities {
  let best = { bias: { yes: 0, no: 0, maybe: 0 }, right: -1, size: 0 };
  for (let no = -40; no <= 40; no += 1)
    for (let maybe = -40; maybe <= 40; maybe += 1) {
      const bias = { yes: 0, no: no / 10, maybe: maybe / 10 };
      const right = rows.filter((row) => decide(row.probabilities, bias) === row.gold).length;
      const size = Math.abs(no) + Math.abs(maybe);
      if (right > best.right || (right === best.right && size < best.size)) best = { bias, right, size };
    }
  return best.bias;
}

function confusion(rows: Array<{ gold: Verdict; said: Verdict }>): string {
  return verdictChoices
    .map((gold) => {
      const ofGold = rows.filter((row) => row.gold === gold);
      if (ofGold.length === 0) return undefined;
      const said = verdictChoices.map(
        (word) => `${word} ${ofGold.filter((row) => row.said === word).length}`,
      );
      return `gold ${gold} (${ofGold.length}): ${said.join(', ')}`;
    })
    .filter(Boolean)
    .join('; ');
}

function accuracyLine(
  label: string,
  rows: Array<{ gold: Verdict; said: Verdict }>,
): { line: string; share: number } {
  const right = rows.filter((row) => row.said === row.gold).length;
  const [low, high] = wilson(right, rows.length);
  const share = rows.length ? right / rows.length : 0;
  return {
    share,
    line: `${label}: ${right}/${rows.length} = ${(100 * share).toFixed(1)}% [${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}] — ${confusion(rows)}`,
  };
}

export async function verdictStepEval(): Promise<EvalReport> {
  const modelPath = join(chatModelDir(), localChatModelFiles['qwen2.5-1.5b']);
  if (!existsSync(modelPath))
    return { name: 'verdict-step', metrics: {}, summary: [`skipped: no local chat model at ${modelPath}`] };
  const split: Split = process.env.EVAL_VERDICT_SPLIT === 'tuning' ? 'tuning' : 'reporting';
  const limit = Number(process.env.EVAL_VERDICT_LIMIT ?? Number.POSITIVE_INFINITY);
  const named = (process.env.EVAL_VERDICT_WAYS ?? 'agent').split(',').map((way) => way.trim());
  const unknown = named.filter((way) => !(ways as readonly string[]).includes(way));
  if (unknown.length > 0)
    throw new Error(`EVAL_VERDICT_WAYS: unknown ${unknown.join(', ')} (known: ${ways.join(', ')})`);
  const asked = named as Way[];
  const all = (await loadAgentItems()).filter(
    (item): item is Scored => (item.set === 'pubmedqa' || item.set === 'scifact') && item.gold !== undefined,
  );
  const pubmed = new Map(
    (await corpusRecords('pubmedqa')).map((paper) => [paper.identifiers?.pmid ?? '', paper]),
  );
  const scifact = new Map(
    (await corpusRecords('scifact')).map((paper) => [paper.identifiers?.corpus_id ?? '', paper]),
  );
  const recordOf = (item: AgentItem): Paper | undefined =>
    (item.set === 'pubmedqa' ? pubmed : scifact).get(item.ownRecord ?? '');
  const items = (['pubmedqa', 'scifact'] as const).flatMap((set) =>
    all.filter((item) => item.set === set && item.split === split && recordOf(item)).slice(0, limit),
  );

  const model = new LlamaCppChatModel({
    modelPath,
    threads: 2,
    contextTokens: 4096,
    timeoutMs: 120_000,
    temperature: 0,
  });
  const keyOf = (way: Way, id: string) => `${way}|${id}`;
  const path = storePath(emptyPaper('A title'));
  let rows: Map<string, Row>;
  try {
    rows = await completeJsonLinesStore<{ way: Way; item: Scored }, Row>(
      path,
      asked.flatMap((way) => items.map((item) => ({ way, item }))),
      { wantedKey: (entry) => keyOf(entry.way, entry.item.id), rowKey: (row) => row.key },
      async ({ way, item }) => {
        const started = performance.now();
        const asked = await ask(model, way, item, recordOf(item) as Paper);
        return {
          key: keyOf(way, item.id),
          id: item.id,
          way,
          ...asked,
          seconds: (performance.now() - started) / 1000,
        };
      },
    );
  } finally {
    await model.close();
  }

  const byId = new Map(all.map((item) => [item.id, item]));
  const summary: string[] = [
    `split ${split}; the question's own record as the findings (an upper bound for the agent's verdicts); model ${localChatModelFiles['qwen2.5-1.5b']}; rows kept in ${relative(process.cwd(), path)}`,
  ];
  const metrics: Record<string, number> = {};
  for (const way of asked) {
    const stored = [...rows.values()].filter((row) => row.way === way);
    const rules = [...new Set(stored.flatMap((row) => Object.keys(row.probabilities)))];
    for (const rule of rules) {
      const labelled = stored.flatMap((row) => {
        const item = byId.get(row.id);
        const probabilities = row.probabilities[rule];
        return item && probabilities ? [{ item, probabilities }] : [];
      });
      const other = labelled.filter((row) => row.item.split !== split);
      const bias =
        other.length >= 100
          ? fitBias(other.map((row) => ({ gold: row.item.gold, probabilities: row.probabilities })))
          : undefined;
      for (const set of ['pubmedqa', 'scifact'] as const) {
        const scored = labelled.filter(
          (row) => row.item.set === set && items.some((item) => item.id === row.item.id),
        );
        if (scored.length === 0) continue;
        const plain = accuracyLine(
          `${set}, ${rule}: most probable word`,
          scored.map((row) => ({ gold: row.item.gold, said: decide(row.probabilities) })),
        );
        summary.push(plain.line);
        metrics[`${set} ${rule} accuracy`] = plain.share;
        const product = accuracyLine(
          `${set}, ${rule}: the agent's log-priors (no ${productPriors.no}, maybe ${productPriors.maybe})`,
          scored.map((row) => ({ gold: row.item.gold, said: decide(row.probabilities, productPriors) })),
        );
        summary.push(product.line);
        metrics[`${set} ${rule} accuracy, agent's priors`] = product.share;
        if (bias) {
          const fitted = accuracyLine(
            `${set}, ${rule}: with log-priors no ${bias.no.toFixed(1)}, maybe ${bias.maybe.toFixed(1)} fitted on ${other.length} items of the other split`,
            scored.map((row) => ({ gold: row.item.gold, said: decide(row.probabilities, bias) })),
          );
          summary.push(fitted.line);
          metrics[`${set} ${rule} accuracy, fitted priors`] = fitted.share;
        }
      }
    }
    const seconds = stored
      .filter((row) => items.some((item) => item.id === row.id))
      .map((row) => row.seconds);
    if (seconds.length)
      summary.push(
        `${way}: seconds per question p50 ${percentile(seconds, 0.5).toFixed(1)}, p95 ${percentile(seconds, 0.95).toFixed(1)}`,
      );
  }
  return { name: 'verdict-step', metrics, summary };
}
