import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { defaultBudgets } from '../../src/agent/agent-types.js';
import { ExtractiveAgent } from '../../src/agent/extractive-agent.js';
import { ToolAgent } from '../../src/agent/tool-agent.js';
import type { ChatMessage } from '../../src/domain/chat.js';
import { FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { researchPapers } from '../fakes/research-corpus.js';
import { agentRequest, collectRun } from '../helpers/agent-run.js';

/**
 * Conversations (issue 15, item 4): a follow-up ("… evaluate them?") is searched and answered with
 * what it refers to, by both agents; a history that does not fit is cut, and the answer says so.
 */
const first = 'Acinetobacter lwoffii has been evolved in the lab to be resistant to which antibiotics?';
const firstAnswer = `It evolved resistance to ciprofloxacin only [Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24).

**References**

1. [Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24) — Differential development of antibiotic resistance and virulence between Acinetobacter species. *mSphere*.
`;
const followUp = 'Which mutations did they carry?';
const conversation: ChatMessage[] = [
  { role: 'user', content: first },
  { role: 'assistant', content: firstAnswer },
  { role: 'user', content: followUp },
];

describe('the extractive agent on a follow-up', () => {
  it("searches with the earlier question's subject beside the follow-up's own words", async () => {
    const search = new FakePaperSearch(researchPapers);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets });
    const { progress, summary } = await collectRun(agent.run(agentRequest(conversation)));
    expect(progress).toMatch(/^Read as a follow-up to: "Acinetobacter lwoffii has been evolved/);
    // The first search is the question's text, with what "they" refers to spelled out.
    const query = search.calls[0]?.request.query ?? '';
    expect(query).toMatch(/^Which mutations did they carry\? \(Acinetobacter lwoffii has been evolved/);
    expect(summary.citations.cited.map((entry) => entry.paper.doi)).toContain('10.1128/msphere.00109-24');
  });
});

// The case of issue 35: a new question with "they" after an unrelated one stands alone.
const dps = 'Which DNA topology does Dps condense fastest?';
const annotation = 'What tools exist for collaborative text annotation, and how do they differ?';
const switched: ChatMessage[] = [
  { role: 'user', content: dps },
  { role: 'assistant', content: firstAnswer },
  { role: 'user', content: annotation },
];

describe('the extractive agent on a new question after another', () => {
  it('searches with the new question alone and says it was not read as a follow-up', async () => {
    const search = new FakePaperSearch(researchPapers);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets });
    const { progress } = await collectRun(agent.run(agentRequest(switched)));
    expect(progress).toMatch(/^Read as a new question, not as a follow-up to: "Which DNA topology does Dps/);
    const query = search.calls[0]?.request.query ?? '';
    expect(query).toBe(annotation);
    expect(query).not.toMatch(/Dps/);
  });
});

describe('the tool agent on a follow-up (scripted model)', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  function agent(historyTokens?: number) {
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    return new ToolAgent(
      model,
      { search: new FakePaperSearch(researchPapers) },
      {
        budgets: defaultBudgets,
        today: () => '2026-11-26',
        ...(historyTokens ? { historyTokens } : {}),
      },
    );
  }

  it('tells the model what "they" refers to, right before the question, with the earlier papers', async () => {
    server.setScript([{ text: 'They carried gyrA mutations.' }]);
    server.requests.length = 0;
    await collectRun(agent().run(agentRequest(conversation)));
    const messages = server.requests[0]?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'system',
      'user',
    ]);
    expect(messages[3]?.content).toMatch(
      /follows up the previous one \("Acinetobacter lwoffii has been evolved/,
    );
    expect(messages[3]?.content).toMatch(
      /Papers of the previous answer:\n1\. Hartman et al\., 2024: Differential development/,
    );
    expect(messages[4]?.content).toBe(followUp);
  });

  it('tells the model that a new question with "they" does not refer to the previous one', async () => {
    server.setScript([{ text: 'Several tools exist.' }]);
    server.requests.length = 0;
    const { progress } = await collectRun(agent().run(agentRequest(switched)));
    expect(progress).toMatch(/^Read as a new question, not as a follow-up to: "Which DNA topology/);
    const messages = server.requests[0]?.messages ?? [];
    expect(messages[3]?.role).toBe('system');
    expect(messages[3]?.content).toMatch(
      /^The next question is a new question: .*does not refer to the previous one/,
    );
    expect(messages[3]?.content).not.toMatch(/follows up/);
    expect(messages[4]?.content).toBe(annotation);
  });

  it('cuts a history that does not fit, and the answer says so', async () => {
    const long = Array.from({ length: 600 }, (_, index) => `w${index}`).join(' ');
    const history: ChatMessage[] = [
      { role: 'user', content: `An old question about ${long}?` },
      { role: 'assistant', content: long },
      ...conversation,
    ];
    server.setScript([{ text: 'They carried gyrA mutations.' }]);
    server.requests.length = 0;
    const { content } = await collectRun(agent(400).run(agentRequest(history)));
    const messages = server.requests[0]?.messages ?? [];
    expect(messages[1]?.role).toBe('system');
    expect(messages[1]?.content).toMatch(
      /^2 earlier message\(s\) of this conversation were left out .*"An old question about w0/,
    );
    expect(messages.map((message) => message.content).join('\n')).not.toContain('w599');
    expect(content).toMatch(
      /^They carried gyrA mutations\.\n\n\*\(2 earlier message\(s\) of this conversation did not fit the model's context/,
    );
  });
});
