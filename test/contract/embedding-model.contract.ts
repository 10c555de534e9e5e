import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';

const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

const protein = 'The protein folds into a stable structure at room temperature.';
const proteinReworded = 'At room temperature the protein folds into a stable structure.';
const markets = 'Stock markets fell sharply after the central bank raised interest rates.';

/**
 * The behaviour every EmbeddingModel adapter must have. `create` returns a ready model (and is called
 * once); the suite closes it at the end.
 */
export function runEmbeddingModelContract(name: string, create: () => Promise<EmbeddingModel>): void {
  describe(`EmbeddingModel contract: ${name}`, () => {
    let model: EmbeddingModel;
    beforeAll(async () => {
      model = await create();
    });
    afterAll(async () => {
      await model.close();
    });

    it('embeds texts in order into unit vectors of the model’s length', async () => {
      const vectors = await model.embed([protein, markets, proteinReworded]);
      expect(vectors).toHaveLength(3);
      expect(model.dimensions).toBeGreaterThan(0);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector.length).toBe(model.dimensions);
        expect(norm(vector)).toBeCloseTo(1, 3);
      }
      const [first, second, third] = vectors as [Float32Array, Float32Array, Float32Array];
      // Order: the reworded sentence is closer to the first than the unrelated one is.
      expect(dot(first, third)).toBeGreaterThan(dot(first, second) + 0.2);
    });

    it('gives the same vector for a text alone and inside a batch of longer texts', async () => {
      const [alone] = await model.embed([markets]);
      const batch = await model.embed([`${protein} ${protein} ${protein}`, markets, proteinReworded]);
      expect(dot(alone as Float32Array, batch[1] as Float32Array)).toBeGreaterThan(0.9999);
    });

    it('returns an empty list for no texts', async () => {
      expect(await model.embed([])).toEqual([]);
    });

    it('truncates over-long input instead of failing', async () => {
      const long = Array.from({ length: 2000 }, (_, index) => `word${index % 50} protein`).join(' ');
      expect(model.countTokens(long)).toBeGreaterThan(model.maxTokens);
      const [vector] = await model.embed([long]);
      expect(norm(vector as Float32Array)).toBeCloseTo(1, 3);
    });

    it('counts tokens without special tokens', () => {
      expect(model.countTokens('')).toBe(0);
      const short = model.countTokens('protein folding');
      expect(short).toBeGreaterThanOrEqual(2);
      expect(short).toBeLessThanOrEqual(8);
      expect(model.countTokens(`${protein} ${markets}`)).toBeGreaterThanOrEqual(
        model.countTokens(protein) + model.countTokens(markets) - 1,
      );
      expect(model.maxTokens).toBeGreaterThan(100);
    });

    it('embeds questions (inputType query) comparably to passages', async () => {
      const [question] = await model.embed(['Does the protein fold at room temperature?'], {
        inputType: 'query',
      });
      const [passage, other] = await model.embed([protein, markets], { inputType: 'document' });
      expect(dot(question as Float32Array, passage as Float32Array)).toBeGreaterThan(
        dot(question as Float32Array, other as Float32Array),
      );
    });

    it('rejects with the abort reason when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort(new Error('caller went away'));
      await expect(model.embed([protein], { signal: controller.signal })).rejects.toThrow('caller went away');
    });

    it('has a stable id', () => {
      expect(model.id).toMatch(/\S/);
      expect(model.id).toBe(model.id);
    });
  });
}
