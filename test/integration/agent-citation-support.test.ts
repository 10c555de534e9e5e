import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import { defaultBudgets } from '../../src/agent/agent-types.js';
import { uncitedMarker } from '../../src/agent/citation-support-stage.js';
import { ToolAgent } from '../../src/agent/tool-agent.js';
import { defaultModelDir } from '../../src/config/sections/embedding.js';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';
import { FakeFullTextReader, FakePaperSearch } from '../fakes/agent-service-fakes.js';
import {
  type FakeOpenAiServer,
  type FakeScript,
  startFakeOpenAiServer,
} from '../fakes/fake-openai-server.js';
import { researchPapers } from '../fakes/research-corpus.js';
import { agentRequest, collectRun } from '../helpers/agent-run.js';

const question = 'Which antibiotics did Acinetobacter lwoffii evolve resistance to in the lab?';
const hartman = '[Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24)';
const gersing = '[Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8)';
const searchCall = {
  name: 'search_papers',
  arguments: { keywords: 'Acinetobacter lwoffii resistance glucokinase variants' },
};

let server: FakeOpenAiServer;
const embeddings = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
  await embeddings.close();
});

async function run(script: FakeScript, model: EmbeddingModel | null = embeddings) {
  server.setScript(script);
  const chat = new OpenAiChatModel({
    baseUrl: server.baseUrl,
    model: 'fake-model',
    timeoutMs: 10_000,
    maxRetries: 0,
  });
  const agent = new ToolAgent(
    chat,
    { search: new FakePaperSearch(researchPapers), fullText: new FakeFullTextReader({}) },
    { budgets: defaultBudgets, today: () => '2026-11-29', ...(model ? { embeddings: model } : {}) },
  );
  return collectRun(agent.run(agentRequest(question, 'tenant-a')));
}

describe('the tool agent checks each citation against the passage it points at', () => {
  it('drops a citation of a retrieved record that does not support its sentence, marks it, counts it', async () => {
    const supported = `A. lwoffii only evolved resistance to ciprofloxacin ${hartman}.`;
    const unsupported = 'A. baumannii readily evolved resistance to meropenem and gentamicin';
    const { content, summary } = await run([
      { toolCalls: [searchCall] },
      { text: `${supported} ${unsupported} ${gersing}.` },
    ]);
    // The model's words stay as written; only the glucokinase citation goes, and the sentence says so.
    expect(content).toContain(`${supported} ${unsupported} ${uncitedMarker}.`);
    expect(content).not.toContain(gersing);
    expect(summary.support).toEqual({ checked: 2, dropped: 1, uncitedSentences: 1, judgedBy: 'embedding' });
    // The references list and the summary's cited records leave the record whose citation was dropped out.
    expect(summary.citations.cited.map((source) => source.label)).toEqual(['Hartman et al., 2024']);
    expect(content).not.toContain('Gersing');
  });

  it('keeps a supported citation and reports nothing dropped', async () => {
    const answer = `A. baumannii readily evolved resistance to meropenem, ciprofloxacin and gentamicin ${hartman}.`;
    const { content, summary } = await run([{ toolCalls: [searchCall] }, { text: answer }]);
    expect(content).toContain(answer);
    expect(summary.support).toMatchObject({ checked: 1, dropped: 0, uncitedSentences: 0 });
  });

  it('without an embedding model judges by shared words and says so in the summary', async () => {
    const { content, summary } = await run(
      [
        { toolCalls: [searchCall] },
        { text: `Glucokinase variants were mapped for A. lwoffii resistance ${gersing}.` },
      ],
      null,
    );
    expect(content).toContain(`resistance ${uncitedMarker}.`);
    expect(summary.support).toEqual({ checked: 1, dropped: 1, uncitedSentences: 1, judgedBy: 'lexical' });
  });
});
