import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFullTextReader, FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { acinetobacterChunks, researchPapers } from '../fakes/research-corpus.js';
import { type ChatTestApp, startChatApp } from '../helpers/chat-app.js';

/**
 * A 1 MB one-word message is not echoed into the answer (issue 35): before, every "Searched for:"
 * line repeated the whole word (an answer of 1,000,211 characters).
 */
let t: ChatTestApp;
beforeAll(async () => {
  t = await startChatApp({
    tools: () => ({
      search: new FakePaperSearch(researchPapers),
      fullText: new FakeFullTextReader({ 'PROJ:gpt/doc_msphere': acinetobacterChunks }),
    }),
  });
});
afterAll(async () => {
  await t.close();
});

describe('a huge one-word message', () => {
  it('is not echoed whole into the answer or the progress', async () => {
    const word = 'a'.repeat(1_000_000);
    const completion = await t.client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: word }],
    });
    const message = completion.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.content.length).toBeLessThan(5000);
    expect((message.reasoning_content ?? '').length).toBeLessThan(5000);
    expect(message.content).toContain('No papers matched');
  });
});
