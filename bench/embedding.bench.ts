import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { defaultOnnxThreads, OnnxEmbeddingModel } from '../src/adapters/embeddings/onnx-embedding-model.js';
import { readOnnxModelFolder } from '../src/adapters/embeddings/onnx-model-folder.js';
import { loadConfig } from '../src/config/load-config.js';
import { WorkerPdfExtractor } from '../src/pdf/worker-pdf-extractor.js';
import { splitPassages } from '../src/services/question/passages.js';
import { defaultPassageSizes, QuestionRanker } from '../src/services/question/question-ranker.js';
import { type BenchReport, type BenchRow, percentile, ratioLine } from './lib/report.js';

const pdfs = join(import.meta.dirname, '..', '..', 'shared', 'data', 'pdfs');
/** A 23-page paper (the "20-page paper" of the goals) and the longest shared document. */
const twentyPagePaper = 'litqa_genome_biol_s13059-023-02935-8.pdf';
const longestPaper = 'okasaki_purely_functional_data_structures_thesis_1996.pdf';

const questions = [
  'What is the structural change caused by the A456V mutation?',
  'How was glucokinase activity measured in yeast?',
  'Which variants were hyperactive?',
  'How many missense variants were assayed?',
  'What was the correlation between replicates?',
  'Which regions of the protein are intolerant to substitution?',
  'How do the results compare with clinical classifications?',
  'What statistical model was used for the variant effect scores?',
  'Where does glucose bind?',
  'What limitations do the authors mention?',
];

/**
 * Embedding throughput of our native path (onnxruntime-node in a worker thread, tokenizers.js, own
 * pooling) against ONNX Runtime's own Python package on the same model file, passages, threads and
 * batch size; time to embed a 20-page paper (and, in full runs, the longest shared document); and
 * question latency, warm (vectors cached) and cold (parse + embed + rank).
 */
export async function embeddingBench(options: { quick: boolean }): Promise<BenchReport> {
  const loadAtStart = loadavg()[0] ?? 0;
  const config = loadConfig();
  const threads = config.embedding.threads || defaultOnnxThreads();
  const batchSize = config.embedding.batchSize;
  const folder = readOnnxModelFolder(config.embedding.modelDir, { modelFile: config.embedding.modelFile });
  const model = new OnnxEmbeddingModel({
    modelDir: config.embedding.modelDir,
    modelFile: config.embedding.modelFile,
    name: config.embedding.model,
    threads,
    batchSize,
  });
  const extractor = new WorkerPdfExtractor({
    threads: 1,
    timeoutMs: 600_000,
    memoryMb: config.pdf.memoryMb,
    maxPages: 1000,
    maxBytes: 100 << 20,
    figurePixels: config.pdf.figureMegapixels * 1_000_000,
  });
  const rows: BenchRow[] = [];
  const summary: string[] = [];
  try {
    const sizes = { ...defaultPassageSizes, maxTokens: model.maxTokens };
    const paperBytes = readFileSync(join(pdfs, twentyPagePaper));
    const parseStarted = performance.now();
    const paper = await extractor.extract(paperBytes.slice());
    const parseSeconds = (performance.now() - parseStarted) / 1000;
    const chunks = paper.chunks.map((chunk) => chunk.text);
    const passages = splitPassages(chunks, sizes, (text) => model.countTokens(text)).map(
      (passage) => passage.text,
    );

    // 1. Throughput, same passages both sides; rounds interleaved so drift on a shared box hits both.
    const sample = passages.slice(0, options.quick ? 64 : 160);
    await model.embed(sample.slice(0, batchSize)); // worker start + session load, not timed
    const python = pythonBaseline();
    let native = 0;
    let baseline: number | undefined;
    for (let round = 0; round < (options.quick ? 1 : 2); round += 1) {
      const started = performance.now();
      await model.embed(sample);
      native = Math.max(native, sample.length / ((performance.now() - started) / 1000));
      if (python) {
        const result = python.run({
          model: folder.modelPath,
          tokenizer: join(folder.dir, 'tokenizer.json'),
          texts: sample,
          batchSize,
          threads,
          maxSequence: folder.maxSequence,
          repeats: 1,
        });
        baseline = Math.max(baseline ?? 0, result.passagesPerSecond);
      }
    }
    const setting = `${sample.length} passages (≤ ${sizes.targetTokens} tokens), batch ${batchSize}, ${threads} threads`;
    rows.push({ subject: 'native onnxruntime-node (worker)', metrics: { 'passages/s': native, setting } });
    rows.push({
      subject: `onnxruntime ${python?.version ?? '(Python)'} same model`,
      metrics: { 'passages/s': baseline ?? 'unavailable', setting },
    });
    if (baseline) summary.push(ratioLine('throughput native / Python onnxruntime', native / baseline, 1.0));
    else summary.push(`Python baseline unavailable: ${pythonProblem()}`);

    // 2. A 20-page paper's passages, embedded from scratch (what the first question costs after parsing).
    const coldRanker = new QuestionRanker({ model });
    const embedStarted = performance.now();
    await coldRanker.rank({ documentKey: 'bench:paper', chunks, question: questions[0] as string });
    const embedSeconds = (performance.now() - embedStarted) / 1000;
    rows.push({
      subject: `embed ${twentyPagePaper.slice(0, 24)}… (${paper.pageCount} pages)`,
      metrics: {
        passages: passages.length,
        seconds: embedSeconds,
        's per 20 pages': (embedSeconds * 20) / paper.pageCount,
      },
    });
    summary.push(
      `${paper.pageCount}-page paper (dense: ${(passages.length / paper.pageCount).toFixed(1)} passages a page): ${passages.length} passages embedded in ${embedSeconds.toFixed(1)} s = ${((embedSeconds * 20) / paper.pageCount).toFixed(1)} s per 20 pages (≤ 10 s: ${(embedSeconds * 20) / paper.pageCount <= 10 ? 'yes' : 'no'})`,
    );
    if (!options.quick) {
      const longest = await extractor.extract(readFileSync(join(pdfs, longestPaper)), { images: false });
      const longChunks = longest.chunks.map((chunk) => chunk.text);
      const started = performance.now();
      await new QuestionRanker({ model }).rank({
        documentKey: 'bench:longest',
        chunks: longChunks,
        question: 'What is a queue?',
      });
      const seconds = (performance.now() - started) / 1000;
      rows.push({
        subject: `embed ${longestPaper.slice(0, 24)}… (${longest.pageCount} pages)`,
        metrics: {
          passages: splitPassages(longChunks, sizes, (text) => model.countTokens(text)).length,
          seconds,
          's per 20 pages': (seconds * 20) / longest.pageCount,
        },
      });
      const per20 = (seconds * 20) / longest.pageCount;
      summary.push(
        `the longest shared paper (${longest.pageCount} pages, the issue's measure): ${seconds.toFixed(1)} s = ${per20.toFixed(1)} s per 20 pages (goal ≤ 10 s: ${per20 <= 10 ? 'met' : 'NOT met'})`,
      );
    }

    // 3. Warm questions: the document's vectors are cached; each costs one question embedding + scoring.
    const latencies: number[] = [];
    const rounds = options.quick ? 30 : 100;
    for (let index = 0; index < rounds; index += 1) {
      const started = performance.now();
      await coldRanker.rank({
        documentKey: 'bench:paper',
        chunks,
        question: `${questions[index % questions.length]} (${index})`,
        topK: 3,
      });
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const warmP95 = percentile(latencies, 0.95);
    rows.push({
      subject: `warm question (${rounds}×, top 3)`,
      metrics: { 'p50 ms': percentile(latencies, 0.5), 'p95 ms': warmP95 },
    });
    summary.push(
      `warm question p95 ${warmP95.toFixed(1)} ms (goal ≤ 50 ms: ${warmP95 <= 50 ? 'met' : 'NOT met'})`,
    );

    // 4. Cold question: parse (pdf.js, with figures) + cut + embed + rank, nothing cached but the model.
    const coldStarted = performance.now();
    // A fresh copy: the extractor may hand the first buffer to its worker.
    const reparsed = await extractor.extract(readFileSync(join(pdfs, twentyPagePaper)));
    await new QuestionRanker({ model }).rank({
      documentKey: 'bench:cold',
      chunks: reparsed.chunks.map((chunk) => chunk.text),
      question: questions[1] as string,
    });
    const coldSeconds = (performance.now() - coldStarted) / 1000;
    rows.push({
      subject: `cold question (${paper.pageCount} pages)`,
      metrics: { seconds: coldSeconds, 'parse s (1st run)': parseSeconds, 'embed s': embedSeconds },
    });
    summary.push(
      `cold ${paper.pageCount}-page question (parse + embed + rank) ${coldSeconds.toFixed(1)} s (goal ≤ 10 s for 20 pages: ${(coldSeconds * 20) / paper.pageCount <= 10 ? 'met' : 'NOT met'})`,
    );
    summary.push(
      `machine shared with other jobs: 1-min load average ${loadAtStart.toFixed(1)} at start, ${(loadavg()[0] ?? 0).toFixed(1)} at end (${threads} ONNX thread${threads === 1 ? '' : 's'}); timings are noisy`,
    );
    return { name: 'Embeddings and questions to a PDF (all-MiniLM-L6-v2, int8 ONNX)', rows, summary };
  } finally {
    await extractor.close();
    await model.close();
  }
}

function pythonTools(): string {
  const root =
    process.env.ALEXANDRIA_PYTHON_TOOLS ??
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'alexandria', 'python-tools');
  return join(root, 'bin', 'python');
}

function pythonProblem(): string {
  return existsSync(pythonTools())
    ? `${pythonTools()} cannot import onnxruntime/tokenizers/numpy`
    : `no ${pythonTools()}; run \`sh scripts/setup-python-tools.sh\` once (pip install onnxruntime==1.30.0 into a venv)`;
}

/** The Python side, or undefined when its venv is missing or broken. */
function pythonBaseline():
  | { version: string; run(job: Record<string, unknown>): { passagesPerSecond: number; version: string } }
  | undefined {
  const python = pythonTools();
  if (!existsSync(python)) return undefined;
  const probe = spawnSync(
    python,
    ['-c', 'import onnxruntime, tokenizers, numpy; print(onnxruntime.__version__)'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.status !== 0) return undefined;
  const script = join(import.meta.dirname, 'lib', 'ort-python-baseline.py');
  return {
    version: probe.stdout.trim(),
    run(job) {
      const result = spawnSync(python, [script], {
        input: JSON.stringify(job),
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      if (result.status !== 0) throw new Error(`Python baseline failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as { passagesPerSecond: number; version: string };
    },
  };
}
