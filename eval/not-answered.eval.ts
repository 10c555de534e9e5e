// `npm run eval -- not-answered`: how often the agent's relevance rule (src/agent/relevance.ts,
// decision 0047) finds no related record, so that the answer says "The papers found do not answer
// this". No model and no search engine: the candidates are the whole pool a search would rank
// (every other PubMedQA abstract; the SciFact corpus), so a question with any related record in the
// pool counts as answered — the figure is a lower bound on what the agent's top 10 would give.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { answerSettings } from '../src/agent/answerability.js';
import { keyTerms, termsNeeded } from '../src/agent/relevance.js';
import { loadConfig } from '../src/config/load-config.js';
import { contentTerms } from '../src/text/keywords.js';
import type { EvalReport } from './index.js';
import {
  type Candidate,
  CandidatePools,
  type JudgeSetting,
  notAnswered,
  poolSize,
} from './lib/answerability-pools.js';
import { readJsonLines } from './lib/jsonl.js';
import { memoizedEmbeddingModel } from './lib/memo-embedding-model.js';
import { wilson } from './verdict-classifier.eval.js';

const data = join(import.meta.dirname, '..', '..', 'shared', 'data', 'eval');
const interval = ([low, high]: [number, number]) => `[${low.toFixed(3)}, ${high.toFixed(3)}]`;

/** Each record's set of content terms. */
function termSets(texts: string[]): Array<Set<string>> {
  return texts.map((text) => new Set(contentTerms(text)));
}

/** Whether any record (but `skip`) shares enough of the question's key terms. */
function anyRelated(question: string, records: Array<Set<string>>, skip?: number): boolean {
  const keys = keyTerms(question);
  if (keys.length === 0) return true;
  const needed = termsNeeded(keys.length);
  return records.some(
    (terms, index) => index !== skip && keys.filter((key) => terms.has(key)).length >= needed,
  );
}

function line(label: string, notAnswered: number, total: number): string {
  return `${label}: "do not answer" ${notAnswered}/${total} = ${(notAnswered / Math.max(1, total)).toFixed(3)} (95% Wilson ${interval(wilson(notAnswered, total))})`;
}

export async function notAnsweredEval(): Promise<EvalReport> {
  const metrics: Record<string, number | string> = {};
  const summary: string[] = ['Term rule (decision 0047), the whole pool:'];
  let pubmed: Array<{ question: string; text: string }> = [];
  let scifact:
    | { texts: string[]; claims: Array<{ id: string; question: string; evidence: boolean }> }
    | undefined;
  const pubmedPath = join(data, 'pubmedqa', 'pubmedqa_pqal.jsonl');
  if (existsSync(pubmedPath)) {
    const items = await readJsonLines<{ question: string; contexts: string[] }>(pubmedPath);
    pubmed = items.map((item) => ({ question: item.question, text: item.contexts.join(' ') }));
    const records = termSets(items.map((item) => item.contexts.join(' ')));
    let leftOut = 0;
    let withOwn = 0;
    for (const [index, item] of items.entries()) {
      if (!anyRelated(item.question, records, index)) leftOut += 1;
      if (!anyRelated(item.question, records)) withOwn += 1;
    }
    summary.push(line(`PubMedQA, own abstract left out (${items.length})`, leftOut, items.length));
    summary.push(line(`PubMedQA, own abstract in the pool (${items.length})`, withOwn, items.length));
    metrics['pubmedqa left out: not answered'] = leftOut / items.length;
    metrics['pubmedqa own in: not answered'] = withOwn / items.length;
  }
  const corpusPath = join(data, 'scifact', 'corpus.jsonl.gz');
  const queriesPath = join(data, 'scifact', 'queries.jsonl');
  if (existsSync(corpusPath) && existsSync(queriesPath)) {
    const corpus = gunzipSync(readFileSync(corpusPath))
      .toString('utf8')
      .split('\n')
      .filter((row) => row.trim())
      .map((row) => JSON.parse(row) as { title: string; text: string });
    const records = termSets(corpus.map((doc) => `${doc.title} ${doc.text}`));
    const claims = await readJsonLines<{ text: string; evidence: Record<string, unknown> }>(queriesPath);
    const asked = (claim: string) => `Is it true that ${claim.replace(/\.$/, '')}?`;
    scifact = {
      texts: corpus.map((doc) => `${doc.title}\n${doc.text}`),
      claims: claims.map((claim) => ({
        id: (claim as unknown as { _id: string })._id,
        question: asked(claim.text),
        evidence: Object.keys(claim.evidence).length > 0,
      })),
    };
    for (const [label, chosen] of [
      ['SciFact claims without evidence', claims.filter((claim) => Object.keys(claim.evidence).length === 0)],
      ['SciFact claims with evidence', claims.filter((claim) => Object.keys(claim.evidence).length > 0)],
    ] as const) {
      const count = chosen.filter((claim) => !anyRelated(asked(claim.text), records)).length;
      summary.push(line(`${label} (${chosen.length}; corpus ${corpus.length})`, count, chosen.length));
      metrics[`${label}: not answered`] = count / Math.max(1, chosen.length);
    }
  }
  if (summary.length === 1) summary.push('shared data not found: nothing measured');
  else if (existsSync(loadConfig().embedding.modelDir))
    summary.push(...(await judgeLines(pubmed, scifact, metrics)));
  else summary.push('embedding model not installed: the answerability judge was not measured');
  return { name: 'not-answered', metrics, summary };
}

/** One group of questions: each question's candidates, and whether it is on the tuning split. */
interface Group {
  label: string;
  rows: Array<{ tuning: boolean; candidates: Candidate[] }>;
}

const rate = (rows: Group['rows'], setting: JudgeSetting) =>
  rows.filter((row) => notAnswered(row.candidates, setting)).length;

/**
 * The answerability judge (decision 0064) on each group's top-10 BM25 pools: the sweep on the tuning
 * split (the setting with the most "do not answer" with the own abstract left out whose false rate
 * with it in stays at most 0.05), then the shipped setting on both splits.
 */
async function judgeLines(
  pubmed: Array<{ question: string; text: string }>,
  scifact:
    | { texts: string[]; claims: Array<{ id: string; question: string; evidence: boolean }> }
    | undefined,
  metrics: Record<string, number | string>,
): Promise<string[]> {
  const model = memoizedEmbeddingModel(loadConfig(), 'not-answered-');
  const groups: Group[] = [];
  try {
    if (pubmed.length > 0) {
      const pools = new CandidatePools(
        pubmed.map((item) => item.text),
        model,
      );
      const leftOut: Group = { label: `PubMedQA, own abstract left out`, rows: [] };
      const withOwn: Group = { label: `PubMedQA, own abstract in the pool`, rows: [] };
      for (const [index, item] of pubmed.entries()) {
        const tuning = index % 2 === 0;
        leftOut.rows.push({ tuning, candidates: await pools.candidates(item.question, index) });
        withOwn.rows.push({ tuning, candidates: await pools.candidates(item.question) });
        if (index % 100 === 99)
          process.stderr.write(`not-answered: PubMedQA ${index + 1}/${pubmed.length}\n`);
      }
      groups.push(leftOut, withOwn);
      model.save();
    }
    if (scifact) {
      const pools = new CandidatePools(scifact.texts, model);
      const without: Group = { label: 'SciFact claims without evidence', rows: [] };
      const withEvidence: Group = { label: 'SciFact claims with evidence', rows: [] };
      for (const [index, claim] of scifact.claims.entries()) {
        if (index % 100 === 99)
          process.stderr.write(`not-answered: SciFact ${index + 1}/${scifact.claims.length}\n`);
        const row = {
          tuning: Number(claim.id) % 2 === 0,
          candidates: await pools.candidates(claim.question),
        };
        (claim.evidence ? withEvidence : without).rows.push(row);
      }
      groups.push(without, withEvidence);
    }
  } finally {
    model.save();
    await model.close();
  }
  const lines = [`Answerability judge (decision 0064), top ${poolSize} records by BM25, model ${model.id}:`];
  const [leftOut, withOwn] = groups;
  if (leftOut && withOwn) {
    const tuneOut = leftOut.rows.filter((row) => row.tuning);
    const tuneOwn = withOwn.rows.filter((row) => row.tuning);
    let chosen: { setting: JudgeSetting; out: number } | undefined;
    // Records the term rule does not relate are not judged (eval/lib/answerability-pools.ts): every
    // setting is gated by it.
    for (const cosineWeight of [0.5, 0.6, 0.7, 0.8, 0.9, 1])
      for (let step = 30; step <= 95; step += 1) {
        const setting = { cosineWeight, threshold: step / 100, gated: true };
        if (rate(tuneOwn, setting) > 0.05 * tuneOwn.length) continue;
        const out = rate(tuneOut, setting);
        if (!chosen || out > chosen.out) chosen = { setting, out };
      }
    if (chosen) {
      const { cosineWeight, threshold } = chosen.setting;
      lines.push(
        `  sweep on tuning (false "do not answer" with own abstract in <= 0.05): weight ${cosineWeight}, threshold ${threshold.toFixed(2)}: left out ${chosen.out}/${tuneOut.length}, own in ${rate(tuneOwn, chosen.setting)}/${tuneOwn.length}`,
      );
    }
  }
  const shipped: JudgeSetting = { ...answerSettings, gated: true };
  lines.push(
    `  shipped: weight ${shipped.cosineWeight}, threshold ${shipped.threshold}, records must pass the term rule too`,
  );
  for (const group of groups) {
    for (const tuning of [true, false]) {
      const rows = group.rows.filter((row) => row.tuning === tuning);
      const count = rate(rows, shipped);
      const split = tuning ? 'tuning' : 'reporting';
      lines.push(line(`  ${group.label}, ${split} (${rows.length})`, count, rows.length));
      metrics[`judge ${group.label} ${split}: not answered`] = count / Math.max(1, rows.length);
    }
  }
  const goal = groups[0]?.rows.filter((row) => !row.tuning);
  const own = groups[1]?.rows.filter((row) => !row.tuning);
  if (goal && own) {
    const out = rate(goal, shipped) / Math.max(1, goal.length);
    const falseRate = rate(own, shipped) / Math.max(1, own.length);
    lines.push(
      `  goal (reporting split): left out >= 0.80: ${out.toFixed(3)} ${out >= 0.8 ? 'met' : 'NOT met'}; own abstract in <= 0.10: ${falseRate.toFixed(3)} ${falseRate <= 0.1 ? 'met' : 'NOT met'}`,
    );
  }
  return lines;
}
