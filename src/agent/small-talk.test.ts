import { describe, expect, it } from 'vitest';
import {
  autocompletePrompt,
  followUpPrompt,
  queryPrompt,
  tagsPrompt,
  titlePrompt,
  titlePromptWithEmoji,
} from '../../test/fakes/open-webui-tasks.js';
import { derivedTaskAnswer, taskAnswerOf } from './direct-answer.js';
import { type ClientTask, classifyRequest, clientTaskOf, smallTalkOf, titleOf } from './small-talk.js';

const question =
  'Acinetobacter lwoffii has been evolved in the lab to be resistant to which of these antibiotics?';
const turns = [
  { role: 'user' as const, content: question },
  {
    role: 'assistant' as const,
    content:
      'A. lwoffii only evolved resistance to ciprofloxacin [Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24).',
  },
];
const user = (content: string) => [{ role: 'user' as const, content }];

describe('classifyRequest: Open WebUI task prompts', () => {
  it.each([
    ['title (emoji)', titlePromptWithEmoji(turns), 'title', false],
    ['title', titlePrompt(turns), 'title', false],
    ['tags', tagsPrompt(turns), 'tags', true],
    ['follow-ups', followUpPrompt(turns), 'follow_ups', true],
    ['search queries', queryPrompt(turns), 'queries', true],
    ['autocomplete', autocompletePrompt(turns, 'Which antibiotics'), 'text', false],
  ])('%s is a client task asking for %s', (_name, prompt, key, list) => {
    const kind = classifyRequest(user(prompt));
    expect(kind.kind).toBe('client_task');
    const task = (kind as { task: ClientTask }).task;
    expect(task.key).toBe(key);
    expect(task.list).toBe(list);
  });

  it('reads the quoted chat history, and the title comes from its first question', () => {
    const task = clientTaskOf(titlePrompt(turns)) as ClientTask;
    expect(task.history.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(task.history[0]?.text).toBe(question);
    expect(derivedTaskAnswer(task)).toEqual({
      title: 'Acinetobacter lwoffii evolved lab resistant antibiotics',
    });
  });

  it('answers every task in the JSON shape its prompt asks for', () => {
    const answer = (prompt: string) => derivedTaskAnswer(clientTaskOf(prompt) as ClientTask);
    expect(answer(tagsPrompt(turns))).toEqual({ tags: ['Research'] });
    expect(answer(followUpPrompt(turns))).toEqual({ follow_ups: [] });
    expect(answer(queryPrompt(turns))).toEqual({ queries: [question] });
    expect(answer(autocompletePrompt(turns, 'Which'))).toEqual({ text: '' });
  });

  it("keeps a model's JSON only when it has the asked key and type", () => {
    const title = clientTaskOf(titlePrompt(turns)) as ClientTask;
    const tags = clientTaskOf(tagsPrompt(turns)) as ClientTask;
    expect(taskAnswerOf('```json\n{ "title": "🧫 Acinetobacter Resistance" }\n```', title)).toEqual({
      title: '🧫 Acinetobacter Resistance',
    });
    expect(taskAnswerOf('Here is a title: Acinetobacter', title)).toBeUndefined();
    expect(taskAnswerOf('{ "title": 3 }', title)).toBeUndefined();
    expect(taskAnswerOf('{ "name": "x" }', title)).toBeUndefined();
    expect(taskAnswerOf('{ "tags": ["Science", "Microbiology"], "extra": 1 }', tags)).toEqual({
      tags: ['Science', 'Microbiology'],
    });
    expect(taskAnswerOf('{ "tags": "Science" }', tags)).toBeUndefined();
  });
});

describe('classifyRequest: small talk', () => {
  it.each([
    ['hi', 'hello'],
    ['Hello!', 'hello'],
    ['hey there 👋', 'hello'],
    ['Good morning', 'hello'],
    ['thanks', 'thanks'],
    ['Thank you so much!', 'thanks'],
    ['ok, thanks', 'thanks'],
    ['merci beaucoup', 'thanks'],
    ['bye', 'bye'],
    ['What can you do?', 'help'],
    ['who are you?', 'help'],
  ])('"%s" is small talk (%s)', (message, intent) => {
    expect(smallTalkOf(message)).toBe(intent);
    expect(classifyRequest(user(message))).toEqual({ kind: 'small_talk', intent });
  });

  // A real research question must never be taken for small talk: every one of these is research.
  it.each([
    question,
    'What datasets are used to evaluate them?',
    'thanks, and what about resistance in mice?',
    'hi, what is known about CRISPR off-target effects?',
    'Hello world programs in the literature on teaching programming',
  ])('"%s" is research', (message) => {
    expect(classifyRequest(user(message))).toEqual({ kind: 'research' });
  });

  it.each([
    'What is the title of the paper that introduced transformers?',
    'Which tags do phylogenetic studies use? Answer in JSON format: { "tags": [] }',
    'Summarise ### Task: sections in agile papers, JSON format please',
    'Thank you for the answer. Can you explain how ciprofloxacin resistance evolves?',
    'Who are you citing for the claim about meropenem?',
    'good',
    'Why?',
    'What about in mice?',
    'CRISPR',
  ])('"%s" is research too', (message) => {
    expect(classifyRequest(user(message))).toEqual({ kind: 'research' });
  });

  it('takes the last user message: a greeting after a question is small talk, a question after a greeting is research', () => {
    expect(
      classifyRequest([
        { role: 'user', content: question },
        { role: 'assistant', content: 'An answer.' },
        { role: 'user', content: 'Thanks!' },
      ]).kind,
    ).toBe('small_talk');
    expect(
      classifyRequest([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: question },
      ]).kind,
    ).toBe('research');
  });
});

describe('titleOf', () => {
  it('keeps content words in order, at most six, and falls back when there are none', () => {
    expect(titleOf([{ role: 'user', text: 'What is the role of p53 in apoptosis of neurons?' }])).toBe(
      'P53 apoptosis neurons',
    );
    expect(titleOf([])).toBe('Research question');
  });
});
