import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../domain/chat.js';
import {
  fitHistory,
  followUpNote,
  papersOf,
  readAgainstPrevious,
  readFollowUp,
  readingLine,
} from './conversation.js';

const previousAnswer = `Dialogue state tracking keeps a belief over slots [Mrkšić et al., 2017](https://doi.org/10.1/nbt) and can be learned end to end [Wu et al., 2019](https://doi.org/10.1/trade).

**References**

1. [Mrkšić et al., 2017](https://doi.org/10.1/nbt) — Neural Belief Tracker: Data-Driven Dialogue State Tracking. *ACL*.
2. [Wu et al., 2019](https://doi.org/10.1/trade) — Transferable Multi-Domain State Generator for Task-Oriented Dialogue Systems. *ACL*. Full text: \`PDF_URL:https://x/y.pdf\`
`;

const conversation = (...turns: string[]): ChatMessage[] =>
  turns.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content }));

describe('readAgainstPrevious', () => {
  it('lets a question that names its own subject stand alone, pronouns or not', () => {
    for (const message of [
      'What tools exist for collaborative text annotation, and how do they differ?',
      'Statins in elderly patients: do they prevent a first heart attack?',
      'Is it safe to stop anticoagulation before dental extraction?',
      'Which methods detect machine-generated text?',
      'What is CRISPR?',
    ])
      expect(readAgainstPrevious(message), message).toMatchObject({ followUp: false });
  });

  it('reads elliptic messages and pointers at the previous answer as follow-ups', () => {
    const cases: Array<[string, string]> = [
      ['And in mice?', 'continues the previous question'],
      ['What about the second one?', 'points at the previous answer'],
      ['Why?', 'continues the previous question'],
      ['Which of them is open source?', 'points at the previous answer'],
      ['Can they export to CoNLL format?', 'refers back with a pronoun'],
      ['How many patients were included?', 'names no subject of its own'],
      ['Is bottled water worse?', 'compares with something not named'],
      ['In which cancers?', 'continues the previous question'],
    ];
    for (const [message, reason] of cases)
      expect(readAgainstPrevious(message), message).toEqual({ followUp: true, reason });
  });
});

describe('readFollowUp', () => {
  it('reads "them" against the previous question: its keywords join the search', () => {
    const followUp = readFollowUp(
      conversation(
        'How can dialogue systems track the user state across turns?',
        previousAnswer,
        'What datasets are used to evaluate them?',
      ),
    );
    expect(followUp.previousQuestion).toMatch(/dialogue systems/);
    expect(followUp.keywords.slice(0, 2)).toEqual(['datasets', 'evaluate']);
    expect(followUp.keywords).toEqual(expect.arrayContaining(['dialogue']));
    expect(followUp.resolved).toMatch(/^What datasets are used to evaluate them\? \(How can dialogue/);
    expect(followUp.previousPapers.map((paper) => paper.url)).toEqual([
      'https://doi.org/10.1/nbt',
      'https://doi.org/10.1/trade',
    ]);
  });

  it('resolves "the second one" to the second paper of the previous answer', () => {
    const followUp = readFollowUp(
      conversation(
        'How do dialogue systems track state?',
        previousAnswer,
        'What data did the second one use?',
      ),
    );
    expect(followUp.referred?.title).toBe(
      'Transferable Multi-Domain State Generator for Task-Oriented Dialogue Systems',
    );
    expect(followUp.keywords).toEqual(expect.arrayContaining(['Multi-Domain']));
    expect(followUp.keywords).not.toContain('second');
    expect(followUpNote(followUp)).toMatch(/names the paper "Transferable Multi-Domain/);
  });

  it('leaves a self-contained question alone, and a first question has no previous one', () => {
    const standalone = readFollowUp(
      conversation(
        'How do dialogue systems track state?',
        previousAnswer,
        'Which methods detect machine-generated text?',
      ),
    );
    expect(standalone.previousQuestion).toBeUndefined();
    expect(standalone.standalone).toBe('How do dialogue systems track state?');
    expect(standalone.resolved).toBe('Which methods detect machine-generated text?');
    expect(followUpNote(standalone)).toMatch(/^The next question is a new question/);
    expect(readingLine(standalone)).toBe(
      'Read as a new question, not as a follow-up to: "How do dialogue systems track state?"\n',
    );
    expect(readFollowUp(conversation('Does it work?')).previousQuestion).toBeUndefined();
  });

  it('lists the papers of an answer without a references list by its links', () => {
    expect(
      papersOf('See [A, 2020](https://a.org/1) and [B, 2021](https://b.org/2), [A, 2020](https://a.org/1).'),
    ).toEqual([
      { label: 'A, 2020', url: 'https://a.org/1', title: 'A, 2020' },
      { label: 'B, 2021', url: 'https://b.org/2', title: 'B, 2021' },
    ]);
  });
});

describe('fitHistory', () => {
  const long = (words: number) => Array.from({ length: words }, (_, index) => `word${index}`).join(' ');

  it('keeps a conversation that fits as it is', () => {
    const messages = conversation('First question?', 'A short answer.', 'Second question?');
    expect(fitHistory(messages, 1000)).toEqual({ messages, dropped: 0, shortened: 0 });
  });

  it('shortens earlier answers to their opening and references, keeping the papers', () => {
    const answer = `${long(400)}\n\n**References**\n\n1. [A, 2020](https://a.org/1) — A title.`;
    const fitted = fitHistory(conversation('First?', answer, 'And them?'), 10_000);
    expect(fitted.shortened).toBe(1);
    const kept = fitted.messages[1]?.content ?? '';
    expect(kept.length).toBeLessThan(800);
    expect(kept).toMatch(
      /… \(shortened\)\n\n\*\*References\*\*\n\n1\. \[A, 2020\]\(https:\/\/a\.org\/1\) — A title\.$/,
    );
  });

  it('drops the oldest turns first and names the questions asked in them', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      ...conversation(
        `Oldest question ${long(150)}?`,
        long(150),
        'Middle question?',
        long(100),
        'Last question?',
      ),
    ];
    const fitted = fitHistory(messages, 200);
    expect(fitted.dropped).toBeGreaterThan(0);
    expect(fitted.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(fitted.messages[1]?.role).toBe('system');
    expect(fitted.messages[1]?.content).toMatch(
      /earlier message\(s\) of this conversation were left out.*"Oldest question word0/,
    );
    expect(fitted.messages.at(-1)).toEqual({ role: 'user', content: 'Last question?' });
    const total = fitted.messages.reduce((sum, message) => sum + message.content.length / 4 + 4, 0);
    expect(total).toBeLessThanOrEqual(200 + 100);
  });
});
