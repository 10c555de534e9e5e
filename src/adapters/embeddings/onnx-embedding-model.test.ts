import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultModelDir } from '../../config/sections/embedding.js';
import { OnnxEmbeddingModel } from './onnx-embedding-model.js';
import { readOnnxModelFolder } from './onnx-model-folder.js';
import { TokenEncoder } from './token-encoder.js';

interface ReferenceItem {
  text: string;
  ids: number[];
  embedding: number[];
}
// Made by scripts/reference-embeddings.py: numpy BERT forward over the fp32 safetensors of the
// reference model, HF's Rust tokenizer, mean pooling — no ONNX Runtime, no tokenizers.js.
const reference = JSON.parse(
  readFileSync(new URL('./__fixtures__/minilm-reference.json', import.meta.url), 'utf8'),
) as { items: ReferenceItem[] };

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let index = 0; index < a.length; index += 1) {
    ab += (a[index] as number) * (b[index] as number);
    aa += (a[index] as number) ** 2;
    bb += (b[index] as number) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
};

describe('OnnxEmbeddingModel on the installed all-MiniLM-L6-v2', () => {
  const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' });
  afterAll(() => model.close());

  it('tokenizes exactly as the reference tokenizer, truncating at 256 ids', () => {
    const folder = readOnnxModelFolder(defaultModelDir());
    const encoder = new TokenEncoder(folder.tokenizerJson, folder.tokenizerConfig, folder.maxSequence);
    expect(folder.maxSequence).toBe(256);
    expect(folder.pooling).toBe('mean');
    for (const item of reference.items) expect(encoder.encode(item.text)).toEqual(item.ids);
    expect(reference.items.some((item) => item.ids.length === 256)).toBe(true);
  });

  it('matches the fp32 reference model: cosine ≥ 0.99 on every sentence', async () => {
    const vectors = await model.embed(reference.items.map((item) => item.text));
    const cosines = reference.items.map((item, index) =>
      cosine(item.embedding, vectors[index] as Float32Array),
    );
    for (const value of cosines) expect(value).toBeGreaterThanOrEqual(0.99);
    expect(model.dimensions).toBe(384);
    expect(model.maxTokens).toBe(254);
  });

  it('keeps the reference model’s similarities: paraphrase close, unrelated far', async () => {
    const [food, bread, baby] = await model.embed(reference.items.slice(0, 3).map((item) => item.text));
    expect(cosine(food as Float32Array, bread as Float32Array)).toBeCloseTo(
      cosine(reference.items[0]?.embedding ?? [], reference.items[1]?.embedding ?? []),
      1,
    );
    expect(cosine(food as Float32Array, baby as Float32Array)).toBeLessThan(0.1);
  });
});

describe('OnnxEmbeddingModel without a model', () => {
  it('names the setup command when the folder is empty', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'alexandria-no-model-'));
    const model = new OnnxEmbeddingModel({ modelDir: empty, name: 'missing' });
    try {
      expect(model.id).toBe('onnx:missing');
      await expect(model.embed(['text'])).rejects.toMatchObject({
        code: 'internal',
        message: expect.stringContaining('node scripts/setup-model.mjs'),
      });
      expect(() => model.countTokens('text')).toThrow(/ALEXANDRIA_EMBEDDING_MODEL_DIR/);
    } finally {
      await model.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('closing OnnxEmbeddingModel while it embeds', () => {
  it('lets the running batch finish instead of killing the process (regression: Napi::Error on close)', async () => {
    const model = new OnnxEmbeddingModel({
      modelDir: defaultModelDir(),
      name: 'all-MiniLM-L6-v2',
      batchSize: 8,
    });
    const texts = Array.from(
      { length: 64 },
      (_, index) =>
        `Passage ${index}: bridging DNA contacts allow Dps to condense DNA in single molecule assays.`,
    );
    const running = model.embed(texts).then(
      () => 'finished',
      (error: Error) => error.message,
    );
    // Wait until the worker is running a batch, then close underneath it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await model.close();
    const outcome = await running;
    expect(['finished', 'The embedding model was closed']).toContain(outcome);
    // Still alive: this process can keep working (a native abort would have ended the test run).
    expect(process.exitCode ?? 0).toBe(0);
    await expect(model.embed(['after close'])).rejects.toThrow(/closed/);
  });
});

describe('closing OnnxEmbeddingModel with a queue of batches', () => {
  it('drops the queued batches and waits only for the running one (regression: piscina terminated the worker mid-run after its 30 s close timeout)', async () => {
    // Six callers, each one batch of 16 of the longest passages (a second or more of ONNX work apiece):
    // draining them all on close would take far longer than waiting for the one in flight.
    const passage = Array.from({ length: 300 }, (_, index) => `lipid${index % 89} rafts`).join(' ');
    const texts = Array.from({ length: 16 }, (_, index) => `Passage ${index}: ${passage}`);
    const model = new OnnxEmbeddingModel({
      modelDir: defaultModelDir(),
      name: 'all-MiniLM-L6-v2',
      batchSize: texts.length,
      threads: 1,
    });
    await model.embed(['warm up']);
    const callers = Array.from({ length: 6 }, () =>
      model.embed(texts).then(
        () => 'finished',
        (error: Error) => error.message,
      ),
    );
    // The first batch is running now; the other five wait in the queue.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await model.close();
    const outcomes = await Promise.all(callers);
    expect(
      outcomes.filter((outcome) => outcome === 'The embedding model was closed').length,
    ).toBeGreaterThanOrEqual(4);
    expect(
      outcomes.every((outcome) => ['finished', 'The embedding model was closed'].includes(outcome)),
    ).toBe(true);
    expect(process.exitCode ?? 0).toBe(0);
  });
});

describe('a question embedded while a document batch is in flight (issue 13: one tenant stalls the others)', () => {
  // 48 passages of the longest input (256 word pieces) in ONE ONNX run: seconds of work on the
  // document worker. Which call finishes first is the test, not how long either took.
  const passage = Array.from({ length: 300 }, (_, index) => `protein${index % 97} folds`).join(' ');
  const documents = Array.from({ length: 48 }, (_, index) => `Passage ${index}: ${passage}`);

  async function finishingOrder(queryThread: boolean): Promise<string[]> {
    const model = new OnnxEmbeddingModel({
      modelDir: defaultModelDir(),
      name: 'all-MiniLM-L6-v2',
      batchSize: documents.length,
      queryThread,
    });
    try {
      // Both sessions loaded first, so neither side pays a cold start during the race.
      await model.embed(['warm up']);
      await model.embed(['warm up'], { inputType: 'query' });
      const order: string[] = [];
      const batch = model.embed(documents).then((vectors) => {
        order.push('document batch');
        return vectors;
      });
      const question = model.embed(['What is a queue?'], { inputType: 'query' }).then((vectors) => {
        order.push('question');
        return vectors;
      });
      const [passageVectors, [questionVector]] = await Promise.all([batch, question]);
      expect(passageVectors).toHaveLength(documents.length);
      expect(questionVector).toHaveLength(384);
      return order;
    } finally {
      await model.close();
    }
  }

  it('answers the question before the batch finishes: questions have their own worker thread', async () => {
    expect(new OnnxEmbeddingModel({ modelDir: '', name: 'x' }).separateQueryPath).toBe(true);
    expect(await finishingOrder(true)).toEqual(['question', 'document batch']);
  });

  it('with queryThread off, the question waits for the batch in flight (the old single worker)', async () => {
    expect(new OnnxEmbeddingModel({ modelDir: '', name: 'x', queryThread: false }).separateQueryPath).toBe(
      false,
    );
    expect(await finishingOrder(false)).toEqual(['document batch', 'question']);
  });

  it('gives a question the same vector on either worker', async () => {
    const shared = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'm', queryThread: false });
    const own = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'm' });
    try {
      const text = 'How are insertions handled in batched rebuilding?';
      const [a] = await shared.embed([text], { inputType: 'query' });
      const [b] = await own.embed([text], { inputType: 'query' });
      const [c] = await own.embed([text]);
      expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.9999);
      expect(cosine(b as Float32Array, c as Float32Array)).toBeGreaterThan(0.9999);
    } finally {
      await Promise.all([shared.close(), own.close()]);
    }
  });

  it('runs background texts on nice-10 workers side by side, with the same vectors', async () => {
    const model = new OnnxEmbeddingModel({
      modelDir: defaultModelDir(),
      name: 'm',
      backgroundWorkers: 2,
      batchSize: 4,
      queryThread: false,
    });
    try {
      const texts = reference.items.map((item) => item.text);
      const foreground = await model.embed(texts);
      const before = nicesOfThisProcess();
      const background = await model.embed(texts, { background: true });
      for (const [index, vector] of background.entries()) {
        expect(cosine(vector, foreground[index] as Float32Array)).toBeGreaterThan(0.9999);
      }
      // Linux: the background workers' threads (and only they) were lowered to nice 10.
      if (process.platform === 'linux') {
        expect(before.filter((nice) => nice === 10)).toHaveLength(0);
        expect(nicesOfThisProcess().filter((nice) => nice === 10).length).toBeGreaterThanOrEqual(2);
      }
      expect(model.stageSeconds.inference).toBeGreaterThan(0);
      expect(model.stageSeconds.tokenize).toBeGreaterThan(0);
    } finally {
      await model.close();
    }
  });

  it('cuts a text at maxTokens when asked (record vectors), as if only its first tokens were given', async () => {
    const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'm', queryThread: false });
    try {
      const long = 'the cat sat on the mat while the dog slept near the door of the old house';
      const start = 'the cat sat on the mat';
      expect(model.countTokens(start)).toBe(6);
      const [whole] = await model.embed([long]);
      const [firstSix] = await model.embed([start]);
      const [asked] = await model.embed([long], { maxTokens: 6, background: true });
      expect(cosine(asked as Float32Array, firstSix as Float32Array)).toBeGreaterThan(0.9999);
      expect(cosine(asked as Float32Array, whole as Float32Array)).toBeLessThan(0.99);
    } finally {
      await model.close();
    }
  });

  it('runs the folder’s int8 file on the background workers, and the main file when it is absent', async () => {
    const texts = reference.items.map((item) => item.text);
    const prepared = existsSync(join(defaultModelDir(), 'model_qint8.onnx'));
    for (const backgroundModelFile of ['model_qint8.onnx', 'absent.onnx']) {
      const model = new OnnxEmbeddingModel({
        modelDir: defaultModelDir(),
        name: 'm',
        backgroundWorkers: 1,
        backgroundModelFile,
        queryThread: false,
      });
      try {
        const main = await model.embed(texts);
        const background = await model.embed(texts, { background: true });
        const withMain = background.map((vector, index) => cosine(vector, main[index] as Float32Array));
        if (backgroundModelFile === 'model_qint8.onnx' && prepared) {
          // Another file (int8 products), close to the fp32 reference on every sentence.
          expect(Math.min(...withMain)).toBeLessThan(0.9999);
          for (const [index, vector] of background.entries()) {
            expect(cosine(reference.items[index]?.embedding ?? [], vector)).toBeGreaterThanOrEqual(0.98);
          }
        } else {
          for (const value of withMain) expect(value).toBeGreaterThan(0.9999);
        }
      } finally {
        await model.close();
      }
    }
  });

  it('says what CUDA needs when ALEXANDRIA_EMBEDDING_DEVICE=cuda cannot start here', async () => {
    const model = new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'm', device: 'cuda' });
    try {
      const outcome = await model.embed(['a sentence']).then(
        () => 'embedded',
        (error: Error) => error.message,
      );
      // A machine with a GPU and onnxruntime-node's CUDA binaries embeds; this one has neither.
      if (outcome !== 'embedded') expect(outcome).toMatch(/ALEXANDRIA_EMBEDDING_DEVICE=cuda needs/);
    } finally {
      await model.close();
    }
  });
});

/** Nice value of every thread of this process (Linux; empty elsewhere). */
function nicesOfThisProcess(): number[] {
  if (process.platform !== 'linux') return [];
  return readdirSync('/proc/self/task').flatMap((task) => {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      // Fields after the command's closing parenthesis start at field 3; nice is field 19.
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return [];
    }
  });
}
