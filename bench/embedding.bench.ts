import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { defaultOnnxThreads, OnnxEmbeddingModel } from '../src/adapters/embeddings/onnx-embedding-model.js';
import { readOnnxModelFolder } from '../src/adapters/embeddings/onnx-model-folder.js';
import { loadConfig } from '../src/config/load-config.js';
import { WorkerPdfExtractor } from '../src/pdf/worker-pdf-extractor.js';
import { percentile } from '../src/platform/percentile.js';
import { splitPassages } from '../src/services/question/passages.js';
import { defaultPassageSizes } from '../src/services/question/prepared-documents.js';
import {
  defaultFirstQuestionCandidates,
  defaultFirstQuestionSpread,
  QuestionRanker,
  type RankTimings,
} from '../src/services/question/question-ranker.js';
import { type BenchReport, type BenchRow, ratioLine } from './lib/report.js';

const pdfs = join(import.meta.dirname, '..', '..', 'shared', 'data', 'pdfs');
/** A 23-page paper (the "20-page paper" of the goals) and the longest shared document. */
const twentyPagePaper = 'litqa_genome_biol_s13059-023-02935-8.pdf';
const longestPaper = 'okasaki_purely_functional_data_structures_thesis_1996.pdf';
/** Tenant B's small paper, asked while tenant A's thesis embeds. */
const otherTenantPaper = 'immunology_editorial_imm13445.pdf';
const otherTenantQuestions = [
  'How strong was the T-cell response to vaccination in patients with solid tumours?',
  'What was the antibody response after the second dose?',
  'Which patients responded poorly to the vaccine?',
  'What do the authors recommend for cancer patients?',
];

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
    await coldRanker.prepare('bench:paper', chunks);
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
    const longest = await extractor.extract(readFileSync(join(pdfs, longestPaper)), { images: false });
    const longChunks = longest.chunks.map((chunk) => chunk.text);
    if (!options.quick) {
      const started = performance.now();
      await new QuestionRanker({ model }).prepare('bench:longest', longChunks);
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

    // 4. First question on a PDF whose vectors are not built yet (issue 14): parse (with figures),
    //    then cut + BM25, BM25's candidate passages and the question embedded, rank; the rest of the
    //    document's vectors are built behind it. Nothing cached but the model (its workers are warm).
    const coldStarted = performance.now();
    // A fresh copy: the extractor may hand the first buffer to its worker.
    const reparsed = await extractor.extract(readFileSync(join(pdfs, twentyPagePaper)));
    const parseMs = performance.now() - coldStarted;
    const firstRanker = new QuestionRanker({ model });
    const reparsedChunks = reparsed.chunks.map((chunk) => chunk.text);
    let timings: RankTimings | undefined;
    const askedAt = performance.now();
    await firstRanker.rank({
      documentKey: 'bench:cold',
      chunks: reparsedChunks,
      question: questions[1] as string,
      onTimings: (value) => {
        timings = value;
      },
    });
    const questionMs = performance.now() - askedAt;
    await firstRanker.prepare('bench:cold', reparsedChunks);
    const backgroundMs = performance.now() - askedAt;
    const split = timings ?? { path: '?', prepareMs: 0, embedMs: 0, rankMs: 0, passagesEmbedded: 0 };
    rows.push({
      subject: `first question, vectors not built (${reparsed.pageCount} pages, ${passages.length} passages)`,
      metrics: {
        'question s': questionMs / 1000,
        'parse s': parseMs / 1000,
        'parse s (1st run)': parseSeconds,
        'cut+BM25 s': split.prepareMs / 1000,
        'embed s': split.embedMs / 1000,
        'rank ms': split.rankMs,
        'passages embedded': split.passagesEmbedded,
        'all vectors s': backgroundMs / 1000,
        setting: `path ${split.path}, ${defaultFirstQuestionCandidates} BM25 candidates + ${defaultFirstQuestionSpread} spread + the question`,
      },
    });
    summary.push(
      `first question on a ${reparsed.pageCount}-page PDF whose vectors are not built yet: ${(questionMs / 1000).toFixed(2)} s = cut+BM25 ${(split.prepareMs / 1000).toFixed(2)} s + embed ${(split.embedMs / 1000).toFixed(2)} s (${split.passagesEmbedded} of ${passages.length} passages + the question) + rank ${split.rankMs.toFixed(1)} ms (goal ≤ 5 s: ${questionMs <= 5000 && split.path === 'first' ? 'met' : 'NOT met'}); with the parse before it (${(parseMs / 1000).toFixed(2)} s) ${((parseMs + questionMs) / 1000).toFixed(2)} s; every vector built ${(backgroundMs / 1000).toFixed(1)} s after the question (was the first question's wait: embed ${embedSeconds.toFixed(1)} s above)`,
    );
    // 5. Issue 13: tenant B's warm question while tenant A's 162-page thesis embeds, on one worker
    //    thread (before: B's vector waits for A's batch in flight) and with the query worker thread.
    const editorial = await extractor.extract(readFileSync(join(pdfs, otherTenantPaper)), { images: false });
    const stall = await tenantStall({
      quick: options.quick,
      newModel: (queryThread) =>
        new OnnxEmbeddingModel({
          modelDir: config.embedding.modelDir,
          modelFile: config.embedding.modelFile,
          name: config.embedding.model,
          threads,
          batchSize,
          queryThread,
        }),
      tenantA: longChunks,
      tenantB: editorial.chunks.map((chunk) => chunk.text),
      sliceSize: batchSize,
    });
    const label = (queryThread: boolean) => (queryThread ? 'query thread (after)' : 'one worker (before)');
    for (const side of stall) {
      rows.push({
        subject: `B's warm question, idle — ${label(side.queryThread)}`,
        metrics: { 'p50 ms': side.idle.p50, 'p95 ms': side.idle.p95 },
      });
      rows.push({
        subject: `B's warm question while A's ${longest.pageCount}-page document embeds — ${label(side.queryThread)}`,
        metrics: {
          'p50 ms': side.busy.p50,
          'p95 ms': side.busy.p95,
          'p95 / idle p95': side.busy.p95 / side.idle.p95,
          setting: `${side.busy.count} questions, A still embedding: ${side.aStillEmbedding ? 'yes' : 'NO'}`,
        },
      });
    }
    const [before, after] = stall as [StallSide, StallSide];
    summary.push(
      `tenant B's warm question while tenant A's ${longest.pageCount}-page document embeds (issue 13 measured 14 ms idle → 900 ms before the fair queue): one worker p95 ${before.busy.p95.toFixed(0)} ms (idle ${before.idle.p95.toFixed(0)} ms), query thread p95 ${after.busy.p95.toFixed(0)} ms (idle ${after.idle.p95.toFixed(0)} ms) — goal ≤ 250 ms with the query thread: ${after.busy.p95 <= 250 ? 'met' : 'NOT met'}`,
    );
    summary.push(
      `B's p95 during A's embedding: query thread / one worker ${(after.busy.p95 / before.busy.p95).toFixed(2)}×; during / idle (same run): one worker ${(before.busy.p95 / before.idle.p95).toFixed(1)}×, query thread ${(after.busy.p95 / after.idle.p95).toFixed(1)}×`,
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

interface Latencies {
  p50: number;
  p95: number;
  count: number;
}

interface StallSide {
  queryThread: boolean;
  idle: Latencies;
  busy: Latencies;
  /** A's embedding had not finished when B's last question answered (else the figures undercount the stall). */
  aStillEmbedding: boolean;
}

/**
 * Tenant B asks warm questions about its own (already embedded) paper, first idle, then while tenant
 * A's large document is embedded through the same ranker and fair queue; once with questions and
 * passages on one ONNX worker, once with the query worker thread. Questions come at seeded random
 * gaps (0–200 ms), the same sequence both times, so they land at every point of A's batches.
 */
async function tenantStall(options: {
  quick: boolean;
  newModel: (queryThread: boolean) => OnnxEmbeddingModel;
  tenantA: readonly string[];
  tenantB: readonly string[];
  sliceSize: number;
}): Promise<StallSide[]> {
  const rounds = options.quick ? 15 : 40;
  const sides: StallSide[] = [];
  for (const queryThread of [false, true]) {
    const model = options.newModel(queryThread);
    const ranker = new QuestionRanker({ model, sliceSize: options.sliceSize });
    let seed = 13;
    const gap = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return (seed / 2_147_483_648) * 200;
    };
    const ask = async (count: number, tag: string): Promise<Latencies> => {
      const latencies: number[] = [];
      for (let index = 0; index < count; index += 1) {
        await new Promise((resolve) => setTimeout(resolve, gap()));
        const started = performance.now();
        await ranker.rank({
          documentKey: 'bench:tenant-b',
          chunks: options.tenantB,
          question: `${otherTenantQuestions[index % otherTenantQuestions.length]} (${tag} ${index})`,
          topK: 3,
          lane: 'tenant-b',
          deadlineMs: 5000,
        });
        latencies.push(performance.now() - started);
      }
      latencies.sort((a, b) => a - b);
      return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), count };
    };
    try {
      // B's paper embedded, both workers warm: B's questions from here on are warm ones.
      await ranker.prepare('bench:tenant-b', options.tenantB, { lane: 'tenant-b' });
      await ask(5, 'warm-up');
      const idle = await ask(rounds, 'idle');
      let aDone = false;
      const embedding = ranker.prepare(`bench:tenant-a:${queryThread}`, options.tenantA, {
        lane: 'tenant-a',
      });
      embedding.then(
        () => {
          aDone = true;
        },
        () => {
          aDone = true;
        },
      );
      // A's first slices are running (and the query worker warmed by them) before B asks.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const busy = await ask(rounds, 'busy');
      sides.push({ queryThread, idle, busy, aStillEmbedding: !aDone });
    } finally {
      // Lets A's batch in flight finish; A's remaining slices fail with "closed" (nobody waits for them).
      await model.close();
    }
  }
  return sides;
}
