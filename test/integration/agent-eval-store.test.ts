import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentReport, goalStatus, rewriteTraces, verdictOf } from '../../eval/lib/agent-report.js';
import { type AgentItem, interleaved, loadAgentItems } from '../../eval/lib/agent-sets.js';
import {
  type AnswerOf,
  AnswerStore,
  agentSources,
  answerMissing,
  type FingerprintParts,
  fingerprintOf,
} from '../../eval/lib/agent-store.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

const parts: FingerprintParts = {
  model: { name: 'qwen.gguf', size: 1_117_320_768 },
  sources: [
    { path: 'src/agent/a.ts', text: 'export const a = 1;\n' },
    { path: 'src/agent/b.ts', text: 'export const b = 2;\n' },
  ],
  chat: { temperature: 0, maxSteps: 4, toolSet: 'compact', answerAfterMs: undefined },
};

const item = (id: string, set: AgentItem['set'], gold?: AgentItem['gold']): AgentItem => ({
  id,
  set,
  split: 'reporting',
  question: `question ${id}`,
  corpus: set === 'pubmedqa' ? 'pubmedqa' : 'scifact',
  ...(gold ? { gold } : {}),
});

/** A scripted model: each question's answer is fixed in advance; every call is recorded. */
function scripted(answers: Record<string, string>, asked: string[]): AnswerOf {
  return async (entry) => {
    asked.push(entry.id);
    const answer = answers[entry.id] ?? 'No answer.';
    return {
      id: entry.id,
      set: entry.set,
      split: entry.split,
      question: entry.question,
      answer,
      verdict: verdictOf(answer),
      citations: answer.includes('](') ? [{ url: 'https://example.org/p', title: 'P' }] : [],
      outsideLedger: [],
      summary: { mode: 'tools', steps: 2, support: { checked: 1, dropped: 1 } },
      seconds: 40,
      firstProgressSeconds: 0.2,
    };
  };
}

describe('the agent evaluation’s store, fingerprint, resume and report (decision 0066)', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });
  const folder = async () => {
    const made = await mkdtemp(join(tmpdir(), 'alexandria-agent-eval-'));
    folders.push(made);
    return made;
  };

  it('fingerprints the model, every agent source and the chat settings, not their order', () => {
    const base = fingerprintOf(parts);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintOf({ ...parts, sources: [...parts.sources].reverse() })).toBe(base);
    expect(fingerprintOf({ ...parts, chat: { maxSteps: 4, toolSet: 'compact', temperature: 0 } })).toBe(base);
    expect(fingerprintOf({ ...parts, model: { ...parts.model, size: 1 } })).not.toBe(base);
    expect(fingerprintOf({ ...parts, chat: { ...parts.chat, temperature: 0.2 } })).not.toBe(base);
    const edited = [
      { ...(parts.sources[0] as FingerprintParts['sources'][0]), text: 'export const a = 3;\n' },
    ];
    expect(
      fingerprintOf({ ...parts, sources: [...edited, parts.sources[1] as FingerprintParts['sources'][0]] }),
    ).not.toBe(base);
  });

  it('reads the agent sources recursively and leaves the tests out', async () => {
    const root = await folder();
    await mkdir(join(root, 'src', 'agent', 'inner'), { recursive: true });
    await writeFile(join(root, 'src', 'agent', 'a.ts'), 'a');
    await writeFile(join(root, 'src', 'agent', 'a.test.ts'), 'test');
    await writeFile(join(root, 'src', 'agent', 'inner', 'b.ts'), 'b');
    await writeFile(join(root, 'src', 'agent', 'notes.md'), 'md');
    const found = agentSources(root)
      .map((source) => source.path)
      .sort();
    expect(found).toEqual([join('src', 'agent', 'a.ts'), join('src', 'agent', 'inner', 'b.ts')]);
  });

  it('stores each answer at once, resumes with the next items, and counts only the current fingerprint', async () => {
    const path = join(await folder(), 'results', 'agent', 'local.jsonl');
    const items = [
      item('pubmedqa:1', 'pubmedqa', 'yes'),
      item('pubmedqa:2', 'pubmedqa', 'no'),
      item('pubmedqa:3', 'pubmedqa', 'maybe'),
      item('scifact:5', 'scifact', 'yes'),
      item('open:1', 'open'),
    ];
    const answers = {
      'pubmedqa:1': 'Yes, it does [P](https://example.org/p).',
      'pubmedqa:2': 'Maybe. The evidence is mixed.',
      'pubmedqa:3': 'Maybe, the studies disagree.',
      'scifact:5': 'Yes. Trials show it [P](https://example.org/p).',
      'open:1': 'Several papers address this [P](https://example.org/p).',
    };
    const asked: string[] = [];
    const first = await AnswerStore.open(path, 'f1');
    expect(await answerMissing(first, items, scripted(answers, asked), { limit: 3 })).toBe(3);
    expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(3);

    // A new process: the store read back from the file; the next run answers the next items only.
    const second = await AnswerStore.open(path, 'f1');
    expect(await answerMissing(second, items, scripted(answers, asked), { limit: 2 })).toBe(2);
    expect(asked).toEqual(['pubmedqa:1', 'pubmedqa:2', 'pubmedqa:3', 'scifact:5', 'open:1']);
    expect(await answerMissing(second, items, scripted(answers, asked))).toBe(0);

    // A deadline already past asks nothing.
    const changed = await AnswerStore.open(path, 'f2');
    expect(changed.stale).toBe(5);
    expect(changed.answersOf(items)).toEqual([]);
    expect(await answerMissing(changed, items, scripted(answers, asked), { deadline: 0 }, () => 1)).toBe(0);
    expect(await answerMissing(changed, items, scripted(answers, asked), { limit: 1 })).toBe(1);
    const report = agentReport(items, changed.answersOf(items), changed.stale);
    expect(report.metrics['pubmedqa done']).toBe(1);
    expect(report.lines.join('\n')).toContain('stale stored answers (another fingerprint): 5');
    expect(report.lines).toContain('scifact (0 of 1): not answered yet');
    expect(report.lines).toContain(
      'goal: SciFact SUPPORT/CONTRADICT verdict accuracy ≥ 70%: incomplete (0 of 1 answered)',
    );
    expect(report.lines.join('\n')).toMatch(
      /PubMedQA verdict accuracy ≥ 65%: 100\.0% — incomplete \(1 of 3 answered\)/,
    );

    // Complete under f1: PubMedQA 2 of 3 right (66.7%, met at 65%), SciFact 1 of 1.
    const full = agentReport(items, second.answersOf(items), 0);
    expect(full.metrics['pubmedqa accuracy']).toBeCloseTo(2 / 3);
    const lines = full.lines.join('\n');
    expect(lines).toContain('pubmedqa (3 of 3): verdict accuracy 2/3 = 66.7% (95% Wilson [20.8%, 93.9%])');
    expect(lines).toContain(
      'confusion (gold → opening verdict): yes (1) → yes 1, no 0, maybe 0, none 0; no (1) → yes 0, no 0, maybe 1, none 0; maybe (1) → yes 0, no 0, maybe 1, none 0',
    );
    expect(lines).toContain('goal: PubMedQA verdict accuracy ≥ 65%: 66.7% — met');
    expect(lines).toContain('goal: no open request opens with a verdict: 0 did — met');
    expect(lines).toContain('citations dropped by the support check 5');
    expect(lines).toContain('answer p50 40.0 s, p95 40.0 s; first progress p95 0.20 s');
    expect(lines).toContain('goal: answer p95 ≤ 90 s: 40.0 s — met');
  });

  it('says NOT met and incomplete, never met on an unfinished set', () => {
    expect(goalStatus(3, 3, true)).toBe('met');
    expect(goalStatus(3, 3, false)).toBe('NOT met');
    expect(goalStatus(2, 3, true)).toBe('incomplete (2 of 3 answered)');
  });

  it('reads the opening verdict and counts the traces of a rewrite', () => {
    expect(verdictOf('**Yes.** It works.')).toBe('yes');
    expect(verdictOf('Answer: no, it does not.')).toBe('no');
    expect(verdictOf('Several papers say yes.')).toBeNull();
    expect(verdictOf('Nothing is known.')).toBeNull();
    expect(rewriteTraces('Yes. because the trial showed it.')).toBe(1);
    expect(rewriteTraces('No.. The trial found nothing.')).toBe(1);
    expect(rewriteTraces('Yes. The trial showed it… and more...')).toBe(0);
    // The references list after the answer is the service's, not the model's words.
    expect(
      rewriteTraces('It does [A](https://a.org).\n\n**References**\n\n1. [A](https://a.org) — A title..\n'),
    ).toBe(0);
  });

  it('asks the sets in turn so that a cut run leaves each partly done', () => {
    const order = interleaved([
      item('pubmedqa:1', 'pubmedqa'),
      item('pubmedqa:2', 'pubmedqa'),
      item('open:1', 'open'),
      item('scifact:1', 'scifact-none'),
    ]).map((entry) => entry.id);
    expect(order).toEqual(['pubmedqa:1', 'scifact:1', 'open:1', 'pubmedqa:2']);
  });

  it.skipIf(needsSharedData('eval/pubmedqa/pubmedqa_pqal.jsonl', 'eval/scifact/queries.jsonl'))(
    'loads every item of the four sets with the parity split',
    async () => {
      const items = await loadAgentItems(sharedData);
      const count = (set: string, split?: string) =>
        items.filter((entry) => entry.set === set && (!split || entry.split === split)).length;
      expect([count('pubmedqa'), count('scifact'), count('scifact-none'), count('open')]).toEqual([
        667, 452, 288, 66,
      ]);
      expect([count('pubmedqa', 'tuning'), count('pubmedqa', 'reporting')]).toEqual([334, 333]);
      expect([count('open', 'tuning'), count('open', 'reporting')]).toEqual([33, 33]);
      expect(new Set(items.map((entry) => entry.id)).size).toBe(items.length);
      const claim = items.find((entry) => entry.id === 'scifact:2');
      expect(claim).toMatchObject({ set: 'scifact', split: 'tuning', gold: 'no' });
      expect(claim?.question).toBe('Is it true that 1 in 5 million in UK have abnormal PrP positivity?');
    },
  );
});
