import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../domain/errors.js';
import type { Pooling } from './pooling.js';

/** What a sentence-encoder folder says about itself (Hub / sentence-transformers layout). */
export interface OnnxModelFolder {
  dir: string;
  /** Absolute path of the ONNX file. */
  modelPath: string;
  tokenizerJson: object;
  tokenizerConfig: object;
  pooling: Pooling;
  /** Longest input in ids including special tokens. */
  maxSequence: number;
  /** Vector length from config.json / 1_Pooling, when the folder says. */
  dimensions: number | undefined;
}

export interface OnnxModelFolderOverrides {
  modelFile?: string | undefined;
  pooling?: Pooling | undefined;
  maxSequence?: number | undefined;
}

const candidateFiles = ['model.onnx', 'onnx/model.onnx', 'onnx/model_quantized.onnx'];

/**
 * Reads the folder's small JSON files (synchronously: once, on first use of the model, never at
 * import). Pooling comes from `1_Pooling/config.json` (mean when absent), the length limit from
 * `sentence_bert_config.json` `max_seq_length` (else 512, capped by `max_position_embeddings`).
 * Throws AppError `internal` naming the setup command when the model is not there.
 */
export function readOnnxModelFolder(dir: string, overrides: OnnxModelFolderOverrides = {}): OnnxModelFolder {
  const modelFile = overrides.modelFile ?? candidateFiles.find((file) => existsSync(join(dir, file)));
  const modelPath = modelFile ? join(dir, modelFile) : undefined;
  if (!modelPath || !existsSync(modelPath) || !existsSync(join(dir, 'tokenizer.json'))) {
    throw new AppError(
      'internal',
      `The embedding model is missing: ${dir} must hold ${modelFile ?? 'model.onnx'} and tokenizer.json. ` +
        'Run `node scripts/setup-model.mjs` once (npm test and npm start do), or set ALEXANDRIA_EMBEDDING_MODEL_DIR.',
    );
  }
  const json = (file: string): Record<string, unknown> | undefined => {
    const path = join(dir, file);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : undefined;
  };
  const config = json('config.json') ?? {};
  const poolingConfig = json('1_Pooling/config.json');
  const positions = numberOf(config.max_position_embeddings) ?? 512;
  const maxSequence = Math.min(
    overrides.maxSequence ?? numberOf(json('sentence_bert_config.json')?.max_seq_length) ?? 512,
    positions,
  );
  return {
    dir,
    modelPath,
    tokenizerJson: json('tokenizer.json') as object,
    tokenizerConfig: json('tokenizer_config.json') ?? {},
    pooling: overrides.pooling ?? poolingOf(poolingConfig),
    maxSequence,
    dimensions: numberOf(poolingConfig?.word_embedding_dimension) ?? numberOf(config.hidden_size),
  };
}

function poolingOf(config: Record<string, unknown> | undefined): Pooling {
  if (config?.pooling_mode_cls_token === true) return 'cls';
  if (config?.pooling_mode_max_tokens === true) return 'max';
  return 'mean';
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
