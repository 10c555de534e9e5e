import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../src/agent/agent-types.js';
import { auditCitations } from '../src/agent/citation-audit.js';
import { loadConfig } from '../src/config/load-config.js';
import { chatModelDir, localChatModelFiles } from '../src/config/sections/chat.js';
import { normalizeDoi } from '../src/domain/identifiers.js';
import { emptyPaper, type Paper } from '../src/domain/paper.js';
import { type Container, createContainer } from '../src/main.js';
import { createLogger } from '../src/platform/logger.js';
import { percentile } from '../src/platform/percentile.js';
import type { EvalOptions, EvalReport } from './index.js';
import { wireLine } from './lib/chat-wire-recorder.js';
import { readJsonLines } from './lib/jsonl.js';
import { startOpenAiBackend } from './lib/openai-backend.js';

const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');

interface PubMedQaItem {
  pmid: string;
  question: string;
  contexts: string[];
  final_decision: 'yes' | 'no' | 'maybe';
  year?: string;
}

interface LitQaItem {
  id: string;
  question: string;
  ideal: string;
  distractors: string[];
  doi: string;
  file: string;
}

/**
 * How many items a run asks: a Qwen answer takes 20-90 s on 2 cores. PubMedQA's sample is stratified
 * by gold label (its yes/no/maybe shares are those of all 667), so answering one label every time
 * scores the sample's majority class, printed beside the accuracy.
 */
const sizes = { full: { pubmedqa: 30, litqa2: 4 }, quick: { pubmedqa: 6, litqa2: 2 } };
const seed = 15;
const tuningSeed = 16;

/**
 * Knobs for running the local eval in chunks on a shared machine:
 * - `EVAL_AGENT_PUBMEDQA_N`: the stratified sample's size (default 30, `--quick` 6);
 * - `EVAL_AGENT_PUBMEDQA_SLICE=from:to`: ask only these items of the sample (0-based, `to` exclusive);
 * - `EVAL_AGENT_LABEL=name`: each answered item is appended to `.eval/agent-local-pubmedqa-<name>.jsonl`
 *   and the PubMedQA figures are over every item of the sample stored under that name (the latest
 *   answer of each), so slices run one after another add up to the whole sample;
 * - `EVAL_AGENT_LITQA2_N`: LitQA2 items (default 4, `--quick` 2; 0 skips them);
 * - `EVAL_AGENT_WARMUP=0`: no untimed warm-up question before the timed ones (default: one, so each
 *   chunk's first answer does not pay the model's load and a cold sequence; its time is printed);
 * - `EVAL_AGENT_PUBMEDQA_SAMPLE=tuning`: a second stratified sample of the same size, drawn (seed 16)
 *   from the items outside the goal's sample: where the verdict weights are chosen, so that the goal's
 *   sample is not what they were fitted to.
 */
function chunkKnobs(
  quick: boolean,
  litqa2Default?: number,
): {
  pubmedqa: number;
  slice: [number, number] | undefined;
  label: string | undefined;
  litqa2: number;
  warmup: boolean;
  tuning: boolean;
} {
  const size = quick ? sizes.quick : sizes.full;
  const count = (name: string, fallback: number) => {
    const value = process.env[name]?.trim();
    if (!value) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0)
      throw new Error(`${name} must be a whole number, got ${value}`);
    return parsed;
  };
  const sliceText = process.env.EVAL_AGENT_PUBMEDQA_SLICE?.trim();
  const slice = sliceText ? /^(\d+):(\d+)$/.exec(sliceText) : undefined;
  if (sliceText && !slice) throw new Error(`EVAL_AGENT_PUBMEDQA_SLICE must be from:to, got ${sliceText}`);
  const label = process.env.EVAL_AGENT_LABEL?.trim();
  if (label && !/^[\w.-]+$/.test(label))
    throw new Error(`EVAL_AGENT_LABEL must be a plain name, got ${label}`);
  return {
    pubmedqa: count('EVAL_AGENT_PUBMEDQA_N', size.pubmedqa),
    slice: slice ? [Number(slice[1]), Number(slice[2])] : undefined,
    label: label || undefined,
    litqa2: count('EVAL_AGENT_LITQA2_N', litqa2Default ?? size.litqa2),
    warmup: process.env.EVAL_AGENT_WARMUP?.trim() !== '0',
    tuning: sampleName() === 'tuning',
  };
}

function sampleName(): 'goal' | 'tuning' {
  const name = process.env.EVAL_AGENT_PUBMEDQA_SAMPLE?.trim() || 'goal';
  if (name !== 'goal' && name !== 'tuning')
    throw new Error(`EVAL_AGENT_PUBMEDQA_SAMPLE must be goal or tuning, got ${name}`);
  return name;
}

/**
 * The research agent on the local 1.5B model (issue 15's goals): PubMedQA questions, each with its
 * abstract among all 667 PQA-L abstracts ingested as records, answered through the agent as the chat
 * endpoint runs it (the answer must start with yes/no/maybe); LitQA2's multiple-choice items whose
 * source PDFs are in the project of the extractive agent evaluation (the ideal option chosen, the
 * source paper cited); fabricated citations audited on every answer; the extractive agent on the
 * same PubMedQA items beside. A fixed sample, stratified by gold label and seeded: N, the sample's
 * majority-class rate and the confusion counts are printed. Skipped (with a printed line) when the
 * Qwen weights are not installed. Knobs for chunked runs: `chunkKnobs`.
 */
export async function localAgentEval(options: EvalOptions): Promise<EvalReport> {
  if (options.provider === 'openai') {
    const backend = await startOpenAiBackend();
    if (typeof backend === 'string') {
      return {
        name: 'Research agent over the OpenAI-compatible API: SKIPPED',
        metrics: {},
        summary: [`SKIPPED: ${backend}; the agent on the OpenAI-compatible path was not measured`],
      };
    }
    try {
      return await agentEvalOn(options, {
        kind: 'openai',
        model: backend.model,
        where: backend.server,
        env: { ALEXANDRIA_CHAT_TEMPERATURE: process.env.ALEXANDRIA_CHAT_TEMPERATURE ?? '0', ...backend.env },
        wire: () => wireLine(backend.wire.exchanges),
      });
    } finally {
      await backend.close();
    }
  }
  const modelPath =
    process.env.ALEXANDRIA_CHAT_MODEL_PATH?.trim() ||
    join(chatModelDir(), localChatModelFiles['qwen2.5-1.5b']);
  if (!existsSync(modelPath)) {
    return {
      name: 'Research agent on the local model: SKIPPED',
      metrics: {},
      summary: [
        `SKIPPED: no local model at ${modelPath} (node scripts/setup-model.mjs --chat-model qwen2.5-1.5b); the PubMedQA, LitQA2 and latency goals of the local model were not measured`,
      ],
    };
  }
  return agentEvalOn(options, {
    kind: 'local',
    model: modelPath.split('/').pop() ?? modelPath,
    where: `in-process llama.cpp threads ${process.env.ALEXANDRIA_CHAT_THREADS ?? '(budget share)'}`,
    env: {
      ALEXANDRIA_CHAT_PROVIDER: 'local',
      ALEXANDRIA_CHAT_MODEL_PATH: modelPath,
      ALEXANDRIA_CHAT_TEMPERATURE: process.env.ALEXANDRIA_CHAT_TEMPERATURE ?? '0',
    },
  });
}

/** Which chat model answers: in this process (`local`) or behind the OpenAI-compatible adapter. */
interface ModelUnderTest {
  kind: 'local' | 'openai';
  /** The GGUF file's or the API model's name. */
  model: string;
  /** Where it runs, for the report's name. */
  where: string;
  /** Environment of the agent's container. */
  env: Record<string, string>;
  /** What crossed the wire (the OpenAI-compatible path), one line. */
  wire?: () => string;
}

async function agentEvalOn(options: EvalOptions, under: ModelUnderTest): Promise<EvalReport> {
  const { kind } = under;
  // LitQA2 needs the project the extractive evaluation fills, which `--provider openai` leaves out.
  const knobs = chunkKnobs(options.quick, kind === 'openai' ? 0 : undefined);
  const all = await readJsonLines<PubMedQaItem>(join(sharedData, 'eval', 'pubmedqa', 'pubmedqa_pqal.jsonl'));
  const goalSample = stratifiedSample(all, knobs.pubmedqa, seed);
  const sample = knobs.tuning
    ? stratifiedSample(
        all.filter((item) => !goalSample.includes(item)),
        knobs.pubmedqa,
        tuningSeed,
      )
    : goalSample;
  const asked = knobs.slice ? sample.slice(knobs.slice[0], knobs.slice[1]) : sample;
  const majority = majorityOf(all);
  const sampleMajority = majorityOf(sample);

  // With a label each answer is stored as soon as it is written: a chunk cut by a time limit keeps
  // what it answered.
  const labelFile = knobs.label
    ? join('.eval', `agent-${kind}-pubmedqa-${knobs.tuning ? 'tuning-' : ''}${knobs.label}.jsonl`)
    : undefined;
  const pubmedDir = join('.eval', 'agent-pubmedqa-data');
  await mkdir(pubmedDir, { recursive: true });
  const transcript: string[] = [];

  // The extractive agent first (seconds), on the same index.
  const extractive = await withContainer(
    pubmedDir,
    { ALEXANDRIA_CHAT_PROVIDER: 'none' },
    async (container) => {
      await container.stores.index.upsert(all.map(pubmedRecord));
      return askPubMedQa(container, asked, 'extractive', transcript);
    },
  );
  const localEnv = under.env;
  // A server loads the model at start and has usually answered before (the sequence then holds the
  // action protocol): one untimed question first, not from the sample, so that the timed answers are
  // those of a running service; its time (model load and a cold sequence) is printed on its own.
  const warmup =
    knobs.warmup && asked.length > 0
      ? all.find((item) => !sample.includes(item) && !goalSample.includes(item))
      : undefined;
  let coldMs: number | undefined;
  const local = await withContainer(pubmedDir, localEnv, async (container) => {
    if (warmup) coldMs = await warmUp(container, `${warmup.question} Answer yes, no or maybe first.`);
    return askPubMedQa(container, asked, kind, transcript, labelFile);
  });
  // LitQA2: the project the extractive agent evaluation filled (.eval/agent-data, run before this).
  const litqa = knobs.litqa2 > 0 ? await loadLitQa() : [];
  const litSample = seededSample(litqa, knobs.litqa2, seed);
  const lit =
    litSample.length > 0
      ? await withContainer(join('.eval', 'agent-data'), localEnv, (container) =>
          askLitQa(container, litSample, transcript),
        )
      : emptyTally();
  await mkdir('.eval', { recursive: true });
  await writeFile(join('.eval', `agent-${kind}-answers.md`), transcript.join('\n'));

  // The PubMedQA figures: this run's answers, or with a label every stored answer of the sample.
  let answers = local.items;
  let stored = '';
  if (knobs.label && labelFile) {
    const file = labelFile;
    const latest = new Map((await readJsonLines<ItemResult>(file)).map((item) => [item.pmid, item]));
    answers = sample.flatMap((item) => latest.get(item.pmid) ?? []);
    stored = ` (label ${knobs.label}: ${answers.length} of the sample's ${sample.length} items answered so far, in ${file})`;
  }
  const pubmed = summarize(answers);
  const n = answers.length;
  const accuracy = pubmed.correct / Math.max(1, n);
  const answered = majorityOf(answers.map((item) => ({ final_decision: item.gold })));
  const fabricated = local.fabricated + lit.fabricated;
  const times = [...local.times, ...lit.times];
  const p95 = percentile(times, 0.95);
  const model = under.model;
  const sliceNote = knobs.slice ? `, items ${knobs.slice[0]}-${knobs.slice[1] - 1} asked` : '';
  const thisRun = local.items.length + litSample.length;
  const uncited = local.items.filter((item) => !item.citesAnything).length + lit.uncited;
  return {
    name: `Research agent ${kind === 'local' ? 'on the local model' : 'over the OpenAI-compatible API'} (${model}, ${under.where}): PubMedQA stratified N=${sample.length}${knobs.tuning ? ' (the TUNING sample, seed 16, outside the goal sample: not the goal figure)' : ''}${sliceNote}, LitQA2 with PDFs N=${litSample.length}, seed ${seed}`,
    metrics: {
      [`PubMedQA accuracy (${kind})`]: accuracy,
      'PubMedQA majority class (all 667)': majority.share,
      'PubMedQA majority class (sample)': sampleMajority.share,
      'PubMedQA majority class (answered)': answered.share,
      'PubMedQA answers with a verdict': pubmed.verdicts / Math.max(1, n),
      [`PubMedQA cites the source (${kind})`]: pubmed.cited / Math.max(1, n),
      'PubMedQA cites the source (extractive)': extractive.cited / Math.max(1, asked.length),
      [`LitQA2 ideal option (${kind})`]: lit.ideal / Math.max(1, litSample.length),
      [`LitQA2 cites the source (${kind})`]: lit.cited / Math.max(1, litSample.length),
      [`fabricated citations (${kind})`]: fabricated,
      'fabricated citations (extractive)': extractive.fabricated,
      [`answers citing nothing (${kind})`]: uncited,
      [`answer p50 s (${kind})`]: percentile(times, 0.5) / 1000,
      [`answer p95 s (${kind})`]: p95 / 1000,
      'answer p95 s (extractive)': percentile(extractive.times, 0.95) / 1000,
      [`fell back to extractive (${kind})`]: local.fallbacks + lit.fallbacks,
    },
    summary: [
      `PubMedQA accuracy (answer starts with yes/no/maybe): ${pubmed.correct}/${n} = ${pct(accuracy)} (goal ≥ 65%: ${accuracy >= 0.65 ? 'met' : 'NOT met'}) beside the majority class of the answered items: ${answered.label} ${pct(answered.share)} (stratified sample: ${pct(sampleMajority.share)}; all 667: ${majority.label} ${pct(majority.share)})${stored}; answers starting with a verdict ${pubmed.verdicts}/${n}; extractive agent: ${extractive.verdicts}/${asked.length} verdicts (it quotes, it does not answer yes/no)`,
      `PubMedQA confusion (gold → answered): ${confusionLine(answers)}`,
      `PubMedQA cites the source abstract: local ${pubmed.cited}/${n}, extractive ${extractive.cited}/${asked.length}; local answers citing nothing ${pubmed.uncited}/${n}`,
      `LitQA2 items with their PDFs: ideal option chosen ${lit.ideal}/${litSample.length}, right paper cited ${lit.cited}/${litSample.length} (extractive agent: see the section above)`,
      `fabricated citations (audit, this run): local ${fabricated} over ${thisRun} answers, extractive ${extractive.fabricated} over ${asked.length} (goal 0: ${fabricated === 0 ? 'met' : 'NOT met'})`,
      `answers that cite nothing (this run): local ${uncited}/${thisRun} ("every answer cites what it states": ${uncited === 0 ? 'met' : 'NOT met'}); extractive PubMedQA ${extractive.uncited}/${asked.length}`,
      `warm-up (model load, a cold sequence and the first step of an untimed question not in the sample; not in the figures): ${coldMs === undefined ? 'none (EVAL_AGENT_WARMUP=0 or nothing asked)' : `${(coldMs / 1000).toFixed(1)} s`}`,
      `whole answer (this run, in-process, no HTTP; PubMedQA after the warm-up, LitQA2 without one): local p50 ${(percentile(times, 0.5) / 1000).toFixed(1)} s, p95 ${(p95 / 1000).toFixed(1)} s (goal ≤ 90 s: ${p95 <= 90_000 ? 'met' : 'NOT met'}); extractive p95 ${(percentile(extractive.times, 0.95) / 1000).toFixed(2)} s; first streamed progress: see npm run bench -- agent`,
      ...local.lines,
      ...lit.lines,
      ...(under.wire ? [`the OpenAI-compatible wire (this run, warm-up included): ${under.wire()}`] : []),
      `answers: .eval/agent-${kind}-answers.md`,
    ],
  };
}

type Verdict = 'yes' | 'no' | 'maybe';

/** One PubMedQA answer of the local agent, as stored for a labelled (chunked) run. */
interface ItemResult {
  pmid: string;
  gold: Verdict;
  verdict: Verdict | null;
  /** The source abstract is cited. */
  cited: boolean;
  /** Anything is cited. */
  citesAnything: boolean;
  fabricated: number;
  steps: number;
  ms: number;
  /** The model's probabilities of yes, no and maybe at the verdict step (when it gave them). */
  probabilities?: Record<string, number>;
}

function summarize(items: ItemResult[]): {
  correct: number;
  verdicts: number;
  cited: number;
  uncited: number;
} {
  return {
    correct: items.filter((item) => item.verdict === item.gold).length,
    verdicts: items.filter((item) => item.verdict !== null).length,
    cited: items.filter((item) => item.cited).length,
    uncited: items.filter((item) => !item.citesAnything).length,
  };
}

/** "yes → yes 9, no 2, maybe 0, none 0; no → …": how each gold label was answered. */
export function confusionLine(items: Array<{ gold: Verdict; verdict: Verdict | null }>): string {
  const labels: Verdict[] = ['yes', 'no', 'maybe'];
  return labels
    .map((gold) => {
      const row = items.filter((item) => item.gold === gold);
      const counts = [...labels, null].map(
        (answer) => `${answer ?? 'none'} ${row.filter((item) => item.verdict === answer).length}`,
      );
      return `${gold} (${row.length}) → ${counts.join(', ')}`;
    })
    .join('; ');
}

interface Tally {
  correct: number;
  verdicts: number;
  cited: number;
  uncited: number;
  fabricated: number;
  fallbacks: number;
  ideal: number;
  times: number[];
  lines: string[];
  items: ItemResult[];
}

const emptyTally = (): Tally => ({
  correct: 0,
  verdicts: 0,
  cited: 0,
  uncited: 0,
  fabricated: 0,
  fallbacks: 0,
  ideal: 0,
  times: [],
  lines: [],
  items: [],
});

async function askPubMedQa(
  container: Container,
  items: PubMedQaItem[],
  label: string,
  transcript: string[],
  store?: string,
): Promise<Tally> {
  const tally = emptyTally();
  for (const item of items) {
    const question = `${item.question} Answer yes, no or maybe first, then explain briefly.`;
    const run = await ask(container, 'eval-pubmedqa', question);
    const verdict = verdictOf(run.content);
    const cited = run.summary.citations.cited.some((entry) => entry.paper.url === pubmedUrl(item.pmid));
    const problems = auditCitations(run.content, run.summary.ledger);
    tally.times.push(run.ms);
    tally.verdicts += verdict ? 1 : 0;
    tally.correct += verdict === item.final_decision ? 1 : 0;
    tally.cited += cited ? 1 : 0;
    tally.uncited += run.summary.citations.cited.length === 0 ? 1 : 0;
    tally.fabricated += problems.length;
    tally.fallbacks += run.summary.fallback ? 1 : 0;
    tally.items.push({
      pmid: item.pmid,
      gold: item.final_decision,
      verdict: verdict ?? null,
      cited,
      citesAnything: run.summary.citations.cited.length > 0,
      fabricated: problems.length,
      steps: run.summary.steps,
      ms: Math.round(run.ms),
      ...(run.summary.verdictProbabilities ? { probabilities: run.summary.verdictProbabilities } : {}),
    });
    if (store) {
      await mkdir('.eval', { recursive: true });
      await appendFile(store, `${JSON.stringify(tally.items.at(-1))}\n`);
    }
    if (label !== 'extractive') {
      tally.lines.push(
        `  pubmedqa ${item.pmid.padEnd(9)} gold ${item.final_decision.padEnd(5)} answer ${(verdict ?? '-').padEnd(5)} cites source: ${cited ? 'yes' : 'no '} fabricated: ${problems.length} steps ${run.summary.steps} (${(run.ms / 1000).toFixed(1)} s)`,
      );
    }
    transcript.push(
      `## [${label}] ${item.question}\n\nGold: ${item.final_decision} (PMID ${item.pmid}); verdict: ${verdict ?? '-'}; ${run.summary.steps} steps, ${(run.ms / 1000).toFixed(1)} s\n\n${run.progress}\n${run.content}\n`,
    );
  }
  return tally;
}

async function askLitQa(container: Container, items: LitQaItem[], transcript: string[]): Promise<Tally> {
  const tally = emptyTally();
  const letters = 'ABCDEFG';
  for (const item of items) {
    const options = seededSample([item.ideal, ...item.distractors], 1 + item.distractors.length, seed);
    const listed = options.map((option, index) => `(${letters[index]}) ${option}`).join('\n');
    const question = `${item.question}\n${listed}\nAnswer with the letter of the right option first, then explain, citing the paper.`;
    // The upload is idempotent by content: this finds the record the extractive evaluation stored.
    const bytes = new Uint8Array(await readFile(join(sharedData, 'pdfs', item.file)));
    const [source] = await container.services.library.add(
      'eval-agent',
      { projectName: 'litqa2-pdfs' },
      { kind: 'upload', bytes, filename: item.file },
    );
    const run = await ask(container, 'eval-agent', question);
    const chosen = chosenOption(run.content, options);
    const right = chosen === item.ideal;
    const cited = run.summary.citations.cited.some(
      (entry) =>
        (normalizeDoi(entry.paper.doi ?? entry.paper.identifiers?.doi ?? null) ?? '') === item.doi ||
        (source?.pdf_id !== undefined && entry.paper.pdf_id === source.pdf_id),
    );
    const problems = auditCitations(run.content, run.summary.ledger);
    tally.times.push(run.ms);
    tally.ideal += right ? 1 : 0;
    tally.cited += cited ? 1 : 0;
    tally.uncited += run.summary.citations.cited.length === 0 ? 1 : 0;
    tally.fabricated += problems.length;
    tally.fallbacks += run.summary.fallback ? 1 : 0;
    // The option step's letter and the model's probabilities of the letters, when it took one.
    const ideal = letters[options.indexOf(item.ideal)];
    const step = run.summary.option
      ? ` option step ${run.summary.option} (ideal ${ideal}${
          run.summary.optionProbabilities
            ? `; ${Object.entries(run.summary.optionProbabilities)
                .map(([letter, probability]) => `${letter} ${probability.toFixed(2)}`)
                .join(', ')}`
            : ''
        })`
      : '';
    tally.lines.push(
      `  litqa2 ${item.file.padEnd(40)} ideal ${right ? 'yes' : 'NO '} (chose ${chosen ?? '-'}) cites source: ${cited ? 'yes' : 'no '} fabricated: ${problems.length} steps ${run.summary.steps} (${(run.ms / 1000).toFixed(1)} s)${step}`,
    );
    transcript.push(
      `## [local, LitQA2] ${question}\n\nIdeal: ${item.ideal}; source ${item.file}; chose ${chosen ?? '-'}; ${run.summary.steps} steps, ${(run.ms / 1000).toFixed(1)} s\n\n${run.progress}\n${run.content}\n`,
    );
  }
  return tally;
}

async function ask(
  container: Container,
  tenantId: string,
  question: string,
): Promise<{ content: string; progress: string; summary: RunSummary; ms: number }> {
  const started = performance.now();
  let content = '';
  let progress = '';
  let summary: RunSummary | undefined;
  // Where the time goes: when each progress line (a tool call) and the first answer text arrived.
  const marks: string[] = [];
  const mark = (label: string) => marks.push(`${label} ${((performance.now() - started) / 1000).toFixed(1)}`);
  for await (const event of container.services.research.run({
    tenantId,
    messages: [{ role: 'user', content: question }],
    signal: new AbortController().signal,
  })) {
    if (event.type === 'content') {
      if (!content) mark('text');
      content += event.text;
    } else if (event.type === 'progress') {
      mark(
        event.text
          .trim()
          .split(/\s+/)
          .slice(0, 2)
          .join(' ')
          .replace(/[^\w ]/g, '')
          .toLowerCase(),
      );
      progress += `> ${event.text}`;
    } else summary = event.summary;
  }
  if (!summary) throw new Error(`no summary for: ${question}`);
  mark('done');
  const { promptTokens, completionTokens } = summary.usage;
  // Progress on stderr: a full run takes tens of minutes.
  process.stderr.write(
    `agent-local: ${((performance.now() - started) / 1000).toFixed(1)} s, ${summary.steps} steps${summary.stoppedBy ? ` (stopped by ${summary.stoppedBy})` : ''}, tokens ${promptTokens}+${completionTokens} [${marks.join(' | ')}]: ${question.slice(0, 70)}\n`,
  );
  return { content, progress, summary, ms: performance.now() - started };
}

/**
 * An untimed question that stops after the model's first step (its first action or answer text):
 * the model is loaded and the sequence holds the action protocol, as in a server that has answered
 * before. Returns the milliseconds it took.
 */
async function warmUp(container: Container, question: string): Promise<number> {
  const started = performance.now();
  let progress = 0;
  for await (const event of container.services.research.run({
    tenantId: 'eval-pubmedqa',
    messages: [{ role: 'user', content: question }],
    signal: new AbortController().signal,
  })) {
    // The search-first lines come before the model's first step; the next event is its action.
    if (event.type === 'progress') progress += 1;
    if (event.type === 'content' || progress >= 3) break;
  }
  const ms = performance.now() - started;
  process.stderr.write(
    `agent-local: warm-up ${(ms / 1000).toFixed(1)} s (untimed): ${question.slice(0, 70)}\n`,
  );
  return ms;
}

async function withContainer<T>(
  dataDir: string,
  env: Record<string, string>,
  work: (container: Container) => Promise<T>,
): Promise<T> {
  const config = loadConfig({
    // The local corpus is what is measured, unless the environment names sources (decision 0045).
    ALEXANDRIA_SOURCES: 'none',
    ...process.env,
    ...env,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
  });
  const container = await createContainer(config, createLogger({ level: 'silent' }));
  try {
    return await work(container);
  } finally {
    await container.close();
  }
}

const pubmedUrl = (pmid: string) => `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`;

/** A PQA-L item as the record of its article: its title is the question (PubMedQA's source). */
function pubmedRecord(item: PubMedQaItem): Paper {
  return {
    ...emptyPaper(item.question),
    abstract: item.contexts.join(' '),
    year: item.year ? Number(item.year) : null,
    url: pubmedUrl(item.pmid),
    identifiers: { pmid: item.pmid },
  };
}

/** yes / no / maybe when the answer starts with it (after markdown and punctuation). */
export function verdictOf(answer: string): 'yes' | 'no' | 'maybe' | undefined {
  const first = /^[\s*_#>"'`-]*(?:answer\s*:\s*)?[*_]*(yes|no|maybe)\b/i.exec(answer);
  return first?.[1]?.toLowerCase() as 'yes' | 'no' | 'maybe' | undefined;
}

/** The option the answer names first: by its letter ("(B)", "B)", "B.") or by its text. */
export function chosenOption(answer: string, options: string[]): string | undefined {
  const letters = 'ABCDEFG';
  let best: { index: number; option: string } | undefined;
  options.forEach((option, position) => {
    const letter = letters[position];
    const patterns = [
      new RegExp(`(?:^|[^A-Za-z])\\(?${letter}\\)(?![A-Za-z])`),
      new RegExp(`(?:^|\\*\\*|option\\s+|answer(?: is)?:?\\s+)${letter}(?:[.:)]|\\*\\*|\\s|$)`, 'i'),
      new RegExp(escapeRegExp(option), 'i'),
    ];
    for (const pattern of patterns) {
      const match = pattern.exec(answer);
      if (match && (best === undefined || match.index < best.index)) best = { index: match.index, option };
    }
  });
  return best?.option;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** LitQA2 items (public set + the single-PDF file) whose source PDF is among the shared PDFs. */
async function loadLitQa(): Promise<LitQaItem[]> {
  const manifest = (
    await readJsonLines<{ file: string; doi?: string; has_text_layer: boolean }>(
      join(sharedData, 'pdfs', 'pdfs_manifest.jsonl'),
    )
  ).filter((entry) => entry.has_text_layer);
  const byDoi = new Map(
    manifest.flatMap((entry) => (entry.doi ? [[normalizeDoi(entry.doi) ?? '', entry]] : [])),
  );
  const items = new Map<string, LitQaItem>();
  for (const item of await readJsonLines<{
    id: string;
    question: string;
    ideal: string;
    distractors: string[];
    dois?: string[];
  }>(join(sharedData, 'eval', 'litqa2', 'litqa2_public.jsonl'))) {
    for (const doi of item.dois ?? []) {
      const entry = byDoi.get(normalizeDoi(doi) ?? '');
      if (entry) {
        const { id, question, ideal, distractors } = item;
        items.set(id, { id, question, ideal, distractors, doi: normalizeDoi(doi) ?? doi, file: entry.file });
      }
    }
  }
  for (const item of await readJsonLines<{
    litqa2_id: string;
    question: string;
    ideal: string;
    distractors: string[];
    doi: string;
    pdf_file: string;
  }>(join(sharedData, 'eval', 'pdf_qa', 'litqa2_pdf_questions.jsonl'))) {
    if (items.has(item.litqa2_id)) continue;
    items.set(item.litqa2_id, {
      id: item.litqa2_id,
      question: item.question,
      ideal: item.ideal,
      distractors: item.distractors,
      doi: normalizeDoi(item.doi) ?? item.doi,
      file: item.pdf_file,
    });
  }
  return [...items.values()];
}

/** A fixed sample: the items shuffled by a seeded generator (mulberry32), the first `count`. */
export function seededSample<T>(items: T[], count: number, seedValue: number): T[] {
  let state = seedValue >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy.slice(0, count);
}

/**
 * A sample of `count` items whose gold labels keep the shares of all items (largest remainder per
 * label; ties to the larger label), each label's items drawn by the seeded shuffle, then the whole
 * sample shuffled with the same seed so that any slice of it mixes the labels.
 */
export function stratifiedSample<T extends { final_decision: string }>(
  items: T[],
  count: number,
  seedValue: number,
): T[] {
  const byLabel = new Map<string, T[]>();
  for (const item of items)
    byLabel.set(item.final_decision, [...(byLabel.get(item.final_decision) ?? []), item]);
  const size = Math.min(count, items.length);
  const quotas = [...byLabel.entries()]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([label, members]) => {
      const exact = (members.length / Math.max(1, items.length)) * size;
      return { label, members, quota: Math.floor(exact), remainder: exact - Math.floor(exact) };
    });
  let left = size - quotas.reduce((sum, entry) => sum + entry.quota, 0);
  for (const entry of [...quotas].sort(
    (a, b) => b.remainder - a.remainder || b.members.length - a.members.length,
  )) {
    if (left <= 0) break;
    entry.quota += 1;
    left -= 1;
  }
  const chosen = quotas.flatMap((entry) => seededSample(entry.members, entry.quota, seedValue));
  return seededSample(chosen, chosen.length, seedValue);
}

function majorityOf(items: Array<{ final_decision: string }>): { label: string; share: number } {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.final_decision, (counts.get(item.final_decision) ?? 0) + 1);
  const [label, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  return { label, share: count / Math.max(1, items.length) };
}

const pct = (value: number) => `${(value * 100).toFixed(0)}%`;
