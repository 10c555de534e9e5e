import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../src/agent/agent-types.js';
import { auditCitations } from '../src/agent/citation-audit.js';
import { type Config, loadConfig } from '../src/config/load-config.js';
import {
  chatModelDir,
  defaultChatModelPath,
  localChatModelFiles,
  resolveChatProfile,
} from '../src/config/sections/chat.js';
import { type Container, createContainer } from '../src/main.js';
import { createLogger } from '../src/platform/logger.js';
import type { EvalOptions, EvalReport } from './index.js';
import { agentReport, verdictOf } from './lib/agent-report.js';
import {
  type AgentCorpus,
  type AgentItem,
  agentSets,
  corpusRecords,
  interleaved,
  loadAgentItems,
  type Split,
} from './lib/agent-sets.js';
import {
  type AnswerOf,
  AnswerStore,
  agentSources,
  answerMissing,
  type FingerprintParts,
  fingerprintOf,
  modelIdentity,
} from './lib/agent-store.js';
import { wireLine } from './lib/chat-wire-recorder.js';
import { startOpenAiBackend } from './lib/openai-backend.js';

const repoRoot = join(import.meta.dirname, '..');
/** Items asked per corpus before the run turns to the other (each turn opens its own container). */
const turnSize = 50;
/** `--quick`: the first items of each set. */
const quickPerSet = 3;

/** Which chat model answers: in this process (`local`) or behind the OpenAI-compatible adapter. */
interface ModelUnderTest {
  kind: 'local' | 'openai';
  model: FingerprintParts['model'];
  /** Where it runs, for the report's name. */
  where: string;
  /** Environment of the agent's container. */
  env: Record<string, string>;
  /** What crossed the wire (the OpenAI-compatible path), one line. */
  wire?: () => string;
}

/**
 * The research agent on a chat model over four sets at full size (decision 0066): all PubMedQA
 * items, SciFact claims with evidence and without, written open requests; each answer stored at
 * once under a fingerprint of the model, the agent's code and the chat settings, so that a run cut
 * short resumes where it stopped. Knobs: `knobs()`. Skipped (a printed line) without the weights.
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
    const served = process.env.ALEXANDRIA_CHAT_MODEL_PATH?.trim() || defaultChatModelPath();
    try {
      return await agentEvalOn(options, {
        kind: 'openai',
        model: process.env.ALEXANDRIA_CHAT_URL?.trim()
          ? { name: backend.model, size: 0 }
          : modelIdentity(served),
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
        `SKIPPED: no local model at ${modelPath} (node scripts/setup-model.mjs --chat-model qwen2.5-1.5b); the agent's goals on the local model were not measured`,
      ],
    };
  }
  return agentEvalOn(options, {
    kind: 'local',
    model: modelIdentity(modelPath),
    where: `in-process llama.cpp threads ${process.env.ALEXANDRIA_CHAT_THREADS ?? '(budget share)'}`,
    env: {
      ALEXANDRIA_CHAT_PROVIDER: 'local',
      ALEXANDRIA_CHAT_MODEL_PATH: modelPath,
      ALEXANDRIA_CHAT_TEMPERATURE: process.env.ALEXANDRIA_CHAT_TEMPERATURE ?? '0',
    },
  });
}

/** The evaluation's knobs, from the environment (decision 0066). */
function knobs() {
  const env = (name: string) => process.env[name]?.trim() || undefined;
  const whole = (name: string) => {
    const value = env(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a number ≥ 0, got ${value}`);
    return parsed;
  };
  const split = env('EVAL_AGENT_SPLIT') ?? 'reporting';
  if (split !== 'reporting' && split !== 'tuning')
    throw new Error(`EVAL_AGENT_SPLIT must be reporting or tuning, got ${split}`);
  const sets = (env('EVAL_AGENT_SETS') ?? agentSets.join(',')).split(',').map((set) => set.trim());
  const unknown = sets.filter((set) => !(agentSets as readonly string[]).includes(set));
  if (unknown.length > 0)
    throw new Error(`EVAL_AGENT_SETS: unknown ${unknown.join(', ')} (known: ${agentSets.join(', ')})`);
  const minutes = whole('EVAL_AGENT_DEADLINE_MINUTES');
  return {
    split: split as Split,
    sets,
    limit: whole('EVAL_AGENT_LIMIT'),
    deadline: minutes === undefined ? undefined : Date.now() + minutes * 60_000,
    store: env('EVAL_AGENT_STORE'),
    warmup: env('EVAL_AGENT_WARMUP') !== '0',
  };
}

/** The chat settings that change an answer (decision 0066): no threads, URLs, keys or keep-alive. */
function answerSettings(chat: Config['chat']): Record<string, unknown> {
  return {
    ...resolveChatProfile(chat),
    temperature: chat.temperature,
    contextTokens: chat.contextTokens,
    maxTokens: chat.maxTokens,
    maxTokensPerCall: chat.maxTokensPerCall,
    toolTimeoutMs: chat.toolTimeoutMs,
    tokenLimitParameter: chat.tokenLimitParameter,
    streamToolTurns: chat.streamToolTurns,
    toolResultRole: chat.toolResultRole,
    readRemotePdfs: chat.readRemotePdfs,
  };
}

function configFor(dataDir: string, env: Record<string, string>): Config {
  return loadConfig({
    // The local corpus is what is measured, unless the environment names sources (decision 0045).
    ALEXANDRIA_SOURCES: 'none',
    ...process.env,
    ...env,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
  });
}

async function agentEvalOn(options: EvalOptions, under: ModelUnderTest): Promise<EvalReport> {
  const { kind } = under;
  const knob = knobs();
  const everything = (await loadAgentItems()).filter(
    (item) => item.split === knob.split && knob.sets.includes(item.set),
  );
  const items = options.quick
    ? agentSets.flatMap((set) => everything.filter((item) => item.set === set).slice(0, quickPerSet))
    : everything;
  const dataDir = (corpus: AgentCorpus) => join('.eval', `agent-${corpus}-data`);
  const fingerprint = fingerprintOf({
    model: under.model,
    sources: agentSources(repoRoot),
    chat: answerSettings(configFor(dataDir('pubmedqa'), under.env).chat),
  });
  const storePath = knob.store ?? join(repoRoot, 'eval', 'results', 'agent', `${kind}.jsonl`);
  const store = await AnswerStore.open(storePath, fingerprint);
  const transcript: string[] = [];
  const answer: AnswerOf = async (item) => {
    const run = await ask(await containerFor(item.corpus), item.question);
    transcript.push(
      `## [${item.set} ${item.id}] ${item.question}\n\nGold: ${item.gold ?? '-'}; ${run.summary.steps} steps, ${(run.ms / 1000).toFixed(1)} s\n\n${run.progress}\n${run.content}\n`,
    );
    return rowOf(item, run);
  };

  // One container (and model load) per turn of up to `turnSize` items of one corpus, the corpora in
  // turn; the order within a corpus interleaves its sets.
  let open: { corpus: AgentCorpus; container: Container } | undefined;
  let coldMs: number | undefined;
  const containerFor = async (corpus: AgentCorpus) => {
    if (open?.corpus === corpus) return open.container;
    await open?.container.close();
    // runJobs: the background walk gives the records their vectors, as in a running server.
    const container = await createContainer(
      configFor(dataDir(corpus), under.env),
      createLogger({ level: 'silent' }),
      { runJobs: true },
    );
    open = { corpus, container };
    await ingestOnce(container, corpus, dataDir(corpus));
    await vectorsReady(container);
    if (knob.warmup)
      coldMs = (coldMs ?? 0) + (await warmUp(container, 'What is known about vitamin D and bone health?'));
    return container;
  };
  const pending = interleaved(items).filter((item) => !store.has(item.id));
  const queues = (['pubmedqa', 'scifact'] as const).map((corpus) =>
    pending.filter((item) => item.corpus === corpus),
  );
  let answered = 0;
  const started = performance.now();
  try {
    while (queues.some((queue) => queue.length > 0)) {
      if (knob.limit !== undefined && answered >= knob.limit) break;
      if (knob.deadline !== undefined && Date.now() >= knob.deadline) break;
      for (const queue of queues) {
        const turn = queue.splice(0, turnSize);
        if (turn.length === 0) continue;
        const left = knob.limit === undefined ? undefined : knob.limit - answered;
        if (left === 0) break;
        answered += await answerMissing(store, turn, answer, { limit: left, deadline: knob.deadline });
      }
    }
  } finally {
    await open?.container.close();
  }
  await mkdir('.eval', { recursive: true });
  await writeFile(join('.eval', `agent-${kind}-answers.md`), transcript.join('\n'));

  const report = agentReport(items, store.answersOf(items), store.stale);
  const thisRun = `this run answered ${answered} new item(s) in ${((performance.now() - started) / 1000).toFixed(0)} s${coldMs === undefined ? '' : ` (warm-ups, untimed: ${(coldMs / 1000).toFixed(1)} s)`}; store ${storePath}, fingerprint ${fingerprint.slice(0, 12)}`;
  return {
    name: `Research agent ${kind === 'local' ? 'on the local model' : 'over the OpenAI-compatible API'} (${under.model.name}, ${under.where}): ${knob.split.toUpperCase()} split${knob.split === 'tuning' ? ' (not the figures quoted against the goals)' : ''}${options.quick ? `, --quick (${quickPerSet} per set)` : ''}, sets ${knob.sets.join(', ')}`,
    metrics: { ...report.metrics, 'answered this run': answered },
    summary: [
      thisRun,
      ...report.lines,
      ...(under.wire ? [`the OpenAI-compatible wire (this run, warm-ups included): ${under.wire()}`] : []),
      `this run's answers: .eval/agent-${kind}-answers.md`,
    ],
  };
}

/** Ingests a corpus into a data folder once (a marker file remembers it). */
async function ingestOnce(container: Container, corpus: AgentCorpus, dataDir: string): Promise<void> {
  const marker = join(dataDir, `ingested-${corpus}`);
  if (existsSync(marker)) return;
  const records = await corpusRecords(corpus);
  for (let start = 0; start < records.length; start += 1000)
    await container.stores.index.upsert(records.slice(start, start + 1000));
  await writeFile(marker, `${records.length}\n`);
}

/**
 * Waits until the background workers have given every record its vector (at most 60 min), so that
 * no answer depends on how far the embedding had got: the first run on a machine waits some minutes.
 */
async function vectorsReady(container: Container): Promise<void> {
  const model = container.recordVectorModel;
  if (!model) return;
  const started = performance.now();
  for (;;) {
    const pending = (await container.stores.index.stats(model)).vectors?.pending ?? 0;
    if (pending === 0) return;
    if (performance.now() - started > 3_600_000)
      throw new Error(`${pending} records still without a vector after 60 min`);
    process.stderr.write(`agent: waiting for ${pending} record vectors\n`);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
  }
}

interface Run {
  content: string;
  progress: string;
  summary: RunSummary;
  ms: number;
  firstProgressMs: number | null;
}

function rowOf(item: AgentItem, run: Run): Awaited<ReturnType<AnswerOf>> {
  const { ledger, citations, ...rest } = run.summary;
  return {
    id: item.id,
    set: item.set,
    split: item.split,
    question: item.question,
    answer: run.content,
    verdict: verdictOf(run.content),
    citations: citations.cited.map((source) => ({ url: source.paper.url ?? '', title: source.paper.title })),
    outsideLedger: auditCitations(run.content, ledger).map((problem) => problem.text),
    summary: {
      ...rest,
      citations: {
        kept: citations.kept,
        corrected: citations.corrected,
        linked: citations.linked,
        removed: citations.removed.length,
      },
    },
    seconds: Math.round(run.ms) / 1000,
    firstProgressSeconds: run.firstProgressMs === null ? null : Math.round(run.firstProgressMs) / 1000,
  };
}

async function ask(container: Container, question: string): Promise<Run> {
  const started = performance.now();
  let content = '';
  let progress = '';
  let firstProgressMs: number | null = null;
  let summary: RunSummary | undefined;
  for await (const event of container.services.research.run({
    tenantId: 'eval-agent-sets',
    messages: [{ role: 'user', content: question }],
    signal: new AbortController().signal,
  })) {
    if (firstProgressMs === null && event.type !== 'done') firstProgressMs = performance.now() - started;
    if (event.type === 'content') content += event.text;
    else if (event.type === 'progress') progress += `> ${event.text}`;
    else summary = event.summary;
  }
  if (!summary) throw new Error(`no summary for: ${question}`);
  const ms = performance.now() - started;
  const { promptTokens, completionTokens } = summary.usage;
  // Progress on stderr: a full run takes hours.
  process.stderr.write(
    `agent: ${(ms / 1000).toFixed(1)} s, ${summary.steps} steps${summary.stoppedBy ? ` (stopped by ${summary.stoppedBy})` : ''}, tokens ${promptTokens}+${completionTokens}: ${question.slice(0, 70)}\n`,
  );
  return { content, progress, summary, ms, firstProgressMs };
}

/**
 * An untimed question that stops after the model's first step: the model is loaded and the sequence
 * holds the action protocol, as in a server that has answered before. Returns its milliseconds.
 */
async function warmUp(container: Container, question: string): Promise<number> {
  const started = performance.now();
  let progress = 0;
  for await (const event of container.services.research.run({
    tenantId: 'eval-agent-warmup',
    messages: [{ role: 'user', content: question }],
    signal: new AbortController().signal,
  })) {
    // The search-first lines come before the model's first step; the next event is its action.
    if (event.type === 'progress') progress += 1;
    if (event.type === 'content' || progress >= 3) break;
  }
  const ms = performance.now() - started;
  process.stderr.write(`agent: warm-up ${(ms / 1000).toFixed(1)} s (untimed)\n`);
  return ms;
}
