import { describe, expect, it } from 'vitest';
import { FakeFullTextReader, FakePaperLibrary } from '../../test/fakes/agent-service-fakes.js';
import { PromptFence } from '../text/fence.js';
import { createAgentTools, prepareToolCall, type ToolContext } from './agent-tools.js';
import { SourceLedger } from './source-ledger.js';

function context(): ToolContext {
  return {
    tenantId: 'tenant-a',
    signal: new AbortController().signal,
    ledger: new SourceLedger(),
    fence: new PromptFence('0123456789ab'),
    timeoutMs: 5_000,
  };
}

async function call(library: FakePaperLibrary, args: Record<string, string>): Promise<string> {
  const tools = createAgentTools({ library });
  const prepared = prepareToolCall(tools, {
    id: 'call_1',
    name: 'add_to_project',
    arguments: JSON.stringify(args),
  });
  return prepared.execute(context());
}

describe('the agent add_to_project tool', () => {
  it('answers an error naming both when paper_id and pdf_url are given, and adds nothing (issue 13)', async () => {
    const library = new FakePaperLibrary();
    const result = await call(library, {
      paper_id: 'DOI:10.1000/xyz',
      pdf_url: 'https://example.org/other.pdf',
    });
    expect(result).toBe('Error: add_to_project failed: Give paper_id or pdf_url, not both');
    expect(library.calls).toEqual([]);
  });

  it('adds by paper_id or by pdf_url alone, and asks for one when neither is given', async () => {
    const library = new FakePaperLibrary();
    expect(await call(library, { paper_id: 'DOI:10.1000/xyz' })).toMatch(
      /^Added 1 record\(s\) to project "gpt"/,
    );
    expect(await call(library, { pdf_url: 'https://example.org/a.pdf', project_name: 'reading' })).toMatch(
      /^Added 1 record\(s\) to project "reading"/,
    );
    expect(library.calls.map((entry) => entry.input)).toEqual([
      { kind: 'identifier', identifier: { type: 'DOI', value: '10.1000/xyz' } },
      { kind: 'url', url: 'https://example.org/a.pdf' },
    ]);
    expect(await call(library, {})).toBe('Error: add_to_project failed: Give paper_id or pdf_url');
  });
});

describe('the agent ask_pdf tool', () => {
  const ask = async (toolSet: 'full' | 'compact', question: string, userQuestion?: string) => {
    const fullText = new FakeFullTextReader({ 'PROJ:gpt/doc': ['first chunk', 'second chunk'] });
    const prepared = prepareToolCall(createAgentTools({ fullText }, toolSet), {
      id: 'call_1',
      name: 'ask_pdf',
      arguments: JSON.stringify({ pdf_id: 'PROJ:gpt/doc', question }),
    });
    await prepared.execute({ ...context(), ...(userQuestion ? { userQuestion } : {}) });
    return fullText.calls.map((entry) => entry.argument);
  };

  it('ranks by the user question and the model question together in the compact set, by the model question alone otherwise', async () => {
    const user = 'Which antibiotic did the evolved  strains resist?';
    expect(await ask('compact', 'What is the main finding?', user)).toEqual([
      'Which antibiotic did the evolved strains resist?\nWhat is the main finding?',
    ]);
    expect(await ask('full', 'What is the main finding?', user)).toEqual(['What is the main finding?']);
    // A model question that repeats the user's is asked once; without a user question, as asked.
    expect(await ask('compact', 'which antibiotic did the evolved strains resist?', user)).toEqual([
      'which antibiotic did the evolved strains resist?',
    ]);
    expect(await ask('compact', 'What is the main finding?')).toEqual(['What is the main finding?']);
  });
});
