import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import type { Config } from '../../src/config/load-config.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import type { EmbeddingModel, EmbedOptions } from '../../src/ports/embedding-model.js';

/**
 * Wraps a model so every distinct text is embedded once per machine: vectors are kept by the text's
 * sha256 (and the input type) in a file under `.eval/`. Evaluations re-rank the same passages under
 * many settings (fusion weights, several documents sharing abstracts); the model is the slow part.
 * Counts what it embedded and what it found.
 */
export class MemoEmbeddingModel implements EmbeddingModel {
  private readonly vectors = new Map<string, Float32Array>();
  embedded = 0;
  reused = 0;

  constructor(
    private readonly inner: EmbeddingModel,
    private readonly file: string,
  ) {
    if (existsSync(file)) this.read();
  }

  get id(): string {
    return this.inner.id;
  }
  get dimensions(): number {
    return this.inner.dimensions;
  }
  get maxTokens(): number {
    return this.inner.maxTokens;
  }
  countTokens(text: string): number {
    return this.inner.countTokens(text);
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const keys = texts.map((text) => this.key(text, options.inputType));
    const missing = [...new Set(keys.filter((key) => !this.vectors.has(key)))];
    if (missing.length > 0) {
      const byKey = new Map(keys.map((key, index) => [key, texts[index] as string]));
      const fresh = await this.inner.embed(
        missing.map((key) => byKey.get(key) as string),
        options,
      );
      missing.forEach((key, index) => {
        this.vectors.set(key, fresh[index] as Float32Array);
      });
      this.embedded += missing.length;
    }
    this.reused += keys.length - missing.length;
    return keys.map((key) => this.vectors.get(key) as Float32Array);
  }

  /** Writes the vectors file (call once at the end of a run). */
  save(): void {
    const entries = [...this.vectors.entries()];
    const dimensions = entries[0]?.[1].length ?? 0;
    const bytes = Buffer.alloc(8 + entries.length * (32 + dimensions * 4));
    bytes.writeUInt32LE(entries.length, 0);
    bytes.writeUInt32LE(dimensions, 4);
    entries.forEach(([key, vector], index) => {
      const offset = 8 + index * (32 + dimensions * 4);
      bytes.write(key, offset, 32, 'hex');
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(bytes, offset + 32);
    });
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, bytes);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private key(text: string, inputType: EmbedOptions['inputType']): string {
    return createHash('sha256')
      .update(`${inputType ?? 'document'}\u0000${text}`)
      .digest('hex');
  }

  private read(): void {
    const bytes = readFileSync(this.file);
    const count = bytes.readUInt32LE(0);
    const dimensions = bytes.readUInt32LE(4);
    for (let index = 0; index < count; index += 1) {
      const offset = 8 + index * (32 + dimensions * 4);
      const key = bytes.toString('hex', offset, offset + 32);
      const floats = new Float32Array(dimensions);
      Buffer.from(floats.buffer).set(bytes.subarray(offset + 32, offset + 32 + dimensions * 4));
      this.vectors.set(key, floats);
    }
  }
}

/**
 * The configured ONNX model (ALEXANDRIA_EMBEDDING_*), memoised in `.eval/embeddings/<prefix><model
 * id>.bin`: what every evaluation that embeds starts from.
 */
export function memoizedEmbeddingModel(
  config: Config,
  prefix = '',
  options: { maxSequence?: number; modelFile?: string } = {},
): MemoEmbeddingModel {
  const onnx = new OnnxEmbeddingModel({
    modelDir: config.embedding.modelDir,
    name: config.embedding.model,
    ...(options.modelFile === undefined ? {} : { modelFile: options.modelFile }),
    ...(options.maxSequence === undefined ? {} : { maxSequence: options.maxSequence }),
  });
  return new MemoEmbeddingModel(
    onnx,
    join('.eval', 'embeddings', `${prefix}${onnx.id.replace(/\W+/g, '_')}.bin`),
  );
}

/** The PDF extractor as the service configures it, one thread, text only (no figures). */
export function textOnlyExtractor(config: Config): WorkerPdfExtractor {
  return new WorkerPdfExtractor({
    threads: 1,
    timeoutMs: config.pdf.timeoutMs,
    memoryMb: config.pdf.memoryMb,
    maxPages: config.pdf.maxPages,
    maxBytes: config.pdf.maxMb * 1024 * 1024,
    figurePixels: 0,
  });
}
