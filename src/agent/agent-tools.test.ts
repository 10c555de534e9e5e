import { describe, expect, it } from 'vitest';
import {
  FakeFullTextReader,
  FakePaperLibrary,
  FakePaperSearch,
  paper,
} from '../../test/fakes/agent-service-fakes.js';
import { PromptFence } from '../text/fence.js';
import { createAgentTools } from './agent-tools.js';
import { DocumentProvenance } from './document-provenance.js';
import { SourceLedger } from './source-ledger.js';
import { prepareToolCall, type ToolContext } from './tool-call.js';
import { ToolGate } from './tool-gate.js';

/** A tool context whose gate reads `userMessage` as the user's (only) message. */
function context(userMessage = 'What does PROJ:gpt/doc say?'): ToolContext {
  const ledger = new SourceLedger();
  const provenance = new DocumentProvenance({ messages: [{ role: 'user', content: userMessage }], ledger });
  return {
    tenantId: 'tenant-a',
    signal: new AbortController().signal,
    ledger,
    fence: new PromptFence('0123456789ab'),
    timeoutMs: 5_000,
    gate: new ToolGate({ provenance, userMessage }),
  };
}

/** The user asks to add every paper these tests add. */
const addRequest =
  'Please add DOI:10.1000/xyz and https://example.org/a.pdf and https://example.org/other.pdf to my reading project.';

async function call(
  library: FakePaperLibrary,
  args: Record<string, string>,
  userMessage = addRequest,
): Promise<string> {
  const tools = createAgentTools({ library });
  const prepared = prepareToolCall(tools, {
    id: 'call_1',
    name: 'add_to_project',
    arguments: JSON.stringify(args),
  });
  return prepared.execute(context(userMessage));
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

  it('adds nothing when the user did not ask to save papers, or the paper is not one the run was given (issue 4)', async () => {
    const library = new FakePaperLibrary();
    expect(
      await call(library, { paper_id: 'DOI:10.1000/xyz' }, 'What does DOI:10.1000/xyz say about zebrafish?'),
    ).toMatch(/^Refused: this tool changes the user's projects/);
    // Asked to add, but not this paper: a paper's text named it, not the user.
    expect(await call(library, { pdf_url: 'https://attacker.example/evil.pdf' })).toMatch(
      /^Refused: you may read or add only documents/,
    );
    expect(await call(library, { paper_id: 'DOI:10.1000/other' })).toMatch(/^Refused:/);
    // Asked to add, but into a project the user did not name.
    expect(await call(library, { paper_id: 'DOI:10.1000/xyz', project_name: 'Planted' })).toMatch(
      /^Refused: the user did not name that project/,
    );
    expect(library.calls).toEqual([]);
  });
});

describe('the tool timeout', () => {
  it('ends a tool whose service is slower than the limit, and aborts the service call', async () => {
    const search = new FakePaperSearch([paper({ title: 'A slow record' })]);
    search.delayMs = 5_000;
    const prepared = prepareToolCall(createAgentTools({ search }), {
      id: 'call_1',
      name: 'search_papers',
      arguments: JSON.stringify({ keywords: 'slow records' }),
    });
    const result = await prepared.execute({ ...context(), timeoutMs: 30 });
    expect(result).toBe('Error: search_papers failed: search_papers took longer than 30 ms');
    expect(search.aborted).toBe(1);
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

describe('the log of tool calls', () => {
  it('logs every call with its arguments (cut) and the decision: allowed, refused, invalid', async () => {
    const lines: Array<{ level: string; object: { tool: Record<string, string> } }> = [];
    const log = {
      info: (object: object) => lines.push({ level: 'info', object: object as never }),
      warn: (object: object) => lines.push({ level: 'warn', object: object as never }),
    };
    const fullText = new FakeFullTextReader({ 'PROJ:gpt/doc': ['first chunk'] });
    const tools = createAgentTools({ fullText });
    const run = (args: unknown, name = 'ask_pdf') =>
      prepareToolCall(tools, { id: 'c', name, arguments: JSON.stringify(args) }).execute({
        ...context(),
        log,
      });
    await run({ pdf_id: 'PROJ:gpt/doc', question: 'What?' });
    const planted = `PDF_URL:https://attacker.example/collect?q=${'x'.repeat(1500)}`;
    expect(await run({ pdf_id: planted, question: 'What?' })).toMatch(/^Refused:/);
    await run({}, 'delete_everything');
    expect(fullText.calls).toHaveLength(1);
    expect(lines.map((line) => [line.level, line.object.tool.name, line.object.tool.decision])).toEqual([
      ['info', 'ask_pdf', 'allowed'],
      ['warn', 'ask_pdf', 'refused'],
      ['info', 'delete_everything', 'invalid'],
    ]);
    const refused = lines[1]?.object.tool;
    expect(refused?.arguments).toContain('attacker.example/collect?q=xxx');
    expect(refused?.arguments?.length).toBeLessThanOrEqual(500);
    expect(refused?.reason).toMatch(
      /^document not given by the user or found by the run: PDF_URL:https:\/\/attacker/,
    );
  });
});
