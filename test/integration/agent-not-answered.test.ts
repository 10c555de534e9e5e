import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import { defaultBudgets } from '../../src/agent/agent-types.js';
import { ExtractiveAgent } from '../../src/agent/extractive-agent.js';
import { ToolAgent } from '../../src/agent/tool-agent.js';
import { defaultModelDir } from '../../src/config/sections/embedding.js';
import { FakePaperSearch, paper } from '../fakes/agent-service-fakes.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { dps } from '../fakes/research-corpus.js';
import { agentRequest, collectRun } from '../helpers/agent-run.js';

/**
 * Say when the papers do not answer (issue 35, item 4): when no record the search found shares the
 * question's key terms, the answer says "The papers found do not answer this" and what was
 * searched, and quotes or writes nothing from them or from a model's memory.
 */
const question = 'What tools exist for collaborative text annotation, and how do they differ?';
// Each shares one word with the question ("text", "collaborative"), none its subject.
const offTopic = [
  paper({
    title: 'Text classification with convolutional networks',
    authors: ['Yoon Kim'],
    year: 2014,
    doi: '10.1/textcnn',
    url: 'https://doi.org/10.1/textcnn',
    abstract: 'Convolutional networks over word vectors classify the sentiment of a text.',
  }),
  paper({
    title: 'Collaborative filtering for implicit feedback datasets',
    authors: ['Yifan Hu'],
    year: 2008,
    doi: '10.1/cf',
    url: 'https://doi.org/10.1/cf',
    abstract: 'Collaborative filtering recommends items from the viewing history of users.',
  }),
];

describe('the extractive agent when the papers found do not answer', () => {
  it('says so and names what it searched, quoting no sentence of the unrelated papers', async () => {
    const search = new FakePaperSearch(offTopic);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets });
    const { content, summary } = await collectRun(agent.run(agentRequest(question)));
    expect(summary.sources).toBe(2);
    expect(content).toMatch(
      /^The papers found do not answer this\. Searched for: [^;]*annotation[^;]*; 2 record\(s\) were found \(“Text classification/,
    );
    expect(content).not.toContain('“Convolutional networks');
    expect(summary.citations.cited).toEqual([]);
  });

  it('still quotes a related record', async () => {
    const search = new FakePaperSearch([...offTopic, dps]);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets });
    const { content } = await collectRun(
      agent.run(agentRequest('Which DNA topology does Dps condense most quickly?')),
    );
    expect(content).not.toMatch(/do not answer this/);
    expect(content).toMatch(/supercoiled and doubly tethered DNA compacted most quickly/);
  });
});

describe('the tool agent when the papers found do not answer (scripted model)', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  function agent(options: { verdictStep?: boolean } = {}) {
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    return new ToolAgent(
      model,
      { search: new FakePaperSearch(offTopic) },
      { budgets: defaultBudgets, today: () => '2026-11-29', searchFirst: true, ...options },
    );
  }

  it('writes the answer itself, without asking the model, when it must answer', async () => {
    // A yes/no question: the model chooses to answer (no text), and the answer step finds nothing related.
    server.setScript([{ text: '' }, { text: 'Yes. From memory: BRAT and WebAnno.' }]);
    server.requests.length = 0;
    const { content } = await collectRun(
      agent({ verdictStep: true }).run(
        agentRequest('Do collaborative text annotation tools support several annotators at once?'),
      ),
    );
    expect(server.requests).toHaveLength(1);
    expect(content).toMatch(/^The papers found do not answer this\. Searched for: [^;]*annotation/);
    expect(content).not.toMatch(/BRAT/);
  });

  it('says after an answer the model wrote anyway that the papers found do not answer', async () => {
    server.setScript([{ text: 'BRAT and WebAnno are common tools.' }]);
    server.requests.length = 0;
    const { content } = await collectRun(agent().run(agentRequest(question)));
    expect(content).toMatch(
      /^BRAT and WebAnno are common tools\.\n\n\*\(The papers found do not answer this: searched for .*annotation.*; the answer above is not from them\.\)\*/,
    );
  });
});

// Decision 0064: records on the question's subject (they share its key terms) that do not answer it.
const intubation = 'Is oral endotracheal intubation efficacy impaired in the helicopter environment?';
const cuffPressure = paper({
  title: 'Endotracheal tube cuff pressure during helicopter transport',
  authors: ['Ann Example'],
  year: 2019,
  doi: '10.1/cuff',
  url: 'https://doi.org/10.1/cuff',
  abstract:
    'The air in an endotracheal tube cuff expands as a helicopter climbs. We measured cuff pressure after intubation in 52 adults flown at cruising altitude: 41 exceeded 30 cm H2O, above which tracheal mucosal perfusion falls. Filling the cuff with saline kept pressures in range.',
});
const manikinStudy = paper({
  title: 'Oral endotracheal intubation by flight nurses in a BO-105 helicopter',
  authors: ['Ben Example'],
  year: 2001,
  doi: '10.1/manikin',
  url: 'https://doi.org/10.1/manikin',
  abstract:
    'Flight nurses often secure the airway by oral endotracheal intubation during air medical transport. We asked whether the in-flight environment of a BO-105 helicopter impairs their ability to intubate. Each nurse intubated a manikin three times on the ground and three times in the helicopter cabin. First-attempt success and time to intubation did not differ between the two environments, although nurses rated intubation in flight as harder.',
});

describe('the agents with the embedding model: records on the subject that do not answer', () => {
  const embeddings = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
    await embeddings.close();
  });

  it('the extractive agent says the papers found do not answer, naming them', async () => {
    const search = new FakePaperSearch([cuffPressure]);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets, embeddings });
    const { content } = await collectRun(agent.run(agentRequest(intubation)));
    expect(content).toMatch(/The papers found do not answer this/);
    expect(content).toMatch(/none of which answers the question|no record found answers the question/);
    expect(content).toMatch(/cuff pressure/i);
  });

  it('the extractive agent answers when the record that answers is among them', async () => {
    const search = new FakePaperSearch([cuffPressure, manikinStudy]);
    const agent = new ExtractiveAgent({ search }, { budgets: defaultBudgets, embeddings });
    const { content } = await collectRun(agent.run(agentRequest(intubation)));
    expect(content).not.toMatch(/do not answer this/);
    expect(content).toMatch(
      /“Flight nurses often secure the airway[^\n]*\(https:\/\/doi\.org\/10\.1\/manikin\)/,
    );
  });

  it('the tool agent writes the answer itself instead of the model', async () => {
    server.setScript([{ text: '' }, { text: 'Yes. From memory: intubation fails more often in flight.' }]);
    server.requests.length = 0;
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const agent = new ToolAgent(
      model,
      { search: new FakePaperSearch([cuffPressure]) },
      {
        budgets: defaultBudgets,
        today: () => '2026-11-29',
        searchFirst: true,
        verdictStep: true,
        embeddings,
      },
    );
    const { content } = await collectRun(agent.run(agentRequest(intubation)));
    expect(content).toMatch(/^The papers found do not answer this\. Searched for: /);
    expect(content).not.toMatch(/From memory/);
  });
});
