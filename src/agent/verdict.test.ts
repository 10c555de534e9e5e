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
import { type Evidence, SourceLedger } from './source-ledger.js';
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
  distinctiveTerms,
  type LetteredOption,
  letteredOptions,
  localVerdictWeights,
  type MultipleChoice,
  meanOfRecords,
  meanOverShifts,
  OptionLead,
  optionClassificationMessages,
  optionFindings,
  parseOption,
  parseVerdict,
  shiftedChoice,
  VerdictLead,
  verdictAnswerTokens,
  verdictFindings,
  verdictPrompt,
  yesNoQuestion,
} from './verdict.js';

/** The model's call of ask_pdf on the first record. */
const askPdfCall = (question: string): ChatStreamEvent => ({
  type: 'tool_call',
  call: { id: 'c1', name: 'ask_pdf', arguments: JSON.stringify({ pdf_id: 'S1', question }) },
});

/** A chunk where the sentence that tells the shapes apart shares only its option's own word. */
const shapesKey = 'Supercoiled molecules condensed most rapidly, in six seconds.';
const shapesChunk = [
  'The molecules took three shapes in the flow cell: supercoiled and doubly tethered, relaxed and doubly tethered, or relaxed and singly tethered.',
  'Doubly tethered molecules and singly tethered molecules were imaged on the same slide.',
  'Relaxed and doubly tethered molecules took longer to compact than the others.',
  'Relaxed and singly tethered molecules compacted only after the flow stopped.',
  shapesKey,
  'Tethered molecules were stained with a dye that binds double strands.',
  'Each tethered molecule was followed for sixty seconds in the flow cell.',
].join(' ');

describe('yes/no questions', () => {
  it('finds the yes/no question a message asks, after a colon too, without its format instructions', () => {
    expect(yesNoQuestion('Does aspirin reduce stroke risk? Answer yes, no or maybe first.')).toBe(
      'Does aspirin reduce stroke risk?',
    );
    expect(yesNoQuestion('Adjuvant radiation of stage III thymoma: is it necessary?')).toBe(
      'Adjuvant radiation of stage III thymoma: is it necessary?',
    );
    expect(yesNoQuestion('Can statins prevent dementia')).toBeUndefined();
    expect(yesNoQuestion('Which antibiotics did the strain resist?')).toBeUndefined();
    expect(
      yesNoQuestion('Laparoscopic surgery in the elderly: a safe option? Answer yes, no or maybe.'),
    ).toBe('Laparoscopic surgery in the elderly: a safe option?');
  });

  it('is not a yes/no question when the message lists lettered options', () => {
    expect(
      yesNoQuestion('Is the effect due to which of these?\n(A) heat\n(B) light\n(C) pH'),
    ).toBeUndefined();
  });

  it('reads the verdict a reply starts with', () => {
    expect(parseVerdict('yes')).toBe('yes');
    expect(parseVerdict(' **No**, it does not')).toBe('no');
    expect(parseVerdict('Maybe.')).toBe('maybe');
    expect(parseVerdict('Nothing conclusive')).toBeUndefined();
  });
});

describe('the verdict lead', () => {
  const run = (verdict: 'yes' | 'no' | 'maybe', chunks: string[]) => {
    const lead = new VerdictLead(verdict);
    return chunks.map((chunk) => lead.push(chunk)).join('') + lead.end();
  };

  it('keeps the model’s own matching verdict once, streamed across chunks', () => {
    expect(run('yes', ['Y', 'es, the trial ', 'found it.'])).toBe('Yes. The trial found it.');
  });

  it('replaces a different leading verdict, and adds one when the model wrote none', () => {
    expect(run('no', ['**Yes.** The effect was small.'])).toBe('No. The effect was small.');
    expect(run('maybe', ['The results were mixed.'])).toBe('Maybe. The results were mixed.');
    expect(run('no', [''])).toBe('No.');
  });

  it('holds back only until the first word is known', () => {
    const lead = new VerdictLead('yes');
    expect(lead.push('Ye')).toBe('');
    expect(lead.push('s, ')).toBe('Yes.');
    expect(lead.push('because')).toBe('because');
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
  it('asks the verdict as one of three words, then the answer starts with it and cites the record', async () => {
    const model = new ScriptedModel([
      // The model chooses to answer: with a verdict to decide, the turn stops there.
      () => [finish()],
      () => [text('Exercise did not change daytime sleepiness.'), finish()],
      () => [text('no'), finish()],
      // The model opens with another verdict and cites nothing: the verdict step's leads, and the
      // statement gets the record it restates.
      () => [
        text('Yes, exercise improved sleep quality scores compared with control after 12 weeks.'),
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
    expect(content.startsWith('No. Exercise improved sleep quality scores')).toBe(true);
    expect(content).toContain('[Lee et al., 2020](https://example.org/trial).');
    expect(summary.verdict).toBe('no');
    expect(summary.attachedCitations).toBe(1);
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
    expect(content.startsWith('Yes. Exercise improved sleep quality')).toBe(true);
    expect(summary.stoppedBy).toBe('steps');
    expect(summary.verdict).toBe('yes');
  });

  it('weighs the model\'s probabilities of the three words when it gives them: "no" 1.5 times, "maybe" half', async () => {
    const withProbabilities = (probabilities: Record<string, number>, word: string) =>
      new ScriptedModel([
        () => [finish()],
        () => [text('Exercise did not change daytime sleepiness.'), finish()],
        () => [text(word), { ...finish(), choiceProbabilities: probabilities }],
        () => [
          text('Exercise improved sleep quality scores compared with control after 12 weeks.'),
          finish(),
        ],
      ]);
    const question = 'Does exercise improve sleep quality in older adults? Answer yes, no or maybe first.';
    // The model's word is "yes" (0.55), but "no" weighs 0.4 × 1.5 = 0.6.
    const close = { yes: 0.55, no: 0.4, maybe: 0.05 };
    const leaning = await ask(withProbabilities(close, 'yes'), question);
    expect(leaning.summary.verdict).toBe('no');
    expect(leaning.summary.verdictProbabilities).toEqual(close);
    expect(leaning.content.startsWith('No. ')).toBe(true);
    // A clear "yes" stays "yes".
    const clear = await ask(withProbabilities({ yes: 0.8, no: 0.15, maybe: 0.05 }, 'yes'), question);
    expect(clear.summary.verdict).toBe('yes');
    expect(clear.content.startsWith('Yes. ')).toBe(true);
    // The model's word is "maybe" (0.5), but "yes" weighs 0.45 against 0.5 × 0.5 = 0.25.
    const hedging = await ask(withProbabilities({ yes: 0.45, no: 0.05, maybe: 0.5 }, 'maybe'), question);
    expect(hedging.summary.verdict).toBe('yes');
    expect(localVerdictWeights).toEqual({ yes: 1, no: 1.5, maybe: 0.5 });
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
    expect(summary.attachedCitations).toBe(0);
    expect(content).toContain('[Lee et al., 2020](https://example.org/trial)');
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
  it('takes the largest weighted probability, and nothing without all three', () => {
    const probabilities = { yes: 0.6, no: 0.25, maybe: 0.15 };
    expect(chooseVerdict(probabilities)).toBe('yes');
    expect(chooseVerdict(probabilities, { yes: 1, no: 3, maybe: 1 })).toBe('no');
    expect(chooseVerdict(probabilities, { yes: 1, no: 2, maybe: 5 })).toBe('maybe');
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

  it('shifts the options cyclically and averages each option over the shifts by its own letter', () => {
    if (!choice) throw new Error('no options');
    expect(shiftedChoice(choice, 0)).toEqual(choice);
    const once = shiftedChoice(choice, 1);
    expect(once.question).toBe(choice.question);
    expect(once.options.map((option) => option.letter)).toEqual(['A', 'B', 'C', 'D']);
    expect(once.options.map((option) => option.text)).toEqual([
      choice.options[3]?.text,
      choice.options[0]?.text,
      choice.options[1]?.text,
      choice.options[2]?.text,
    ]);
    expect(shiftedChoice(choice, 4)).toEqual(choice);
    // Shift 0 shows B at B; shift 1 shows it at C.
    const means = meanOverShifts(choice, [
      { A: 0.1, B: 0.6, C: 0.2, D: 0.1 },
      { A: 0.3, B: 0.1, C: 0.5, D: 0.1 },
    ]);
    expect(means?.B).toBeCloseTo(0.55);
    expect(means?.A).toBeCloseTo(0.1);
    expect(means?.D).toBeCloseTo(0.2);
    expect(means?.C).toBeCloseTo(0.15);
    expect(meanOverShifts(choice, [{ A: 0.1, B: 0.6, C: 0.3 }])).toBeUndefined();
    expect(meanOverShifts(choice, [undefined])).toBeUndefined();
    expect(meanOverShifts(choice, [])).toBeUndefined();
  });

  it('names an option by the terms no other option has, and leads its sentences with one in the naming view', () => {
    const shapes: MultipleChoice = {
      question: 'Which of these compacts most quickly?',
      options: [
        'relaxed and singly tethered',
        'supercoiled and doubly tethered',
        'relaxed and doubly tethered',
      ].map((text, index) => ({ letter: 'ABC'[index] as string, text })),
    };
    const [singly, supercoiled, doubly] = shapes.options as LetteredOption[];
    expect([...distinctiveTerms(singly as LetteredOption, shapes.options)]).toEqual(['singly']);
    expect([...distinctiveTerms(supercoiled as LetteredOption, shapes.options)]).toEqual(['supercoil']);
    // Every word of the third is another option's: it has no term of its own.
    expect([...distinctiveTerms(doubly as LetteredOption, shapes.options)]).toEqual([]);
    // "shape" and "shaped" are one term.
    expect([
      ...distinctiveTerms({ letter: 'A', text: 'Y-shape' }, [
        { letter: 'A', text: 'Y-shape' },
        { letter: 'B', text: 'J-shaped' },
      ]),
    ]).toEqual([]);
    const source = new SourceLedger().add(paper({ title: 'Compaction of tethered DNA' }));
    const evidence: Evidence[] = [{ source, kind: 'fulltext', chunk: 2, text: shapesChunk }];
    const readings = shapes.options.map((option) => ({
      letter: option.letter,
      sourceId: source.id,
      texts: [shapesChunk],
    }));
    const plain = optionFindings(shapes, evidence, { readings })[0]?.sentences ?? [];
    const naming = optionFindings(shapes, evidence, { readings, naming: true })[0]?.sentences ?? [];
    // Ranked by the question with the whole option, the list of shapes wins for every option.
    expect(plain).not.toContain(shapesKey);
    expect(naming).toContain(shapesKey);
    expect(naming.filter((sentence) => sentence !== shapesKey)).toEqual(plain);
  });

  it('averages the views per letter, and has no mean when a view has none', () => {
    expect(
      meanOfRecords([
        { A: 0.25, B: 0.75 },
        { A: 0.75, B: 0.5 },
      ]),
    ).toEqual({ A: 0.5, B: 0.625 });
    expect(meanOfRecords([{ A: 0.2, B: 0.8 }])).toEqual({ A: 0.2, B: 0.8 });
    expect(meanOfRecords([{ A: 0.2, B: 0.8 }, undefined])).toBeUndefined();
    expect(meanOfRecords([])).toBeUndefined();
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

describe('the option lead', () => {
  const choice = letteredOptions('Which gene?\n(A) FLC\n(B) SOC1\n(C) Shift equilibrium to super-open state');
  const run = (letter: string, chunks: string[]) => {
    if (!choice) throw new Error('no options');
    const option = choice.options.find((entry) => entry.letter === letter);
    if (!option) throw new Error('no option');
    const lead = new OptionLead(option, choice);
    return chunks.map((chunk) => lead.push(chunk)).join('') + lead.end();
  };

  it('keeps the model’s own matching option once, streamed across chunks', () => {
    expect(run('A', ['(A', ') FLC. ', 'Plants lacking FLC flowered earlier than the wild type did.'])).toBe(
      '(A) FLC. Plants lacking FLC flowered earlier than the wild type did.',
    );
    expect(run('A', ['**A.** FLC: plants lacking it flowered early.'])).toBe(
      '(A) FLC. Plants lacking it flowered early.',
    );
    expect(run('A', ['The answer is A, plants lacking FLC flowered early.'])).toBe(
      '(A) FLC. Plants lacking FLC flowered early.',
    );
  });

  it('replaces another option the model leads with, and adds one when it states none', () => {
    expect(run('C', ['(B) SOC1. The mutation shifts the balance of states.'])).toBe(
      '(C) Shift equilibrium to super-open state. The mutation shifts the balance of states.',
    );
    expect(run('B', ['SOC1. Its loss delayed flowering.'])).toBe('(B) SOC1. Its loss delayed flowering.');
    expect(run('B', ['A. thaliana plants lacking SOC1 flowered late.'])).toBe(
      '(B) SOC1. A. thaliana plants lacking SOC1 flowered late.',
    );
    expect(run('A', [''])).toBe('(A) FLC.');
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

  it('chooses the letter in isolated turns over the passages read, one per cyclic shift of the options, then the answer starts with it and cites the record', async () => {
    // A model that favours the letter A: asked once, it would choose (A) meropenem; over the four
    // shifts ciprofloxacin has the largest mean probability.
    const perShift = [
      { A: 0.5, B: 0.4, C: 0.05, D: 0.05 },
      { A: 0.4, B: 0.1, C: 0.45, D: 0.05 },
      { A: 0.4, B: 0.05, C: 0.05, D: 0.5 },
      { A: 0.8, B: 0.1, C: 0.05, D: 0.05 },
    ];
    const model = new ScriptedModel([
      () => [askPdf, finish('tool_calls')],
      // The model chooses to answer: with an option to choose, the turn stops there.
      () => [finish()],
      ...perShift.map((probabilities) => () => [
        text('A'),
        { ...finish(), choiceProbabilities: probabilities },
      ]),
      // The model opens with another option and cites nothing: the option step's leads, and the
      // statement gets the record it restates.
      () => [
        text('(A) meropenem. A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.'),
        finish(),
      ],
    ]);
    const { content, summary } = await askWithPdf(model, question);
    expect(model.requests[0]?.answerSeparately).toBe(true);
    expect(model.requests[1]?.answerSeparately).toBe(true);
    const optionTurns = model.requests.slice(2, 6);
    for (const turn of optionTurns) {
      expect(turn?.isolated).toBe(true);
      expect(turn?.choices).toEqual(['A', 'B', 'C', 'D']);
      expect(turn?.tools).toBeUndefined();
      expect(turn?.messages[0]?.role).toBe('system');
      const asked = turn?.messages.at(-1)?.content ?? '';
      expect(asked).toContain('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.');
      expect(asked).toContain(
        'Question: Acinetobacter lwoffii evolved resistance to which of these antibiotics in the lab?',
      );
    }
    expect(optionTurns[0]?.messages.at(-1)?.content).toContain(
      '(A) meropenem\n(B) ciprofloxacin\n(C) gentamicin\n(D) colistin',
    );
    expect(optionTurns[1]?.messages.at(-1)?.content).toContain(
      '(A) colistin\n(B) meropenem\n(C) ciprofloxacin\n(D) gentamicin',
    );
    expect(optionTurns[3]?.messages.at(-1)?.content).toContain(
      '(A) ciprofloxacin\n(B) gentamicin\n(C) colistin\n(D) meropenem',
    );
    // The answer turn extends the conversation (not the isolated turns) with the instruction.
    const answerTurn = model.requests[6];
    expect(model.requests).toHaveLength(7);
    expect(answerTurn?.isolated).toBeUndefined();
    expect(answerTurn?.tools).toBeUndefined();
    expect(answerTurn?.messages.slice(0, model.requests[1]?.messages.length)).toEqual(
      model.requests[1]?.messages,
    );
    expect(answerTurn?.messages.at(-1)?.content).toContain('start with "(B) ciprofloxacin."');
    expect(answerTurn?.maxTokens).toBe(verdictAnswerTokens);
    expect(content.startsWith('(B) ciprofloxacin. A. lwoffii only evolved resistance to ciprofloxacin')).toBe(
      true,
    );
    expect(content).toContain('[Ross and Wu, 2024](https://example.org/acinetobacter)');
    expect(summary.option).toBe('B');
    const means = summary.optionProbabilities ?? {};
    expect(Object.keys(means).sort()).toEqual(['A', 'B', 'C', 'D']);
    expect(means.A).toBeCloseTo(0.175);
    expect(means.B).toBeCloseTo(0.5375);
    expect(means.C).toBeCloseTo(0.15);
    expect(means.D).toBeCloseTo(0.1375);
    expect(summary.verdict).toBeUndefined();
    expect(summary.steps).toBe(4);
    expect(summary.citations.cited.map((source) => source.paper.url)).toEqual([
      'https://example.org/acinetobacter',
    ]);
    expect(auditCitations(content, summary.ledger)).toEqual([]);
  });

  it('asks once when optionShifts is 1', async () => {
    const model = new ScriptedModel([
      () => [finish()],
      () => [text('A'), { ...finish(), choiceProbabilities: { A: 0.5, B: 0.4, C: 0.05, D: 0.05 } }],
      () => [text('Meropenem.'), finish()],
    ]);
    const { summary } = await askWithPdf(model, question, { optionShifts: 1 });
    expect(model.requests).toHaveLength(3);
    expect(summary.option).toBe('A');
  });

  it('reads, for each option, the chunk that best answers the question with it, and shows the option step its best sentences', async () => {
    const dps = paper({
      title: 'Bridging DNA contacts allow Dps to condense DNA',
      authors: ['Sneha Shahu'],
      year: 2024,
      url: 'https://example.org/dps',
      pdf_id: 'PROJ:gpt/dps',
      abstract: 'How rapidly supercoiled and relaxed DNA compacts when Dps binds it, imaged in a flow cell.',
    });
    const dpsChunks = [
      'Bridging DNA contacts allow Dps to condense DNA. We imaged Dps binding to DNA molecules in a flow cell.',
      'DNA molecules adopted one of three shapes during the flow: supercoiled and doubly tethered, relaxed and doubly tethered, relaxed and singly tethered, or single stranded.',
      'Supercoiled molecules compacted the most rapidly with the protein, within six seconds of its arrival.',
    ];
    const dpsQuestion =
      'Which DNA shape compacts most rapidly?\n(A) relaxed and singly tethered\n(B) supercoiled and doubly tethered\n(C) single stranded';
    const run = async (optionReading?: boolean) => {
      const reader = new FakeFullTextReader({ 'PROJ:gpt/dps': dpsChunks });
      const model = new ScriptedModel([
        () => [askPdfCall('What is the title of the paper?'), finish('tool_calls')],
        () => [finish()],
        // The letter showing "supercoiled …" gets 0.6, whatever the shift.
        ...[0, 1, 2].map(() => (request: ChatTurnRequest) => {
          const asked = request.messages.at(-1)?.content ?? '';
          const letter = /\(([A-C])\) supercoiled/.exec(asked)?.[1] ?? 'A';
          const probabilities = Object.fromEntries(
            ['A', 'B', 'C'].map((entry) => [entry, entry === letter ? 0.6 : 0.2]),
          );
          return [text(letter), { ...finish(), choiceProbabilities: probabilities }];
        }),
        () => [text('Supercoiled molecules compacted the most rapidly with the protein.'), finish()],
      ]);
      const { summary } = await runAgent(
        model,
        dpsQuestion,
        { search: new FakePaperSearch([dps]), fullText: reader },
        optionReading === undefined ? {} : { optionReading },
      );
      return { reader, model, summary };
    };
    const read = await run();
    // The model's own ask found the list of shapes, not the finding.
    const asks = read.reader.calls.filter((call) => call.kind === 'ask').map((call) => call.argument);
    expect(asks).toHaveLength(4);
    expect(asks.slice(1)).toEqual([
      'Which DNA shape compacts most rapidly?\nrelaxed and singly tethered',
      'Which DNA shape compacts most rapidly?\nsupercoiled and doubly tethered',
      'Which DNA shape compacts most rapidly?\nsingle stranded',
    ]);
    const optionTurn = read.model.requests[2]?.messages.at(-1)?.content ?? '';
    expect(optionTurn).toContain('Supercoiled molecules compacted the most rapidly with the protein');
    expect(read.summary.option).toBe('B');
    // What was read for the options is evidence of the run, so it may be cited.
    expect(read.summary.ledger.evidence.some((item) => item.kind === 'fulltext' && item.chunk === 3)).toBe(
      true,
    );
    const without = await run(false);
    expect(without.reader.calls.filter((call) => call.kind === 'ask')).toHaveLength(1);
    expect(without.summary.option).toBe('B');
  });

  it('asks a second view of the per-option readings, each option led by the sentence naming it, and averages the views', async () => {
    const study2 = paper({
      title: 'Compaction of tethered DNA by a bridging protein',
      authors: ['Sneha Shahu'],
      year: 2024,
      url: 'https://example.org/tethered',
      pdf_id: 'PROJ:gpt/tethered',
      abstract: 'A protein compacts DNA molecules held in a flow cell.',
    });
    const shapesQuestion =
      'Which of these compacts most quickly?\n(A) relaxed and singly tethered\n(B) supercoiled and doubly tethered\n(C) relaxed and doubly tethered';
    // Without the key sentence the model favours "relaxed and singly tethered"; with it, "supercoiled".
    const byOption = (asked: string) =>
      asked.includes(shapesKey)
        ? {
            'supercoiled and doubly tethered': 0.8,
            'relaxed and singly tethered': 0.1,
            'relaxed and doubly tethered': 0.1,
          }
        : {
            'supercoiled and doubly tethered': 0.3,
            'relaxed and singly tethered': 0.5,
            'relaxed and doubly tethered': 0.2,
          };
    const optionTurn = (request: ChatTurnRequest) => {
      const asked = request.messages.at(-1)?.content ?? '';
      const probabilities = Object.fromEntries(
        Object.entries(byOption(asked)).map(([option, probability]) => [
          new RegExp(`\\(([A-C])\\) ${option}\\n`).exec(`${asked}\n`)?.[1] ?? '?',
          probability,
        ]),
      );
      return [text('A'), { ...finish(), choiceProbabilities: probabilities }];
    };
    const run = async (extra: Partial<ToolAgentOptions>, optionTurns: number) => {
      const model = new ScriptedModel([
        () => [askPdfCall('What is the title of the paper?'), finish('tool_calls')],
        () => [finish()],
        ...Array.from({ length: optionTurns }, () => optionTurn),
        () => [text('The shapes compacted at different rates.'), finish()],
      ]);
      const { summary } = await runAgent(
        model,
        shapesQuestion,
        {
          search: new FakePaperSearch([study2]),
          fullText: new FakeFullTextReader({
            'PROJ:gpt/tethered': ['Compaction of tethered DNA by a bridging protein.', shapesChunk],
          }),
        },
        extra,
      );
      return { model, summary };
    };
    const two = await run({}, 6);
    expect(two.model.requests).toHaveLength(9);
    const asked = two.model.requests.slice(2, 8).map((request) => request.messages.at(-1)?.content ?? '');
    expect(asked.slice(0, 3).every((entry) => !entry.includes(shapesKey))).toBe(true);
    expect(asked.slice(3).every((entry) => entry.includes(shapesKey))).toBe(true);
    expect(two.model.requests.slice(2, 8).every((request) => request.isolated)).toBe(true);
    // Means over the views: supercoiled (0.3 + 0.8) / 2, singly (0.5 + 0.1) / 2, doubly (0.2 + 0.1) / 2.
    expect(two.summary.option).toBe('B');
    expect(two.summary.optionProbabilities?.B).toBeCloseTo(0.55);
    expect(two.summary.optionProbabilities?.A).toBeCloseTo(0.3);
    expect(two.summary.optionProbabilities?.C).toBeCloseTo(0.15);
    const one = await run({ optionViews: 1 }, 3);
    expect(one.model.requests).toHaveLength(6);
    expect(one.summary.option).toBe('A');
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
    expect(content.startsWith('(D) colistin. Neither species')).toBe(true);
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
    expect(verdictRun.content.startsWith('Yes. ')).toBe(true);
  });
});
