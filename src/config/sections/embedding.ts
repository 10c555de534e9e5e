import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { booleanText, envVar, nonNegativeInt, optionalText, positiveInt, urlText } from '../env-var.js';

/**
 * The default model folder: `${XDG_CACHE_HOME:-~/.cache}/alexandria/models/all-MiniLM-L6-v2`, the place
 * `scripts/setup-model.mjs` fills. Read here because src/config is the only reader of the environment.
 */
export function defaultModelDir(environment: Record<string, string | undefined> = process.env): string {
  const cacheHome = environment.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(cacheHome, 'alexandria', 'models', 'all-MiniLM-L6-v2');
}

/**
 * The sentence encoder used to answer questions to PDFs (passages embedded once per document). The
 * default is local: all-MiniLM-L6-v2 on ONNX Runtime in-process, fetched once by
 * `node scripts/setup-model.mjs` (which `npm test` and `npm start` run first).
 */
export const embeddingSection = {
  provider: envVar('ALEXANDRIA_EMBEDDING_PROVIDER', z.enum(['onnx', 'openai']), {
    default: 'onnx',
    description:
      'Where passages are embedded: onnx (local ONNX Runtime, in-process) or openai (any OpenAI-compatible /embeddings API).',
  }),
  modelDir: envVar(
    'ALEXANDRIA_EMBEDDING_MODEL_DIR',
    z
      .string()
      .trim()
      .optional()
      .transform((value) => (value ? value : defaultModelDir())),
    {
      description:
        'Folder of the ONNX sentence encoder (model.onnx or onnx/model.onnx, tokenizer.json, tokenizer_config.json; config.json and 1_Pooling/config.json when present). Default: $XDG_CACHE_HOME/alexandria/models/all-MiniLM-L6-v2 (XDG_CACHE_HOME defaults to ~/.cache), filled by node scripts/setup-model.mjs.',
    },
  ),
  modelFile: envVar('ALEXANDRIA_EMBEDDING_MODEL_FILE', optionalText, {
    description:
      'ONNX file inside the model folder (e.g. onnx/model_quantized.onnx). Default: the first of model.onnx, onnx/model.onnx, onnx/model_quantized.onnx.',
  }),
  model: envVar('ALEXANDRIA_EMBEDDING_MODEL', z.string().trim().min(1).max(200), {
    default: 'all-MiniLM-L6-v2',
    description:
      'Model name: the id stored vectors are keyed by (onnx), or the model requested from the API (openai). Change it when you change the model.',
  }),
  pooling: envVar('ALEXANDRIA_EMBEDDING_POOLING', z.enum(['mean', 'cls', 'max']).optional(), {
    description:
      'Pooling of token vectors (onnx). Default: from the folder 1_Pooling/config.json, else mean (MiniLM/mpnet use mean, BGE uses cls).',
  }),
  maxTokens: envVar('ALEXANDRIA_EMBEDDING_MAX_TOKENS', positiveInt.optional(), {
    description:
      'Longest input in word pieces including special tokens; longer text is truncated. Default: max_seq_length of sentence_bert_config.json (256 for MiniLM), else 512 (onnx); 8191 (openai).',
  }),
  queryPrefix: envVar('ALEXANDRIA_EMBEDDING_QUERY_PREFIX', z.string().optional(), {
    description:
      'Text put before every question before embedding, for models trained with instructions (e5: "query: ", BGE: "Represent this sentence for searching relevant passages: ").',
  }),
  documentPrefix: envVar('ALEXANDRIA_EMBEDDING_DOCUMENT_PREFIX', z.string().optional(), {
    description: 'Text put before every passage before embedding (e5: "passage: ").',
  }),
  threads: envVar('ALEXANDRIA_EMBEDDING_THREADS', nonNegativeInt, {
    default: '0',
    description:
      'ONNX Runtime intra-op threads of the embedding worker thread; 0 = its share of ALEXANDRIA_CPU_THREADS (half of them, at least 1; a quarter beside a local chat model).',
  }),
  backgroundWorkers: envVar('ALEXANDRIA_EMBEDDING_BACKGROUND_WORKERS', nonNegativeInt, {
    default: '0',
    description:
      "ONNX worker threads that compute the index's record vectors side by side, each with one intra-op thread at a low CPU priority (ALEXANDRIA_EMBEDDING_BACKGROUND_NICE), so requests take the cores first; each holds its own session (~200 MB while it runs, released after 15 idle minutes). 0 = one per thread of ALEXANDRIA_CPU_THREADS.",
  }),
  backgroundNice: envVar('ALEXANDRIA_EMBEDDING_BACKGROUND_NICE', z.coerce.number().int().min(0).max(19), {
    default: '10',
    description:
      "Nice value (0–19, Linux) of the background embedding workers' threads: requests run at 0 and take the cores first. 10 leaves the walk about a tenth of a busy core, so it still drains on a server that is never idle; 19 gives it almost nothing then (measured: a test that embedded in the background on a loaded machine waited past 60 s).",
  }),
  backgroundModelFile: envVar('ALEXANDRIA_EMBEDDING_BACKGROUND_MODEL_FILE', z.string().trim(), {
    default: 'model_qint8.onnx',
    description:
      "ONNX file in the model folder that the background workers (the index's record vectors) run, when it is there: `node scripts/setup-model.mjs` prepares model_qint8.onnx, the model with int8 matrix products (~1.9× faster on a CPU; decision 0062). Questions, passages and search queries keep ALEXANDRIA_EMBEDDING_MODEL_FILE. Empty or absent from the folder: the background workers run that one too.",
  }),
  device: envVar('ALEXANDRIA_EMBEDDING_DEVICE', z.enum(['cpu', 'cuda']), {
    default: 'cpu',
    description:
      "Where ONNX Runtime computes embeddings: cpu, or cuda (ONNX Runtime's CUDA provider: a GPU, CUDA 12 libraries and onnxruntime-node installed with its CUDA binaries, i.e. without ONNXRUNTIME_NODE_INSTALL_CUDA=skip). The way to embed a large corpus: run a worker (alexandria worker) with it on a GPU machine.",
  }),
  queryThread: envVar('ALEXANDRIA_EMBEDDING_QUERY_THREAD', booleanText, {
    default: 'true',
    description:
      "Embed questions on a second ONNX worker thread (its own session, 1 intra-op thread; measured ~200 MB more resident memory while it runs, released after 15 idle minutes), so a question's vector never waits behind a document batch that is being embedded (onnx). Off: one worker for both, and a question waits for the batch in flight.",
  }),
  batchSize: envVar('ALEXANDRIA_EMBEDDING_BATCH_SIZE', positiveInt, {
    default: '16',
    description:
      'Texts per model call (onnx: per ONNX Runtime run, sorted by length to limit padding; openai: inputs per request).',
  }),
  url: envVar('ALEXANDRIA_EMBEDDING_URL', urlText.optional(), {
    description:
      'Base URL of an OpenAI-compatible embeddings API (…/v1): OpenAI, vLLM, Ollama (http://localhost:11434/v1), TEI. Required with ALEXANDRIA_EMBEDDING_PROVIDER=openai.',
  }),
  apiKey: envVar('ALEXANDRIA_EMBEDDING_API_KEY', optionalText, {
    secret: true,
    description: 'API key of the embeddings API (local servers accept none).',
  }),
  dimensions: envVar('ALEXANDRIA_EMBEDDING_DIMENSIONS', positiveInt.optional(), {
    description:
      'Vector length to request from the embeddings API (sent as `dimensions`, for models that can shorten vectors). Default: the model’s own.',
  }),
  timeoutMs: envVar('ALEXANDRIA_EMBEDDING_TIMEOUT_MS', positiveInt, {
    default: '30000',
    description: 'Deadline of one call to the embeddings API, in milliseconds.',
  }),
  maxRetries: envVar('ALEXANDRIA_EMBEDDING_MAX_RETRIES', nonNegativeInt, {
    default: '2',
    description: 'Retries of a failed embeddings API call (429 with Retry-After, 5xx, connection errors).',
  }),
};
