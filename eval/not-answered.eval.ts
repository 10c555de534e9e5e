// `npm run eval -- not-answered`: how often the agent's relevance rule (src/agent/relevance.ts,
// decision 0047) finds no related record, so that the answer says "The papers found do not answer
// this". No model and no search engine: the candidates are the whole pool a search would rank
// (every other PubMedQA abstract; the SciFact corpus), so a question with any related record in the
// pool counts as answered — the figure is a lower bound on what the agent's top 10 would give.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { keyTerms, termsNeeded } from '../src/agent/relevance.js';
import { contentTerms } from '../src/text/keywords.js';
import type { EvalReport } from './index.js';
import { readJsonLines } from './lib/jsonl.js';
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
  const summary: string[] = [];
  const pubmedPath = join(data, 'pubmedqa', 'pubmedqa_pqal.jsonl');
  if (existsSync(pubmedPath)) {
    const items = await readJsonLines<{ question: string; contexts: string[] }>(pubmedPath);
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
    for (const [label, chosen] of [
      ['SciFact claims without evidence', claims.filter((claim) => Object.keys(claim.evidence).length === 0)],
      ['SciFact claims with evidence', claims.filter((claim) => Object.keys(claim.evidence).length > 0)],
    ] as const) {
      const count = chosen.filter((claim) => !anyRelated(asked(claim.text), records)).length;
      summary.push(line(`${label} (${chosen.length}; corpus ${corpus.length})`, count, chosen.length));
      metrics[`${label}: not answered`] = count / Math.max(1, chosen.length);
    }
  }
  if (summary.length === 0) summary.push('shared data not found: nothing measured');
  return { name: 'not-answered', metrics, summary };
}
