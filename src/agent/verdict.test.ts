import { describe, expect, it } from 'vitest';
import { FakeFullTextReader, FakePaperSearch, paper } from '../../test/fakes/agent-service-fakes.js';
import type { ChatModel, ChatStreamEvent, ChatTurnRequest } from '../ports/chat-model.js';
import {
  type AgentBudgets,
  type AgentEvent,
  defaultBudgets,
  type ResearchTools,
  type RunSummary,
} from './agent-types.js';
import { auditCitations } from './citation-audit.js';
import { answerNowPrompt } from './prompts.js';
import { letteredOptions } from './question-kind.js';
import { SourceLedger } from './source-ledger.js';
import {
  answerWords,
  cutMidSentence,
  noFullTextNote,
  ToolAgent,
  type ToolAgentOptions,
} from './tool-agent.js';
import {
  afterOptionPrompt,
  afterVerdictPrompt,
  chooseOption,
  chooseVerdict,
  conclusionPrompt,
  conclusionTokens,
  optionClassificationMessages,
  optionFindings,
  parseOption,
  parseVerdict,
  verdictAnswerTokens,
  verdictFindings,
  verdictPrompt,
} from './verdict.js';

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

/** A chat model that replays one scripted turn per call and records the requests. */
class ScriptedModel implements ChatModel {
  readonly id = 'scripted';
  readonly requests: ChatTurnRequest[] = [];
  constructor(private readonly turns: Array<(request: ChatTurnRequest) => ChatStreamEvent[]>) {}

  async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
    this.requests.push(request);
    const turn = this.turns[this.requests.length - 1];
    if (!turn) throw new Error(`no scripted turn ${this.requests.length}`);
    for (const event of turn(request)) yield event;
  }
}

const finish = (reason: 'stop' | 'tool_calls' | 'length' = 'stop'): ChatStreamEvent => ({
  type: 'finish',
  reason,
  usage: { promptTokens: 10, completionTokens: 2 },
  usageEstimated: false,
});
const text = (value: string): ChatStreamEvent => ({ type: 'text', text: value });

const trial = paper({
  title: 'Exercise and sleep quality in older adults: a randomised trial',
  authors: ['Ann Lee', 'Bo Kim', 'Cy Park'],
  year: 2020,
  url: 'https://example.org/trial',
  abstract:
    'We randomised 120 adults aged over 65 to exercise or control. Exercise improved sleep quality scores compared with control after 12 weeks. Daytime sleepiness did not change.',
});

async function ask(model: ChatModel, question: string, budgets: Partial<AgentBudgets> = {}) {
  const agent = new ToolAgent(
    model,
    { search: new FakePaperSearch([trial]) },
    {
      budgets: { ...defaultBudgets, ...budgets },
      toolSet: 'compact',
      searchFirst: true,
      today: () => '2026-11-26',
    },
  );
  let content = '';
  let summary: RunSummary | undefined;
  const events: AgentEvent[] = [];
  for await (const event of agent.run({
    tenantId: 't',
    messages: [{ role: 'user', content: question }],
    signal: new AbortController().signal,
  })) {
    events.push(event);
    if (event.type === 'content') content += event.text;
    if (event.type === 'done') summary = event.summary;
  }
  return { content, summary: summary as RunSummary };
}

describe('the verdict step in a run', () => {
  it('asks the verdict as one of three words, then streams the answer the model writes as written', async () => {
    const model = new ScriptedModel([
      // The model chooses to answer: with a verdict to decide, the turn stops there.
      () => [finish()],
      () => [text('Exercise did not change daytime sleepiness.'), finish()],
      () => [text('no'), finish()],
      () => [
        text('No: daytime sleepiness did not change, although sleep quality scores improved '),
        text('[Lee et al., 2020](https://example.org/trial).'),
        finish(),
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
    expect(auditCitations(content, summary.ledger)).toEqual([]);
  });

  it('when a budget forces the answer, the verdict step comes first, without the budget note', async () => {
    const model = new ScriptedModel([
      () => [text('Sleep quality improved with exercise.'), finish()],
      () => [text('yes'), finish()],
      () => [text('Exercise improved sleep quality scores compared with control after 12 weeks.'), finish()],
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
    const model = new ScriptedModel([
      () => [askPdfCall('What is the main finding?'), finish('tool_calls')],
      () => [text('Exercise improved sleep quality.'), finish()],
      () => [text('yes'), finish()],
      () => [text('Exercise improved sleep quality scores compared with control after 12 weeks.'), finish()],
    ]);
    const agent = new ToolAgent(
      model,
      { search: new FakePaperSearch([trial]), fullText },
      { budgets: defaultBudgets, toolSet: 'compact', searchFirst: true, today: () => '2026-11-26' },
    );
    const progress: string[] = [];
    let summary: RunSummary | undefined;
    for await (const event of agent.run({
      tenantId: 't',
      messages: [{ role: 'user', content: 'Does exercise improve sleep quality in older adults?' }],
      signal: new AbortController().signal,
    })) {
      if (event.type === 'progress') progress.push(event.text);
      if (event.type === 'done') summary = event.summary;
    }
    // No PDF was asked; the call's result says why, and the next turn decides the verdict (no tools).
    expect(fullText.calls).toEqual([]);
    expect(progress).toContain('No full text to read: answering from the abstracts\n');
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(model.requests[1]?.messages).toContainEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: noFullTextNote,
    });
    expect(summary?.verdict).toBe('yes');
    expect(summary?.steps).toBe(4);
  });

  it('takes no verdict step for a question that is not yes/no', async () => {
    const model = new ScriptedModel([
      (request) => {
        expect(request.answerSeparately).toBeUndefined();
        return [
          text('Sleep quality scores improved with exercise [Lee et al., 2020](https://example.org/trial).'),
          finish(),
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
    const model = new ScriptedModel([
      () => [
        text('<untrusted-paper-text nonce="0f3a">\nSleep quality scores '),
        text('improved [Lee et al., 2020](https://example.org/trial).\n</untrusted-pa'),
        text('per-text nonce="0f3a">'),
        finish(),
      ],
    ]);
    const { content } = await ask(model, 'What happens to sleep quality in older adults who exercise?');
    expect(content).not.toContain('untrusted-paper-text');
    expect(content).toContain('Sleep quality scores improved [Lee et al., 2020](https://example.org/trial).');
  });

  it('caps the conclusion and the answer by the per-call budget when it is lower', async () => {
    const model = new ScriptedModel([
      () => [finish()],
      () => [text('Sleep quality improved.'), finish()],
      () => [text('yes'), finish()],
      () => [text('Exercise improved sleep quality scores compared with control after 12 weeks.'), finish()],
    ]);
    await ask(model, 'Does exercise improve sleep quality in older adults?', { maxTokensPerCall: 50 });
    expect(model.requests.map((request) => request.maxTokens)).toEqual([50, 50, 8, 50]);
    expect(afterVerdictPrompt('maybe')).toContain('start with "Maybe."');
  });

  it('stops an ordinary answer at its own limit, tells the model its length, and marks a cut', async () => {
    const run = async (turns: ChatStreamEvent[]) => {
      const model = new ScriptedModel([() => turns]);
      const { content } = await ask(model, 'What happens to sleep quality in older adults who exercise?', {
        maxAnswerTokens: 300,
      });
      return { model, content };
    };
    const cut = await run([
      text('Exercise improved sleep quality scores compared with control after 12 weeks. Daytime sleepiness'),
      finish('length'),
    ]);
    expect(cut.model.requests[0]?.maxTokens).toBe(300);
    expect(cut.model.requests[0]?.messages[0]?.content).toContain('at most about 120 words');
    expect(cut.content).toMatch(/Daytime sleepiness…/);
    // An answer that ended its sentence at the limit, or stopped by itself, gets no mark.
    const whole = await run([text('Exercise improved sleep quality scores.'), finish('length')]);
    expect(whole.content).not.toContain('…');
    const stopped = await run([text('Exercise improved sleep quality scores'), finish()]);
    expect(stopped.content).not.toContain('…');
    expect(answerWords(320)).toBe(120);
    expect(cutMidSentence('It rose [Lee, 2020](https://example.org/a).')).toBe(false);
    expect(cutMidSentence('It rose in the')).toBe(true);
  });

  it('answers without a verdict when the reply names none', async () => {
    const model = new ScriptedModel([
      () => [finish()],
      () => [text('The trial found better sleep.'), finish()],
      () => [text('unclear'), finish()],
      () => [text('The trial found better sleep quality scores with exercise.'), finish()],
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
  });
});

describe('questions with lettered options', () => {
  const message =
    'Acinetobacter lwoffii evolved resistance to which of these antibiotics in the lab?\n(A) meropenem\n(B) ciprofloxacin\n(C) gentamicin\n(D) colistin\nAnswer with the letter of the right option first, then explain, citing the paper.';
  const choice = letteredOptions(message);

  it('reads the question and its options, and nothing from a message without options', () => {
    expect(choice).toEqual({
      question: 'Acinetobacter lwoffii evolved resistance to which of these antibiotics in the lab?',
      options: [
        { letter: 'A', text: 'meropenem' },
        { letter: 'B', text: 'ciprofloxacin' },
        { letter: 'C', text: 'gentamicin' },
        { letter: 'D', text: 'colistin' },
      ],
    });
    expect(letteredOptions('Which gene is it?\nA) FLC\nB. SOC1')?.options.map((o) => o.text)).toEqual([
      'FLC',
      'SOC1',
    ]);
    expect(letteredOptions('Does exercise improve sleep?')).toBeUndefined();
    expect(letteredOptions('Which one?\n(A) heat')).toBeUndefined();
    // Letters out of order are not a list of options.
    expect(letteredOptions('Which one?\n(B) heat\n(C) light')).toBeUndefined();
  });

  it('chooses the most probable letter, or the letter the reply names', () => {
    if (!choice) throw new Error('no options');
    expect(chooseOption(choice, { A: 0.1, B: 0.6, C: 0.2, D: 0.1 })?.text).toBe('ciprofloxacin');
    expect(chooseOption(choice, { A: 0.5, B: 0.5 })).toBeUndefined();
    expect(chooseOption(choice, undefined)).toBeUndefined();
    expect(parseOption(choice, ' **(C)** gentamicin')?.letter).toBe('C');
    expect(parseOption(choice, 'E')).toBeUndefined();
    expect(parseOption(choice, 'Because')).toBeUndefined();
    expect(afterOptionPrompt({ letter: 'B', text: 'ciprofloxacin' })).toContain(
      'start with "(B) ciprofloxacin."',
    );
  });

  it('reads the full text the run read before the abstracts, with the sentence that names an option', () => {
    if (!choice) throw new Error('no options');
    const ledger = new SourceLedger();
    const source = ledger.add(paper({ title: 'Antibiotic resistance evolution in Acinetobacter' }));
    ledger.addEvidence({
      source,
      kind: 'abstract',
      text: 'We evolved Acinetobacter lwoffii under antibiotic pressure in the lab and sequenced the resistant lines.',
    });
    ledger.addEvidence({
      source,
      kind: 'fulltext',
      chunk: 4,
      text: 'Cultures were passaged daily for six weeks. A. baumannii readily evolved resistance to meropenem and gentamicin in our experiments. A. lwoffii only evolved resistance to ciprofloxacin after 20 passages. Sequencing found mutations in gyrA of every resistant line.',
    });
    const findings = optionFindings(choice, ledger.evidence);
    expect(findings).toHaveLength(1);
    const sentences = findings[0]?.sentences ?? [];
    expect(sentences).toContain('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.');
    expect(sentences.join(' ')).not.toContain('sequenced the resistant lines');
    const messages = optionClassificationMessages(choice, findings);
    expect(messages[0]?.role).toBe('system');
    expect(messages.filter((entry) => entry.role === 'assistant').map((entry) => entry.content)).toEqual([
      'C',
      'B',
    ]);
    const asked = messages.at(-1)?.content ?? '';
    expect(asked).toContain('A. lwoffii only evolved resistance to ciprofloxacin');
    expect(asked).toContain('(B) ciprofloxacin\n(C) gentamicin');
  });
});

describe('the option step in a run', () => {
  const study = paper({
    title: 'Experimental evolution of antibiotic resistance in Acinetobacter',
    authors: ['Dana Ross', 'Eli Wu'],
    year: 2024,
    url: 'https://example.org/acinetobacter',
    pdf_id: 'PROJ:gpt/doc',
    abstract: 'We evolved two Acinetobacter species under antibiotic pressure in the laboratory.',
  });
  const chunks = [
    'Acinetobacter species cause hospital infections worldwide and resist many antibiotics.',
    'A. baumannii readily evolved resistance to meropenem and gentamicin in our experiments. A. lwoffii only evolved resistance to ciprofloxacin after 20 passages. Neither species became resistant to colistin.',
  ];
  const question =
    'Acinetobacter lwoffii evolved resistance to which of these antibiotics in the lab?\n(A) meropenem\n(B) ciprofloxacin\n(C) gentamicin\n(D) colistin\nAnswer with the letter of the right option first, then explain, citing the paper.';

  async function runAgent(
    model: ChatModel,
    message: string,
    tools: ResearchTools,
    extra: Partial<ToolAgentOptions> = {},
  ) {
    const agent = new ToolAgent(model, tools, {
      budgets: defaultBudgets,
      toolSet: 'compact',
      searchFirst: true,
      today: () => '2026-11-27',
      ...extra,
    });
    let content = '';
    let summary: RunSummary | undefined;
    for await (const event of agent.run({
      tenantId: 't',
      messages: [{ role: 'user', content: message }],
      signal: new AbortController().signal,
    })) {
      if (event.type === 'content') content += event.text;
      if (event.type === 'done') summary = event.summary;
    }
    return { content, summary: summary as RunSummary };
  }

  const askWithPdf = (model: ChatModel, message: string, extra: Partial<ToolAgentOptions> = {}) =>
    runAgent(
      model,
      message,
      { search: new FakePaperSearch([study]), fullText: new FakeFullTextReader({ 'PROJ:gpt/doc': chunks }) },
      extra,
    );

  const askPdf: ChatStreamEvent = {
    type: 'tool_call',
    call: {
      id: 'c1',
      name: 'ask_pdf',
      arguments: '{"pdf_id":"S1","question":"Which antibiotics did A. lwoffii evolve resistance to?"}',
    },
  };

  it('chooses the letter in one isolated turn over the passages read, then streams the answer as written', async () => {
    const model = new ScriptedModel([
      () => [askPdf, finish('tool_calls')],
      // The model chooses to answer: with an option to choose, the turn stops there.
      () => [finish()],
      () => [text('B'), { ...finish(), choiceProbabilities: { A: 0.3, B: 0.5, C: 0.1, D: 0.1 } }],
      () => [
        text('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages '),
        text('[Ross and Wu, 2024](https://example.org/acinetobacter).'),
        finish(),
      ],
    ]);
    const { content, summary } = await askWithPdf(model, question);
    expect(model.requests[0]?.answerSeparately).toBe(true);
    expect(model.requests[1]?.answerSeparately).toBe(true);
    // One asking: no cyclic shifts of the options, no second view, no reads per option.
    expect(model.requests).toHaveLength(4);
    const optionTurn = model.requests[2];
    expect(optionTurn?.isolated).toBe(true);
    expect(optionTurn?.choices).toEqual(['A', 'B', 'C', 'D']);
    expect(optionTurn?.tools).toBeUndefined();
    const asked = optionTurn?.messages.at(-1)?.content ?? '';
    expect(asked).toContain('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.');
    expect(asked).toContain('(A) meropenem\n(B) ciprofloxacin\n(C) gentamicin\n(D) colistin');
    const answerTurn = model.requests[3];
    expect(answerTurn?.isolated).toBeUndefined();
    expect(answerTurn?.messages.at(-1)?.content).toContain('start with "(B) ciprofloxacin."');
    expect(answerTurn?.maxTokens).toBe(verdictAnswerTokens);
    // The model did not start with the option: its words stream as written.
    expect(
      content.startsWith('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages [Ross'),
    ).toBe(true);
    expect(summary.option).toBe('B');
    expect(summary.optionProbabilities).toEqual({ A: 0.3, B: 0.5, C: 0.1, D: 0.1 });
    expect(summary.citations.cited.map((source) => source.paper.url)).toEqual([
      'https://example.org/acinetobacter',
    ]);
    expect(auditCitations(content, summary.ledger)).toEqual([]);
  });

  it('takes the letter the reply names when the model gives no probabilities', async () => {
    const model = new ScriptedModel([
      () => [finish()],
      () => [text('D'), finish()],
      () => [text('Neither species became resistant to colistin.'), finish()],
    ]);
    const { content, summary } = await askWithPdf(model, question);
    expect(model.requests[1]?.choices).toEqual(['A', 'B', 'C', 'D']);
    expect(summary.option).toBe('D');
    expect(summary.optionProbabilities).toBeUndefined();
    expect(content.startsWith('Neither species became resistant to colistin.')).toBe(true);
  });

  it('takes no option step for a question without options, and a yes/no question still takes the verdict step', async () => {
    const open = new ScriptedModel([
      (request) => {
        expect(request.answerSeparately).toBeUndefined();
        return [text('A. lwoffii evolved resistance to ciprofloxacin only.'), finish()];
      },
    ]);
    const plain = await askWithPdf(
      open,
      'Which antibiotics did Acinetobacter lwoffii evolve resistance to in the lab?',
    );
    expect(open.requests).toHaveLength(1);
    expect(plain.summary.option).toBeUndefined();
    const yesNo = new ScriptedModel([
      () => [finish()],
      () => [text('A. lwoffii evolved resistance to ciprofloxacin only.'), finish()],
      () => [text('yes'), finish()],
      () => [text('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.'), finish()],
    ]);
    const verdictRun = await askWithPdf(
      yesNo,
      'Did Acinetobacter lwoffii evolve resistance to ciprofloxacin in the lab?',
    );
    expect(yesNo.requests[2]?.choices).toEqual(['yes', 'no', 'maybe']);
    expect(verdictRun.summary.verdict).toBe('yes');
    expect(verdictRun.summary.option).toBeUndefined();
    expect(verdictRun.content.startsWith('A. lwoffii only evolved resistance')).toBe(true);
  });
});
