// The worker thread of OnnxEmbeddingModel: owns the ONNX Runtime session and the tokenizer, and turns
// one batch of texts into unit vectors. ORT's run() does its CPU work on the calling thread's event
// loop in onnxruntime-node (measured: a 16-passage batch stalled the loop for its whole duration), so
// the session lives here and the service's event loop stays free.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import * as ort from 'onnxruntime-node';
import { workerData } from 'piscina';
import type { OnnxModelFolder } from './onnx-model-folder.js';
import { poolTokens } from './pooling.js';
import { TokenEncoder } from './token-encoder.js';

export interface OnnxWorkerData {
  folder: OnnxModelFolder;
  threads: number;
  /** Where ONNX Runtime computes: the CPU, or CUDA (ONNX Runtime's CUDA provider). */
  device: 'cpu' | 'cuda';
  /**
   * Nice value of this thread (background work: 10 unless configured), set before the session
   * opens; absent: the process's own. With one intra-op thread ONNX Runtime computes on this thread.
   */
  nice?: number;
}

export interface EmbedBatchTask {
  texts: string[];
  /** Text tokens kept of each text, if fewer than the model's own (`EmbedOptions.maxTokens`). */
  maxTokens?: number;
}

export interface EmbedBatchResult {
  /** `texts.length × dimensions` floats, row-major, each row a unit vector. */
  vectors: Float32Array;
  dimensions: number;
  /** Where the batch's time went, in ms: tokenising, ONNX Runtime's run, pooling. */
  stages: { tokenize: number; inference: number; pooling: number };
}

const { folder, threads, device, nice } = workerData as OnnxWorkerData;
if (nice !== undefined) lowerThreadPriority(nice);
const encoder = new TokenEncoder(folder.tokenizerJson, folder.tokenizerConfig, folder.maxSequence);
let session: Promise<ort.InferenceSession> | undefined;

function openSession(): Promise<ort.InferenceSession> {
  session ??= ort.InferenceSession.create(folder.modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    executionProviders: device === 'cuda' ? ['cuda'] : ['cpu'],
  });
  return session;
}

/**
 * Lowers this thread's scheduling priority (Linux: a thread is a task with its own nice value,
 * found through /proc/thread-self). Elsewhere the thread keeps the process's priority.
 */
function lowerThreadPriority(value: number): void {
  let task: number;
  try {
    task = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return;
  }
  if (Number.isInteger(task) && task > 0) setPriority(task, value);
}

/** Tensor of `rows` padded with zeros to `width`, in the element type the model declares. */
function tensor(model: ort.InferenceSession, name: string, rows: number[][], width: number): ort.Tensor {
  const metadata = model.inputMetadata.find((input) => input.name === name);
  const int32 = metadata?.isTensor === true && metadata.type === 'int32';
  const data = int32 ? new Int32Array(rows.length * width) : new BigInt64Array(rows.length * width);
  rows.forEach((row, index) => {
    row.forEach((value, column) => {
      data[index * width + column] = (int32 ? value : BigInt(value)) as never;
    });
  });
  return new ort.Tensor(int32 ? 'int32' : 'int64', data, [rows.length, width]);
}

export default async function embedBatch(task: EmbedBatchTask): Promise<EmbedBatchResult> {
  const model = await openSession();
  // No texts: a warm-up, which only opens the session.
  if (task.texts.length === 0) {
    return { vectors: new Float32Array(0), dimensions: 0, stages: { tokenize: 0, inference: 0, pooling: 0 } };
  }
  const started = performance.now();
  const ids = task.texts.map((text) => encoder.encode(text, task.maxTokens));
  const width = Math.max(1, ...ids.map((row) => row.length));
  const ones = ids.map((row) => row.map(() => 1));
  const zeros = ids.map((row) => row.map(() => 0));
  const byName: Record<string, number[][]> = { input_ids: ids, attention_mask: ones, token_type_ids: zeros };
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of model.inputNames) {
    const rows = byName[name];
    if (!rows) throw new Error(`The embedding model wants an input we cannot fill: ${name}`);
    feeds[name] = tensor(model, name, rows, width);
  }
  const outputName =
    ['last_hidden_state', 'token_embeddings', 'sentence_embedding'].find((name) =>
      model.outputNames.includes(name),
    ) ?? (model.outputNames[0] as string);
  const tokenized = performance.now();
  const output = (await model.run(feeds, [outputName]))[outputName] as ort.Tensor;
  const inferred = performance.now();
  const hidden = output.data as Float32Array;
  const size = output.dims[output.dims.length - 1] as number;
  // A rank-2 output is already one vector per text: pool as "cls" over a sequence of one.
  const pooled =
    output.dims.length === 2
      ? poolTokens(
          hidden,
          ids.map(() => 1),
          1,
          size,
          'cls',
        )
      : poolTokens(
          hidden,
          ids.map((row) => row.length),
          width,
          size,
          folder.pooling,
        );
  const vectors = new Float32Array(pooled.length * size);
  pooled.forEach((vector, index) => {
    vectors.set(vector, index * size);
  });
  const stages = {
    tokenize: tokenized - started,
    inference: inferred - tokenized,
    pooling: performance.now() - inferred,
  };
  // Structured clone copies the floats back (a 16-passage batch is 24 KB): cheaper than the bookkeeping of a transfer.
  return { vectors, dimensions: size, stages };
}
