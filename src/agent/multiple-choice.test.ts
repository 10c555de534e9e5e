import { describe, expect, it } from 'vitest';
import { FakeFullTextReader, FakePaperSearch, paper } from '../../test/fakes/agent-service-fakes.js';
import { finishEvent, ScriptedChatModel, textEvent } from '../../test/fakes/scripted-chat-model.js';
import type { ChatModel, ChatStreamEvent } from '../ports/chat-model.js';
import { defaultBudgets, type ResearchTools, type RunSummary } from './agent-types.js';
import { auditCitations } from './citation-audit.js';
import {
  afterOptionPrompt,
  chooseOption,
  optionClassificationMessages,
  optionFindings,
  parseOption,
} from './multiple-choice.js';
import { letteredOptions } from './question-kind.js';
import { SourceLedger } from './source-ledger.js';
import { ToolAgent, type ToolAgentOptions } from './tool-agent.js';
import { verdictAnswerTokens } from './verdict.js';

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
    const model = new ScriptedChatModel([
      () => [askPdf, finishEvent('tool_calls')],
      // The model chooses to answer: with an option to choose, the turn stops there.
      () => [finishEvent()],
      () => [textEvent('B'), { ...finishEvent(), choiceProbabilities: { A: 0.3, B: 0.5, C: 0.1, D: 0.1 } }],
      () => [
        textEvent('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages '),
        textEvent('[Ross and Wu, 2024](https://example.org/acinetobacter).'),
        finishEvent(),
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
    const model = new ScriptedChatModel([
      () => [finishEvent()],
      () => [textEvent('D'), finishEvent()],
      () => [textEvent('Neither species became resistant to colistin.'), finishEvent()],
    ]);
    const { content, summary } = await askWithPdf(model, question);
    expect(model.requests[1]?.choices).toEqual(['A', 'B', 'C', 'D']);
    expect(summary.option).toBe('D');
    expect(summary.optionProbabilities).toBeUndefined();
    expect(content.startsWith('Neither species became resistant to colistin.')).toBe(true);
  });

  it('takes no option step for a question without options, and a yes/no question still takes the verdict step', async () => {
    const open = new ScriptedChatModel([
      (request) => {
        expect(request.answerSeparately).toBeUndefined();
        return [textEvent('A. lwoffii evolved resistance to ciprofloxacin only.'), finishEvent()];
      },
    ]);
    const plain = await askWithPdf(
      open,
      'Which antibiotics did Acinetobacter lwoffii evolve resistance to in the lab?',
    );
    expect(open.requests).toHaveLength(1);
    expect(plain.summary.option).toBeUndefined();
    const yesNo = new ScriptedChatModel([
      () => [finishEvent()],
      () => [textEvent('A. lwoffii evolved resistance to ciprofloxacin only.'), finishEvent()],
      () => [textEvent('yes'), finishEvent()],
      () => [
        textEvent('A. lwoffii only evolved resistance to ciprofloxacin after 20 passages.'),
        finishEvent(),
      ],
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
