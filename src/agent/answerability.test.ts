import { afterAll, describe, expect, it } from 'vitest';
import { paper } from '../../test/fakes/agent-service-fakes.js';
import { OnnxEmbeddingModel } from '../adapters/embeddings/onnx-embedding-model.js';
import { defaultModelDir } from '../config/sections/embedding.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import { AnswerabilityJudge, answerSettings } from './answerability.js';
import { CitationSupport } from './citation-support.js';
import { recordText } from './relevance.js';
import { type RetrievedSource, SourceLedger } from './source-ledger.js';

// A PubMedQA-style question, the abstract that answers it, and one on its subject that does not.
const question = 'Is oral endotracheal intubation efficacy impaired in the helicopter environment?';
const answers = paper({
  title: 'Oral endotracheal intubation by flight nurses in a BO-105 helicopter',
  abstract:
    'Flight nurses often secure the airway by oral endotracheal intubation during air medical transport. We asked whether the in-flight environment of a BO-105 helicopter impairs their ability to intubate. Each nurse intubated a manikin three times on the ground and three times in the helicopter cabin. First-attempt success and time to intubation did not differ between the two environments, although nurses rated intubation in flight as harder.',
});
const onSubject = paper({
  title: 'Endotracheal tube cuff pressure during helicopter transport',
  abstract:
    'The air in an endotracheal tube cuff expands as a helicopter climbs. We measured cuff pressure after intubation in 52 adults flown at cruising altitude: 41 exceeded 30 cm H2O, above which tracheal mucosal perfusion falls. Filling the cuff with saline kept pressures in range.',
});
const offSubject = paper({
  title: 'Collaborative filtering for implicit feedback datasets',
  abstract: 'Collaborative filtering recommends items from the viewing history of users.',
});

function records(...papers: Array<ReturnType<typeof paper>>): RetrievedSource[] {
  const ledger = new SourceLedger();
  return papers.map((item) => ledger.add(item));
}

describe('AnswerabilityJudge (real MiniLM)', () => {
  const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
  afterAll(() => model.close());

  it('scores the answering abstract over the threshold and the one on its subject under it', async () => {
    const scores = await new CitationSupport(model, answerSettings).scores(
      question,
      records(answers, onSubject).map((source) => recordText(source, [])),
    );
    const [answering, other] = (scores ?? []).map((item) => item.score);
    expect(answering).toBeGreaterThanOrEqual(answerSettings.threshold);
    expect(other).toBeLessThan(answerSettings.threshold);
  });

  it('keeps the record that answers among others, judged by the model', async () => {
    const sources = records(onSubject, answers, offSubject);
    const judged = await new AnswerabilityJudge(model).answering(question, sources, []);
    expect(judged).toEqual({ answering: [sources[1]], related: [sources[0], sources[1]], byModel: true });
  });

  it('finds no answer when only a record on the subject was retrieved (the term rule relates it)', async () => {
    const sources = records(onSubject, offSubject);
    const judged = await new AnswerabilityJudge(model).answering(question, sources, []);
    expect(judged).toEqual({ answering: [], related: [sources[0]], byModel: true });
  });
});

describe('AnswerabilityJudge without a working model', () => {
  const failing: EmbeddingModel = {
    id: 'failing',
    dimensions: 384,
    maxTokens: 256,
    countTokens: (text) => text.length,
    embed: async () => {
      throw new Error('model missing');
    },
    close: async () => {},
  };
  const slow: EmbeddingModel = {
    ...failing,
    embed: (_texts, options) =>
      new Promise((_resolve, reject) =>
        options?.signal?.addEventListener('abort', () => reject(options.signal?.reason)),
      ),
  };

  it.each([
    ['no model', undefined],
    ['a failing model', failing],
    ['a model slower than the limit', slow],
  ])('falls back to the term rule with %s', async (_label, embeddings) => {
    const sources = records(onSubject, offSubject);
    const judged = await new AnswerabilityJudge(embeddings, answerSettings, undefined, 50).answering(
      question,
      sources,
      [],
    );
    expect(judged).toEqual({ answering: [sources[0]], related: [sources[0]], byModel: false });
  });
});
