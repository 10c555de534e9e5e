import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { defaultBudgets } from '../../src/agent/agent-types.js';
import { ToolAgent } from '../../src/agent/tool-agent.js';
import { FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { researchPapers } from '../fakes/research-corpus.js';
import { agentRequest, collectRun } from '../helpers/agent-run.js';

/**
 * An answer never contradicts its own verdict (issue 35, item 3): the tool agent with its verdict
 * step on a scripted model; when the answer's own sentence says the opposite of the verdict, a
 * sentence is added that the evidence is mixed, and the model's sentences stay as written.
 */
const question = 'Does Dps condense supercoiled DNA faster than linear DNA?';

describe('the tool agent checks its verdict against its own answer (scripted model)', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  function run(answer: string) {
    // The search runs first; the model chooses to answer (no text); the verdict step's conclusion and
    // word; then the answer.
    server.setScript([
      { text: '' },
      { text: 'The findings report that supercoiled DNA compacted most quickly.' },
      { text: 'no' },
      { text: answer },
    ]);
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const agent = new ToolAgent(
      model,
      { search: new FakePaperSearch(researchPapers) },
      { budgets: defaultBudgets, today: () => '2026-11-29', searchFirst: true, verdictStep: true },
    );
    return collectRun(agent.run(agentRequest(question)));
  }

  it('adds that the evidence is mixed when a "No" answer asserts the claim', async () => {
    const answer =
      'No. In single molecule assays supercoiled DNA compacted most quickly. This indicates that Dps condenses supercoiled DNA faster.';
    const { content, summary } = await run(answer);
    expect(summary.verdict).toBe('no');
    expect(content.startsWith(answer)).toBe(true);
    expect(content).toContain(
      '*(The evidence is mixed: this answer opens with "No", but it also says "This indicates that Dps condenses supercoiled DNA faster.".)*',
    );
    expect(summary.verdictContradicted).toBe('This indicates that Dps condenses supercoiled DNA faster.');
  });

  it('adds nothing to an answer that agrees with its verdict', async () => {
    const answer = 'No. Dps does not condense supercoiled DNA faster than doubly tethered DNA.';
    const { content, summary } = await run(answer);
    expect(summary.verdict).toBe('no');
    expect(content).not.toMatch(/evidence is mixed/);
    expect(summary.verdictContradicted).toBeUndefined();
  });
});
