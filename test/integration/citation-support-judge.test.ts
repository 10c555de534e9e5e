import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import { CitationSupport, supportSettings, termShare } from '../../src/agent/citation-support.js';
import { defaultModelDir } from '../../src/config/sections/embedding.js';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

// Real SciFact claims and abstracts (CC BY-NC 2.0: read from the shared data, not copied here).
const scifact = 'eval/scifact';
const missing = needsSharedData(`${scifact}/corpus.jsonl.gz`, `${scifact}/queries.jsonl`);

function load() {
  const wanted = new Set(['380526', '26996935', '6372244', '4465735']);
  const abstracts = new Map<string, string>();
  const corpus = gunzipSync(readFileSync(join(sharedData, scifact, 'corpus.jsonl.gz'))).toString('utf8');
  for (const line of corpus.split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    if (wanted.has(record._id)) abstracts.set(record._id, `${record.title}\n${record.text}`);
  }
  const claims = new Map<string, string>();
  for (const line of readFileSync(join(sharedData, scifact, 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const claim = JSON.parse(line) as { _id: string; text: string };
    if (['46', '47', '118'].includes(claim._id)) claims.set(claim._id, claim.text);
  }
  return {
    // Claim 46 (DGKK and hypospadias) and its gold evidence abstract 380526.
    dgkk: { claim: claims.get('46') as string, evidence: abstracts.get('380526') as string },
    // Claim 47 (CRISPR spacers' bias in phage genome locations) and its gold evidence abstract 26996935.
    crispr: { claim: claims.get('47') as string, evidence: abstracts.get('26996935') as string },
    // Claim 118 (antibiotics, the gut microbiome and C. difficile), its gold abstract 6372244, and
    // 4465735, an abstract on the same subject that is not its evidence.
    microbiome: {
      claim: claims.get('118') as string,
      evidence: abstracts.get('6372244') as string,
      sameSubject: abstracts.get('4465735') as string,
    },
  };
}

describe.skipIf(missing)('the citation support judge on SciFact claims (real MiniLM)', () => {
  const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
  afterAll(() => model.close());

  it('keeps a citation of the gold evidence abstract and drops one of an abstract on another subject', async () => {
    const { dgkk, crispr } = load();
    const judge = new CitationSupport(model);
    const kept = await judge.judge(dgkk.claim, dgkk.evidence);
    expect(kept).toMatchObject({ supported: true, lexicalOnly: false });
    expect(kept.score).toBeGreaterThanOrEqual(supportSettings.threshold);
    const dropped = await judge.judge(dgkk.claim, crispr.evidence);
    expect(dropped.supported).toBe(false);
    expect(dropped.score).toBeLessThan(kept.score);
    expect(await judge.judge(crispr.claim, crispr.evidence)).toMatchObject({ supported: true });
    expect(await judge.judge(crispr.claim, dgkk.evidence)).toMatchObject({ supported: false });
  });

  it('drops a citation of a passage on the subject when another retrieved record supports the sentence better', async () => {
    const { microbiome } = load();
    const judge = new CitationSupport(model);
    // Alone, the same-subject abstract scores above the threshold...
    const alone = await judge.judge(microbiome.claim, microbiome.sameSubject);
    expect(alone.score).toBeGreaterThanOrEqual(supportSettings.threshold);
    // ...but the run also retrieved the evidence, which supports the claim better.
    const beside = await judge.judge(microbiome.claim, microbiome.sameSubject, [microbiome.evidence]);
    expect(beside.supported).toBe(false);
    expect(beside.bestOther).toBeGreaterThan(beside.score);
    const gold = await judge.judge(microbiome.claim, microbiome.evidence, [microbiome.sameSubject]);
    expect(gold).toMatchObject({ supported: true, bestOther: alone.score });
  });

  it('judges by the shared words alone when the model fails, and says so', async () => {
    const { dgkk, crispr } = load();
    const broken: EmbeddingModel = {
      id: 'broken',
      dimensions: 384,
      maxTokens: 254,
      countTokens: () => 1,
      embed: () => Promise.reject(new Error('the model is gone')),
      close: () => Promise.resolve(),
    };
    const judge = new CitationSupport(broken);
    const judged = await judge.judge(dgkk.claim, crispr.evidence);
    expect(judged).toMatchObject({ supported: false, lexicalOnly: true });
    expect(judged.score).toBe(termShare(dgkk.claim, crispr.evidence));
    expect(judge.usesModel).toBe(false);
  });
});
