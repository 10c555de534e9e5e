import { afterAll, describe, expect, it } from 'vitest';
import { acinetobacter, glucokinase } from '../../test/fakes/research-corpus.js';
import { OnnxEmbeddingModel } from '../adapters/embeddings/onnx-embedding-model.js';
import { defaultModelDir } from '../config/sections/embedding.js';
import { CitationSupport, supportSettings } from './citation-support.js';
import { CitationSupportStage, uncitedMarker } from './citation-support-stage.js';
import { citationMarkdown, SourceLedger } from './source-ledger.js';

function ledger() {
  const result = new SourceLedger();
  const bacteria = result.add(acinetobacter);
  const kinase = result.add(glucokinase);
  for (const source of [bacteria, kinase])
    result.addEvidence({ source, text: source.paper.abstract ?? '', kind: 'abstract' });
  return { ledger: result, bacteria: citationMarkdown(bacteria), kinase: citationMarkdown(kinase) };
}

/** Streams `text` in pieces of `size` characters through a stage and returns what it sent. */
async function stream(stage: CitationSupportStage, text: string, size = 7): Promise<string> {
  let output = '';
  for (let start = 0; start < text.length; start += size)
    output += await stage.push(text.slice(start, start + size));
  return output + (await stage.end());
}

describe('CitationSupportStage', () => {
  const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
  afterAll(() => model.close());

  it('keeps a citation whose passage supports its sentence, and sends the text unchanged', async () => {
    const { ledger: records, bacteria } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(model));
    const answer = `A. lwoffii only evolved resistance to ciprofloxacin in the lab ${bacteria}. Nothing else.`;
    expect(await stream(stage, answer)).toBe(answer);
    expect(stage.report).toEqual({ checked: 1, dropped: 0, uncitedSentences: 0, judgedBy: 'embedding' });
  });

  it('drops a citation of a record on another subject and marks the sentence uncited', async () => {
    const { ledger: records, kinase } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(model));
    const sentence = 'A. lwoffii only evolved resistance to ciprofloxacin in the lab';
    const output = await stream(stage, `${sentence} ${kinase}. Next sentence.`);
    expect(output).toBe(`${sentence} ${uncitedMarker}. Next sentence.`);
    expect(stage.report).toMatchObject({ checked: 1, dropped: 1, uncitedSentences: 1 });
    expect([...stage.dropped].map((source) => source.label)).toEqual(['Gersing et al., 2023']);
  });

  it('drops only the unsupported one of two citations: the sentence stays cited', async () => {
    const { ledger: records, bacteria, kinase } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(model));
    const sentence = 'A. lwoffii only evolved resistance to ciprofloxacin in the lab';
    const output = await stream(stage, `${sentence} (${bacteria}; ${kinase}).`);
    expect(output).toBe(`${sentence} (${bacteria}).`);
    expect(stage.report).toMatchObject({ checked: 2, dropped: 1, uncitedSentences: 0 });
  });

  it('keeps two citations of one sentence that both support it (they are not measured against each other)', async () => {
    const { ledger: records, bacteria } = ledger();
    const replication = records.add({
      ...glucokinase,
      title: 'Replicate evolution of antibiotic resistance in Acinetobacter lwoffii',
      authors: ['Ines Example'],
      doi: '10.1000/replicate',
      url: 'https://doi.org/10.1000/replicate',
      abstract:
        'In twelve replicate lines, A. lwoffii evolved resistance to ciprofloxacin only, while A. baumannii lines became resistant to three antibiotics.',
    });
    records.addEvidence({ source: replication, text: replication.paper.abstract ?? '', kind: 'abstract' });
    const stage = new CitationSupportStage(records, new CitationSupport(model));
    const answer = `A. lwoffii only evolved resistance to ciprofloxacin in the lab (${bacteria}; ${citationMarkdown(replication)}).`;
    expect(await stream(stage, answer)).toBe(answer);
    expect(stage.report).toMatchObject({ checked: 2, dropped: 0 });
  });

  it('judges a citation after the full stop against the sentence before it', async () => {
    const { ledger: records, bacteria, kinase } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(model));
    const output = await stream(
      stage,
      `Glucokinase regulates insulin secretion. ${kinase}\nThen ${bacteria}.`,
      3,
    );
    expect(output).toContain(`insulin secretion. ${kinase}\n`);
    expect(stage.report.dropped).toBe(1);
  });

  it('judges by shared words alone without an embedding model', async () => {
    const { ledger: records, bacteria, kinase } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(undefined));
    const output = await stream(
      stage,
      `A. baumannii readily evolved resistance to meropenem ${bacteria}. Acinetobacter variants were mapped ${kinase}.`,
    );
    expect(output).toBe(
      `A. baumannii readily evolved resistance to meropenem ${bacteria}. Acinetobacter variants were mapped ${uncitedMarker}.`,
    );
    expect(stage.report).toEqual({ checked: 2, dropped: 1, uncitedSentences: 1, judgedBy: 'lexical' });
  });

  it('falls back to shared words when the run is out of time, instead of failing the answer', async () => {
    const { ledger: records, bacteria } = ledger();
    const judge = new CitationSupport(model, supportSettings, AbortSignal.abort());
    const stage = new CitationSupportStage(records, judge);
    const answer = `A. baumannii readily evolved resistance to meropenem ${bacteria}.`;
    expect(await stream(stage, answer)).toBe(answer);
    expect(stage.report).toEqual({ checked: 1, dropped: 0, uncitedSentences: 0, judgedBy: 'lexical' });
  });

  it('waits no longer than its limit for a model that does not answer, then judges by shared words', async () => {
    const { ledger: records, bacteria } = ledger();
    const silent = { ...model, id: 'silent', embed: () => new Promise<Float32Array[]>(() => {}) };
    const judge = new CitationSupport(silent as unknown as typeof model, supportSettings, undefined, 50);
    const stage = new CitationSupportStage(records, judge);
    stage.prepare();
    const started = performance.now();
    const answer = `A. baumannii readily evolved resistance to meropenem ${bacteria}.`;
    expect(await stream(stage, answer)).toBe(answer);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(stage.report.judgedBy).toBe('lexical');
  });

  it('sends the service’s own text unchecked, after what it held', async () => {
    const { ledger: records, kinase } = ledger();
    const stage = new CitationSupportStage(records, new CitationSupport(undefined));
    expect(await stage.push(`Parsing is fast ${kinase}`)).toBe('Parsing is fast ');
    expect(await stage.passThrough(`\n\nSee ${kinase}.`)).toBe(`${uncitedMarker}\n\nSee ${kinase}.`);
  });
});
