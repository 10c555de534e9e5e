import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { readJsonLines } from './jsonl.js';

/** The sets of the agent evaluation (decision 0066). */
export const agentSets = ['pubmedqa', 'scifact', 'scifact-none', 'open'] as const;
export type AgentSet = (typeof agentSets)[number];
export type Split = 'tuning' | 'reporting';
export type Verdict = 'yes' | 'no' | 'maybe';
/** Which records a set's questions are asked over. */
export type AgentCorpus = 'pubmedqa' | 'scifact';

/** One question of the agent evaluation. */
export interface AgentItem {
  /** Unique over all sets: `pubmedqa:<pmid>`, `scifact:<claim id>`, `open:<n>`. */
  id: string;
  set: AgentSet;
  split: Split;
  question: string;
  corpus: AgentCorpus;
  /** The expected verdict (pubmedqa, scifact); none for claims without evidence and open requests. */
  gold?: Verdict;
  /**
   * The record that answers it, as `corpusRecords` identifies it: the PubMedQA item's pmid, the
   * SciFact claim's first evidence abstract (corpus id). None for claims without evidence and open requests.
   */
  ownRecord?: string;
}

/** Even = tuning, odd = reporting (decisions 0063, 0064, 0066). */
export const splitOf = (number: number): Split => (number % 2 === 0 ? 'tuning' : 'reporting');

interface PubMedQaItem {
  pmid: string;
  question: string;
  contexts: string[];
  final_decision: Verdict;
  year?: string;
}

interface SciFactClaim {
  _id: string;
  text: string;
  evidence: Record<string, { label: string }>;
}

interface SciFactAbstract {
  _id: string;
  title: string;
  text: string;
}

interface OpenRequest {
  id: string;
  text: string;
}

const sharedData = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');
export const openRequestsFile = join(import.meta.dirname, '..', 'agent-open-requests.jsonl');

/** The question a SciFact claim is asked as. */
export const claimQuestion = (claim: string) => `Is it true that ${claim.replace(/[.\s]+$/, '')}?`;

/** Every item of the sets, in file order within each set. */
export async function loadAgentItems(
  dataDir = sharedData,
  openFile = openRequestsFile,
): Promise<AgentItem[]> {
  const pubmed = await readJsonLines<PubMedQaItem>(join(dataDir, 'eval', 'pubmedqa', 'pubmedqa_pqal.jsonl'));
  const claims = await readJsonLines<SciFactClaim>(join(dataDir, 'eval', 'scifact', 'queries.jsonl'));
  const open = await readJsonLines<OpenRequest>(openFile);
  const items: AgentItem[] = pubmed.map((item, index) => ({
    id: `pubmedqa:${item.pmid}`,
    set: 'pubmedqa',
    split: splitOf(index),
    question: item.question,
    corpus: 'pubmedqa',
    gold: item.final_decision,
    ownRecord: item.pmid,
  }));
  for (const claim of claims) {
    const labels = Object.values(claim.evidence).map((entry) => entry.label);
    const base = {
      id: `scifact:${claim._id}`,
      split: splitOf(Number(claim._id)),
      question: claimQuestion(claim.text),
      corpus: 'scifact' as const,
    };
    if (labels.length === 0) items.push({ ...base, set: 'scifact-none' });
    // A claim's evidence abstracts agree on the label in SciFact; the first decides.
    else
      items.push({
        ...base,
        set: 'scifact',
        gold: labels[0] === 'SUPPORT' ? 'yes' : 'no',
        ...(Object.keys(claim.evidence)[0] ? { ownRecord: Object.keys(claim.evidence)[0] } : {}),
      });
  }
  for (const request of open) {
    items.push({
      id: request.id,
      set: 'open',
      split: splitOf(Number(request.id.split(':')[1])),
      question: request.text,
      corpus: 'scifact',
    });
  }
  return items;
}

/**
 * The order a run asks in: one item of each set in turn (each set in file order), so that a run cut
 * short leaves every set partly done.
 */
export function interleaved(items: AgentItem[]): AgentItem[] {
  const bySet = agentSets.map((set) => items.filter((item) => item.set === set));
  const order: AgentItem[] = [];
  for (let index = 0; order.length < items.length; index += 1)
    for (const list of bySet) if (list[index]) order.push(list[index] as AgentItem);
  return order;
}

const pubmedUrl = (pmid: string) => `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`;

/** The records of a corpus, as ingested before its questions are asked. */
export async function corpusRecords(corpus: AgentCorpus, dataDir = sharedData): Promise<Paper[]> {
  if (corpus === 'pubmedqa') {
    const items = await readJsonLines<PubMedQaItem>(join(dataDir, 'eval', 'pubmedqa', 'pubmedqa_pqal.jsonl'));
    // PubMedQA's question is its article's title.
    return items.map((item) => ({
      ...emptyPaper(item.question),
      abstract: item.contexts.join(' '),
      year: item.year ? Number(item.year) : null,
      url: pubmedUrl(item.pmid),
      identifiers: { pmid: item.pmid },
    }));
  }
  return gunzipSync(readFileSync(join(dataDir, 'eval', 'scifact', 'corpus.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as SciFactAbstract)
    .map((entry) => ({
      ...emptyPaper(entry.title),
      abstract: entry.text,
      // SciFact's document ids are S2ORC corpus ids.
      url: `https://api.semanticscholar.org/CorpusID:${entry._id}`,
      identifiers: { corpus_id: entry._id },
    }));
}
