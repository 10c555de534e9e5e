import { describe, expect, it } from 'vitest';
import { FakeFullTextReader, FakePaperSearch, paper } from '../../test/fakes/agent-service-fakes.js';
import { finishEvent, ScriptedChatModel, textEvent } from '../../test/fakes/scripted-chat-model.js';
import { agentRequest, collectRun } from '../../test/helpers/agent-run.js';
import type { ChatModel, ChatStreamEvent } from '../ports/chat-model.js';
import { answerWords, cutMidSentence, noFullTextNote } from './agent-step-rules.js';
import { type AgentBudgets, defaultBudgets, type ResearchTools } from './agent-types.js';
import { answerNowPrompt } from './prompts.js';
import { SourceLedger } from './source-ledger.js';
import { ToolAgent, type ToolAgentOptions } from './tool-agent.js';
import {
  afterVerdictPrompt,
  chooseVerdict,
  conclusionPrompt,
  conclusionTokens,
  parseVerdict,
  verdictAnswerTokens,
  verdictFindings,
  verdictPrompt,
} from './verdict.js';

/** A model turn that writes `text` and stops. */
const said = (text: string) => () => [textEvent(text), finishEvent()];

/** The model's call of ask_pdf on the first record. */
const askPdfCall = (question: string): ChatStreamEvent => ({
  type: 'tool_call',
  call: { id: 'c1', name: 'ask_pdf', arguments: JSON.stringify({ pdf_id: 'S1', question }) },
});

describe('verdict replies', () => {
  it('reads the verdict a reply starts with', () => {
    expect(parseVerdict('yes')).toBe('yes');
    expect(parseVerdict(' **No**, it does not')).toBe('no');
    expect(parseVerdict('Maybe.')).toBe('maybe');
    expect(parseVerdict('Nothing conclusive')).toBeUndefined();
  });
});

describe('the findings a verdict reads', () => {
  const ledger = new SourceLedger();
  const target = ledger.add(
    paper({
      title: 'Does exercise improve sleep quality in older adults?',
      authors: ['Ann Lee'],
      year: 2020,
      url: 'https://example.org/sleep',
    }),
  );
  const other = ledger.add(
    paper({
      title: 'Diet and blood pressure',
      authors: ['Bo Kim'],
      year: 2019,
      url: 'https://example.org/diet',
    }),
  );
  ledger.addEvidence({
    source: other,
    kind: 'abstract',
    text: 'Salt intake was measured in 300 adults. Blood pressure fell with lower salt intake.',
  });
  ledger.addEvidence({
    source: target,
    kind: 'abstract',
    text: 'Sleep complaints are common in older adults. We enrolled 120 participants aged over 65. They were randomised to exercise or control. Outcomes were assessed at 12 weeks. Exercise improved sleep quality scores compared with control (p<0.01). Daytime sleepiness did not change.',
  });

  it('takes the best-matching record, its closing sentences and its best-matching ones, in order', () => {
    const findings = verdictFindings('Does exercise improve sleep quality in older adults?', ledger.evidence);
    expect(findings.map((entry) => entry.source.id)).toEqual([target.id]);
    const sentences = findings[0]?.sentences ?? [];
    expect(sentences.slice(-2)).toEqual([
      'Exercise improved sleep quality scores compared with control (p<0.01).',
      'Daytime sleepiness did not change.',
    ]);
    expect(sentences).toContain('Sleep complaints are common in older adults.');
    expect(sentences).not.toContain('Blood pressure fell with lower salt intake.');
    const prompt = conclusionPrompt('Does exercise improve sleep quality in older adults?', findings);
    expect(prompt).toContain('[Lee, 2020](https://example.org/sleep)');
    expect(prompt).toContain('(p<0.01). Daytime sleepiness did not change."');
    expect(verdictPrompt('Does it?')).toMatch(/"Does it\?".*Reply with one word: yes .* no .* maybe/);
  });
});

const trial = paper({
  title: 'Exercise and sleep quality in older adults: a randomised trial',
  authors: ['Ann Lee', 'Bo Kim', 'Cy Park'],
  year: 2020,
  url: 'https://example.org/trial',
  abstract:
    'We randomised 120 adults aged over 65 to exercise or control. Exercise improved sleep quality scores compared with control after 12 weeks. Daytime sleepiness did not change.',
});

async function ask(
  model: ChatModel,
  question: string,
  budgets: Partial<AgentBudgets> = {},
  tools: ResearchTools = { search: new FakePaperSearch([trial]) },
  options: Partial<ToolAgentOptions> = {},
) {
  const agent = new ToolAgent(model, tools, {
    budgets: { ...defaultBudgets, ...budgets },
    toolSet: 'compact',
    searchFirst: true,
    today: () => '2026-11-26',
    ...options,
  });
  return collectRun(agent.run(agentRequest(question)));
}

describe('the verdict step in a run', () => {
  it("takes the word the model's probabilities give, after the configured log-priors", async () => {
    const script = () =>
      new ScriptedChatModel([
        said('Sleep quality improved a little with exercise.'),
        () => [
          textEvent('yes'),
          { ...finishEvent(), choiceProbabilities: { yes: 0.6, no: 0.3, maybe: 0.1 } },
        ],
        said('Sleep quality scores improved slightly with exercise.'),
      ]);
    const question = 'Does exercise improve sleep quality in older adults?';
    const plain = await ask(script(), question, { maxSteps: 1 });
    expect(plain.summary.verdict).toBe('yes');
    expect(plain.summary.verdictProbabilities).toEqual({ yes: 0.6, no: 0.3, maybe: 0.1 });
    // log 0.3 + 0.9 > log 0.6: the model's lean towards "yes" corrected (decision 0072).
    const corrected = await ask(script(), question, { maxSteps: 1 }, undefined, {
      verdictLogPriors: { yes: 0, no: 0.9, maybe: -0.4 },
    });
    expect(corrected.summary.verdict).toBe('no');
  });

  it('asks the verdict as one of three words, then streams the answer the model writes as written', async () => {
    const model = new ScriptedChatModel([
      // The model chooses to answer: with a verdict to decide, the turn stops there.
      () => [finishEvent()],
      said('Exercise did not change daytime sleepiness.'),
      said('no'),
      () => [
        textEvent('No: daytime sleepiness did not change, although sleep quality scores improved '),
        textEvent('[Lee et al., 2020](https://example.org/trial).'),
        finishEvent(),
      ],
    ]);
    const { content, summary } = await ask(
      model,
      'Does exercise improve sleep quality in older adults? Answer yes, no or maybe first.',
    );
    expect(model.requests[0]?.answerSeparately).toBe(true);
    expect(model.requests[0]?.tools?.length).toBeGreaterThan(0);
    // First the conclusion (free text), then the verdict (one of three words), each extending the last.
    const conclusionTurn = model.requests[1];
    expect(conclusionTurn?.tools).toBeUndefined();
    expect(conclusionTurn?.choices).toBeUndefined();
    const findingsText = conclusionTurn?.messages.at(-1)?.content ?? '';
    expect(findingsText).toContain('The question: "Does exercise improve sleep quality in older adults?"');
    expect(findingsText).toContain('Daytime sleepiness did not change.');
    // The verdict word: a classification turn of its own (isolated), the worked examples, then
    // the findings and the question.
    const verdictTurn = model.requests[2];
    expect(verdictTurn?.choices).toEqual(['yes', 'no', 'maybe']);
    expect(verdictTurn?.tools).toBeUndefined();
    expect(verdictTurn?.isolated).toBe(true);
    expect(verdictTurn?.messages[0]?.role).toBe('system');
    expect(verdictTurn?.messages.filter((message) => message.role === 'assistant').length).toBe(5);
    const classified = verdictTurn?.messages.at(-1)?.content ?? '';
    expect(classified).toContain('Daytime sleepiness did not change.');
    expect(classified).toContain('Question: Does exercise improve sleep quality in older adults?');
    // The answer turn extends the conclusion turn: the model's conclusion, the verdict question,
    // the decided word, then the instruction.
    const answerTurn = model.requests[3];
    expect(answerTurn?.tools).toBeUndefined();
    expect(answerTurn?.isolated).toBeUndefined();
    expect(answerTurn?.messages.slice(0, conclusionTurn?.messages.length)).toEqual(conclusionTurn?.messages);
    expect(answerTurn?.messages.at(-4)).toEqual({
      role: 'assistant',
      content: 'Exercise did not change daytime sleepiness.',
    });
    expect(answerTurn?.messages.at(-3)?.content).toBe(
      verdictPrompt('Does exercise improve sleep quality in older adults?'),
    );
    expect(answerTurn?.messages.at(-2)).toEqual({ role: 'assistant', content: 'no' });
    expect(answerTurn?.messages.at(-1)?.content).toContain('start with "No."');
    // Short turns on a slow local model: the conclusion is one sentence, the answer 2-3.
    expect(conclusionTurn?.maxTokens).toBe(conclusionTokens);
    expect(verdictTurn?.maxTokens).toBe(8);
    expect(answerTurn?.maxTokens).toBe(verdictAnswerTokens);
    expect(answerTurn?.messages.at(-1)?.content).toContain('2-3 sentences');
    // The model's words as written: no lead rewritten, no citation added.
    expect(
      content.startsWith(
        'No: daytime sleepiness did not change, although sleep quality scores improved [Lee et al., 2020](https://example.org/trial).',
      ),
    ).toBe(true);
    expect(summary.verdict).toBe('no');
    expect(summary.citations.cited.map((source) => source.paper.url)).toEqual(['https://example.org/trial']);
  });

  it('when a budget forces the answer, the verdict step comes first, without the budget note', async () => {
    const model = new ScriptedChatModel([
      said('Sleep quality improved with exercise.'),
      said('yes'),
      said('Exercise improved sleep quality scores compared with control after 12 weeks.'),
    ]);
    const { content, summary } = await ask(model, 'Does exercise improve sleep quality in older adults?', {
      maxSteps: 1,
    });
    expect(model.requests.map((request) => request.tools)).toEqual([undefined, undefined, undefined]);
    expect(model.requests[1]?.choices).toEqual(['yes', 'no', 'maybe']);
    for (const request of model.requests)
      expect(request.messages.some((message) => message.content === answerNowPrompt)).toBe(false);
    // The service neither prefixes the verdict nor cites the model's uncited sentence.
    expect(
      content.startsWith('Exercise improved sleep quality scores compared with control after 12 weeks.'),
    ).toBe(true);
    expect(content).not.toContain('](https://example.org/trial)');
    expect(summary.citations.cited).toEqual([]);
    expect(summary.stoppedBy).toBe('steps');
    expect(summary.verdict).toBe('yes');
  });

  it('answers from the abstracts when the model asks for a full text and nothing found has one (compact set)', async () => {
    const fullText = new FakeFullTextReader({ 'PROJ:gpt/doc': ['a chunk'] });
    const model = new ScriptedChatModel([
      () => [askPdfCall('What is the main finding?'), finishEvent('tool_calls')],
      said('Exercise improved sleep quality.'),
      said('yes'),
      said('Exercise improved sleep quality scores compared with control after 12 weeks.'),
    ]);
    const { progress, summary } = await ask(
      model,
      'Does exercise improve sleep quality in older adults?',
      {},
      { search: new FakePaperSearch([trial]), fullText },
    );
    // No PDF was asked; the call's result says why, and the next turn decides the verdict (no tools).
    expect(fullText.calls).toEqual([]);
    expect(progress).toContain('No full text to read: answering from the abstracts\n');
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(model.requests[1]?.messages).toContainEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: noFullTextNote,
    });
    expect(summary.verdict).toBe('yes');
    expect(summary.steps).toBe(4);
  });

  it('takes no verdict step for a question that is not yes/no', async () => {
    const model = new ScriptedChatModel([
      (request) => {
        expect(request.answerSeparately).toBeUndefined();
        return [
          textEvent(
            'Sleep quality scores improved with exercise [Lee et al., 2020](https://example.org/trial).',
          ),
          finishEvent(),
        ];
      },
    ]);
    const { content, summary } = await ask(
      model,
      'What happens to sleep quality in older adults who exercise?',
    );
    expect(model.requests).toHaveLength(1);
    // Without a verdict the answer keeps the budget's per-call limit.
    expect(model.requests[0]?.maxTokens).toBe(defaultBudgets.maxTokensPerCall);
    expect(summary.verdict).toBeUndefined();
    expect(content).toContain('[Lee et al., 2020](https://example.org/trial)');
  });

  it('drops a fence marker the model repeats, and keeps the rest of its words as written', async () => {
    const model = new ScriptedChatModel([
      () => [
        textEvent('<untrusted-paper-text nonce="0f3a">\nSleep quality scores '),
        textEvent('improved [Lee et al., 2020](https://example.org/trial).\n</untrusted-pa'),
        textEvent('per-text nonce="0f3a">'),
        finishEvent(),
      ],
    ]);
    const { content } = await ask(model, 'What happens to sleep quality in older adults who exercise?');
    expect(content).not.toContain('untrusted-paper-text');
    expect(content).toContain('Sleep quality scores improved [Lee et al., 2020](https://example.org/trial).');
  });

  it('caps the conclusion and the answer by the per-call budget when it is lower', async () => {
    const model = new ScriptedChatModel([
      () => [finishEvent()],
      said('Sleep quality improved.'),
      said('yes'),
      said('Exercise improved sleep quality scores compared with control after 12 weeks.'),
    ]);
    await ask(model, 'Does exercise improve sleep quality in older adults?', { maxTokensPerCall: 50 });
    expect(model.requests.map((request) => request.maxTokens)).toEqual([50, 50, 8, 50]);
    expect(afterVerdictPrompt('maybe')).toContain('start with "Maybe."');
  });

  it('stops an ordinary answer at its own limit, tells the model its length, and marks a cut', async () => {
    const run = async (turns: ChatStreamEvent[]) => {
      const model = new ScriptedChatModel([() => turns]);
      const { content } = await ask(model, 'What happens to sleep quality in older adults who exercise?', {
        maxAnswerTokens: 300,
      });
      return { model, content };
    };
    const cut = await run([
      textEvent(
        'Exercise improved sleep quality scores compared with control after 12 weeks. Daytime sleepiness',
      ),
      finishEvent('length'),
    ]);
    expect(cut.model.requests[0]?.maxTokens).toBe(300);
    expect(cut.model.requests[0]?.messages[0]?.content).toContain('at most about 120 words');
    expect(cut.content).toMatch(/Daytime sleepiness…/);
    // An answer that ended its sentence at the limit, or stopped by itself, gets no mark.
    const whole = await run([textEvent('Exercise improved sleep quality scores.'), finishEvent('length')]);
    expect(whole.content).not.toContain('…');
    const stopped = await run([textEvent('Exercise improved sleep quality scores'), finishEvent()]);
    expect(stopped.content).not.toContain('…');
    expect(answerWords(320)).toBe(120);
    expect(cutMidSentence('It rose [Lee, 2020](https://example.org/a).')).toBe(false);
    expect(cutMidSentence('It rose in the')).toBe(true);
  });

  it('answers without a verdict when the reply names none', async () => {
    const model = new ScriptedChatModel([
      () => [finishEvent()],
      said('The trial found better sleep.'),
      said('unclear'),
      said('The trial found better sleep quality scores with exercise.'),
    ]);
    const { content, summary } = await ask(model, 'Does exercise improve sleep quality in older adults?');
    expect(summary.verdict).toBeUndefined();
    const answerTurn = model.requests[3];
    expect(answerTurn?.messages.some((message) => message.content === 'unclear')).toBe(false);
    expect(answerTurn?.messages.some((message) => message.content === 'The trial found better sleep.')).toBe(
      false,
    );
    expect(content.startsWith('The trial found')).toBe(true);
  });
});

describe('chooseVerdict', () => {
  it('takes the most probable word, weighing none above another, and nothing without all three', () => {
    expect(chooseVerdict({ yes: 0.6, no: 0.25, maybe: 0.15 })).toBe('yes');
    expect(chooseVerdict({ yes: 0.55, no: 0.4, maybe: 0.05 })).toBe('yes');
    expect(chooseVerdict({ yes: 0.45, no: 0.05, maybe: 0.5 })).toBe('maybe');
    expect(chooseVerdict({ yes: 0.3, no: 0.45, maybe: 0.25 })).toBe('no');
    // A tie keeps the order yes, no, maybe.
    expect(chooseVerdict({ yes: 0.4, no: 0.4, maybe: 0.2 })).toBe('yes');
    expect(chooseVerdict(undefined)).toBeUndefined();
    expect(chooseVerdict({ yes: 0.7, no: 0.3 })).toBeUndefined();
    expect(chooseVerdict({ yes: Number.NaN, no: 0.3, maybe: 0.1 })).toBeUndefined();
    expect(chooseVerdict({ yes: -0.1, no: 0.3, maybe: 0.1 })).toBeUndefined();
  });

  it('adds log-priors to the log-probabilities before taking the most probable', () => {
    const priors = { yes: 0, no: 0.9, maybe: -0.4 };
    // e^0.9 ≈ 2.46: "no" wins over a "yes" less than 2.46 times as probable, and only then.
    expect(chooseVerdict({ yes: 0.6, no: 0.3, maybe: 0.1 }, priors)).toBe('no');
    expect(chooseVerdict({ yes: 0.75, no: 0.2, maybe: 0.05 }, priors)).toBe('yes');
    // e^-0.4 ≈ 0.67: "maybe" needs half again the probability of the next word.
    expect(chooseVerdict({ yes: 0.4, no: 0.1, maybe: 0.5 }, priors)).toBe('yes');
    expect(chooseVerdict({ yes: 0.3, no: 0.05, maybe: 0.65 }, priors)).toBe('maybe');
    // A word the model gave probability 0 stays out, whatever its prior.
    expect(chooseVerdict({ yes: 1, no: 0, maybe: 0 }, { yes: 0, no: 20, maybe: 20 })).toBe('yes');
    // Zero priors are the plain rule.
    expect(chooseVerdict({ yes: 0.45, no: 0.05, maybe: 0.5 }, { yes: 0, no: 0, maybe: 0 })).toBe('maybe');
  });
});
