// Loading a GGUF model into llama.cpp: the native binding, the model, its context, two chat sequences.
import type { Llama, LlamaChat, LlamaContext, LlamaModel } from 'node-llama-cpp';

/** What loading the model needs (part of `LlamaCppChatModelOptions`). */
export interface LlamaCppLoadOptions {
  /** A GGUF file (any instruction-tuned model with a chat template). */
  modelPath: string;
  /** llama.cpp compute threads (the chat share of ALEXANDRIA_CPU_THREADS). */
  threads: number;
  /** Context window in tokens; capped at the model's own. */
  contextTokens: number;
  /** llama.cpp's warnings and errors. */
  onLog?: (level: 'warn' | 'error', message: string) => void;
}

/**
 * Models smaller than this compute with one thread: their matrices are so small that llama.cpp's
 * threads spend more time waiting for each other than computing (SmolLM2-135M generated 13× slower
 * with 2 threads than with 1 on a busy 2-core machine; docs/decisions/0035-local-chat-model.md).
 */
const smallModelBytes = 300 * 1024 * 1024;

/** A loaded model: the binding, the model, one context and its two chat sequences. */
export interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  chat: LlamaChat;
  /** A second sequence for `isolated` turns, so the conversation's evaluated prefix stays in `chat`. */
  aside: LlamaChat;
}

export async function loadModel(options: LlamaCppLoadOptions): Promise<Loaded> {
  // Imported here so that a service without the local provider never loads the native binding.
  const { getLlama, LlamaChat, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({
    // The CPU prebuilt binary only (the GPU ones are not installed); never build or download.
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    progressLogs: false,
    maxThreads: options.threads,
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const text = message.trim();
      if (!text) return;
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) options.onLog?.('error', text);
      else if (level === LlamaLogLevel.warn) options.onLog?.('warn', text);
    },
  });
  try {
    const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    const trained = model.trainContextSize;
    const threads = model.size < smallModelBytes ? 1 : options.threads;
    const context = await model.createContext({
      contextSize: Math.min(options.contextTokens, trained > 0 ? trained : options.contextTokens),
      sequences: 2,
      threads: { ideal: threads, min: threads },
    });
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    const aside = new LlamaChat({ contextSequence: context.getSequence() });
    return { llama, model, context, chat, aside };
  } catch (error) {
    await llama.dispose().catch(() => undefined);
    throw error;
  }
}
