import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer } from '../../test/fakes/fake-openai-server.js';
import { OpenAiChatModel } from '../adapters/chat/openai-chat-model.js';
import { createSqliteProjectStore } from '../adapters/sqlite/sqlite-project-store.js';
import { AppError } from '../domain/errors.js';
import type { FullTextResult } from '../domain/fulltext.js';
import { emptyPaper } from '../domain/paper.js';
import type { DocumentRecord } from '../domain/project.js';
import type { ProjectStore } from '../ports/project-store.js';
import { AnalysisService, splitQuestions } from './analysis-service.js';
import { ProjectService } from './project-service.js';
import type { FullTextReader } from './services.js';

describe('splitQuestions', () => {
  it.each([
    ['What dataset is used?,Which metric?', ['What dataset is used?', 'Which metric?']],
    [
      'What dataset is used?, Which metric? , How large?',
      ['What dataset is used?', 'Which metric?', 'How large?'],
    ],
    ['In mice, what dose was used?', ['In mice, what dose was used?']],
    ['datasets, evaluation metrics, results', ['datasets', 'evaluation metrics', 'results']],
    [
      ['What is X?', 'What is Y?'],
      ['What is X?', 'What is Y?'],
    ],
  ])('%j', (input, expected) => {
    expect(splitQuestions(input)).toEqual(expected);
  });
});

/** A reader over fixed chunks: `ask` returns the chunk containing the most question words. */
class FixedReader implements FullTextReader {
  readonly asked: Array<{ pdfRef: string; question: string }> = [];
  constructor(private readonly documents: Record<string, string[]>) {}
  async readChunk(): Promise<FullTextResult> {
    throw new Error('not used');
  }
  async ask(_tenant: string, pdfRef: string, question: string): Promise<FullTextResult> {
    this.asked.push({ pdfRef, question });
    const chunks = this.documents[pdfRef];
    if (!chunks) throw new AppError('unprocessable', 'The PDF has no text layer');
    const words = question
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => word.length > 3);
    const scored = chunks.map((text, index) => ({
      index,
      score: words.filter((word) => text.toLowerCase().includes(word)).length,
    }));
    const best = scored.sort((a, b) => b.score - a.score)[0] ?? { index: 0 };
    return {
      chunks: [{ chunk_num: best.index + 1, chunk: chunks[best.index] ?? '', img_mds: [], pdf_url: pdfRef }],
      total_chunk_num: chunks.length,
      hint: '',
    };
  }
}

/** A document row filed with an entry (the fixed reader below answers for its PROJ: reference). */
function storedDocument(tenantId: string, id: string): DocumentRecord {
  const sha256 = id.padEnd(64, '0').replace(/[^0-9a-f]/g, '0');
  return {
    id,
    tenantId,
    sha256,
    blobKey: `documents/${sha256.slice(0, 2)}/${sha256}.pdf`,
    byteSize: 1,
    contentType: 'application/pdf',
    filename: null,
    sourceUrl: null,
    createdAt: new Date().toISOString(),
  };
}

let dataDir: string;
let store: ProjectStore;
let projects: ProjectService;
let reader: FixedReader;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-analysis-'));
  store = await createSqliteProjectStore(join(dataDir, 'db.sqlite'));
  projects = new ProjectService(store);
  const project = await projects.resolve('lab', { projectName: 'Annotation' }, { createMissing: true });
  await projects.addPaper(
    'lab',
    project,
    {
      ...emptyPaper('DoTAT: A Domain-oriented Text Annotation Tool'),
      year: 2022,
      url: 'https://aclanthology.org/2022.acl-demo.1',
    },
    storedDocument('lab', 'doc1'),
  );
  await projects.addPaper(
    'lab',
    project,
    {
      ...emptyPaper('Scanned memo'),
      abstract: 'We measured the annotation accuracy of volunteers on ACE2005 and it reached 80.5% overall.',
    },
    storedDocument('lab', 'doc2'),
  );
  await projects.addPaper(
    'lab',
    project,
    { ...emptyPaper('Unrelated note'), abstract: 'Cooking pasta takes ten minutes.' },
    null,
  );
  reader = new FixedReader({
    [`PROJ:${project.id}/doc1`]: [
      'Introduction. We propose DoTAT, a domain-oriented text annotation tool for information extraction.',
      'Experiments on the ACE2005 dataset show that DoTAT reduces the event annotation time by 19.7%. The annotation accuracy without review is 84.09%, higher than Brat.',
    ],
  });
});
afterAll(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('AnalysisService', () => {
  it('answers as a paper × question table citing the answering chunk, the abstract, or nothing', async () => {
    const project = await projects.get('lab', 'Annotation');
    const service = new AnalysisService({
      projects,
      fullText: reader,
      chunkUrl: (pdfRef, chunk) =>
        `http://alexandria.test/api/fulltext?pdf_id=${encodeURIComponent(pdfRef)}&chunk=${chunk}`,
    });
    const result = await service.analyze('lab', {
      project: 'Annotation',
      questions: ['What annotation accuracy is reached on ACE2005?'],
      mode: 'tabular',
    });
    expect(result.papers.map((paper) => paper.title)).toEqual(project.papers.map((paper) => paper.title));
    const [dotat, memo, unrelated] = result.cells.map((row) => row[0]);
    expect(dotat).toMatchObject({ source: 'fulltext', chunk: 2 });
    expect(dotat?.answer).toContain('84.09%');
    expect(memo).toMatchObject({ source: 'abstract', note: 'The PDF has no text layer' });
    expect(memo?.answer).toContain('80.5%');
    expect(unrelated).toMatchObject({ source: 'none', answer: '' });
    const lines = result.markdown.split('\n');
    expect(lines[0]).toBe('| Paper | What annotation accuracy is reached on ACE2005? |');
    expect(lines[2]).toContain(
      '[DoTAT: A Domain-oriented Text Annotation Tool](https://aclanthology.org/2022.acl-demo.1) (2022)',
    );
    expect(lines[2]).toContain(
      `[chunk 2](http://alexandria.test/api/fulltext?pdf_id=${encodeURIComponent(`PROJ:${project.id}/doc1`)}&chunk=2)`,
    );
    expect(lines[4]).toContain('— not addressed');
    expect(result.hint).toContain('3 papers × 1 question');
  });

  it('writes a synthesis per question in comprehensive mode, naming the papers that are silent', async () => {
    const service = new AnalysisService({ projects, fullText: reader, chunkUrl: () => 'http://x' });
    const result = await service.analyze('lab', {
      project: 'Annotation',
      questions: ['What annotation accuracy is reached?', 'How long does cooking pasta take?'],
      mode: 'comprehensive',
    });
    expect(result.markdown).toContain('### What annotation accuracy is reached?');
    expect(result.markdown).toContain('2 of 3 papers address this:');
    expect(result.markdown).toContain('Not addressed by: Unrelated note.');
    expect(result.markdown).toContain('### How long does cooking pasta take?');
    expect(result.markdown).toContain('“Cooking pasta takes ten minutes.” (abstract)');
  });

  it('refuses an empty project and too many questions, naming the parameter', async () => {
    const service = new AnalysisService({ projects, chunkUrl: () => '' });
    await expect(service.analyze('lab', { questions: ['x?'], mode: 'tabular' })).rejects.toMatchObject({
      code: 'unprocessable',
      param: 'project_name',
    });
    await expect(
      service.analyze('lab', {
        project: 'Annotation',
        questions: Array.from({ length: 11 }, (_, i) => `q${i}?`),
        mode: 'tabular',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'question' });
  });
});

describe('comprehensive synthesis written by a chat model', () => {
  it('cites only the project evidence: [n] becomes a link, unknown numbers and foreign links go', async () => {
    const fake = await startFakeOpenAiServer([
      {
        text: 'DoTAT reaches 84.09% accuracy [1], the memo reports 80.5% [2]; a third study disagrees [7]. See [this](http://evil.example/x).',
      },
      { status: 500 },
    ]);
    try {
      const model = new OpenAiChatModel({
        baseUrl: fake.baseUrl,
        model: 'fake-model',
        timeoutMs: 5000,
        maxRetries: 0,
      });
      const service = new AnalysisService({
        projects,
        fullText: reader,
        model,
        chunkUrl: (_pdfRef, chunk) => `http://alexandria.test/chunk/${chunk}`,
      });
      const question = 'What annotation accuracy is reached?';
      const result = await service.analyze('lab', {
        project: 'Annotation',
        questions: [question],
        mode: 'comprehensive',
      });
      const paragraph = result.markdown.split('\n')[2] ?? '';
      expect(paragraph).toBe(
        'DoTAT reaches 84.09% accuracy [1](http://alexandria.test/chunk/2), the memo reports 80.5% [2]; a third study disagrees. See this.',
      );
      expect(result.markdown).toContain('- [1] [DoTAT: A Domain-oriented Text Annotation Tool]');
      expect(result.markdown).toContain('- [2] Scanned memo: “We measured the annotation accuracy');
      // The evidence reached the model fenced, as data.
      const sent = fake.requests[0]?.messages.map((message) => message.content).join('\n') ?? '';
      expect(sent).toContain('<untrusted-paper-text nonce=');
      expect(sent).toContain('84.09%');

      const fallback = await service.analyze('lab', {
        project: 'Annotation',
        questions: [question],
        mode: 'comprehensive',
      });
      expect(fallback.markdown.split('\n')[2]).toBe('2 of 3 papers address this:');
      expect(fallback.hint).toContain('The chat model failed for 1 question');
    } finally {
      await fake.close();
    }
  });
});
