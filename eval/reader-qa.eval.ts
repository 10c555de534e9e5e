import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import {
  defaultFirstQuestionCandidates,
  defaultFirstQuestionSpread,
  type PassageScores,
  QuestionRanker,
} from '../src/services/question/question-ranker.js';
import type { EvalReport } from './index.js';
import { answerEvidence, minimumCoverage } from './lib/answer-evidence.js';
import { type Doc2QueryItem, doc2queryRows } from './lib/doc2query-eval.js';
import { containsPassage, trigramCoverage } from './lib/evidence.js';
import { loadPdfQuestions, withOptions } from './lib/litqa2-pdf.js';
import { llmRerankRows, pubmedRerankItems } from './lib/llm-rerank-eval.js';
import {
  type MemoEmbeddingModel,
  memoizedEmbeddingModel,
  textOnlyExtractor,
} from './lib/memo-embedding-model.js';
import { memoizedNomic } from './lib/nomic-embedding.js';
import { type PaperLayout, paperFontKind, writePaperPdf } from './lib/paper-pdf.js';
import { type RankingSetting, serviceRanking } from './lib/ranking-levers.js';
import { loadPubMedGroups, loadReaderPapers } from './lib/reader-papers.js';

/** nomic-embed-text v1.5 memoised, loaded (its tokenizer sizes the passages). */
async function loadedNomic(): Promise<MemoEmbeddingModel> {
  const { memo, nomic } = await memoizedNomic({ maxTokens: 512 });
  await nomic.load();
  return memo;
}

const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');
const cacheDir = join('.eval', 'reader-qa');
/** Bump when the layout written for a paper changes (cached PDFs of the old layout are then unused). */
const writerVersion = 1;
/** Abstracts per PubMedQA document. */
const groupSize = 12;
/** A PubMedQA chunk holds an abstract when it holds at least this share of the abstract's word trigrams. */
const abstractShare = 1 / 3;

/** One question's passage scores and its gold chunks. */
export interface Scored {
  question: string;
  scores: PassageScores;
  gold: ReadonlySet<number>;
}

/**
 * Readers' questions to PDFs (issue 14): does the ranking of /api/question put the answer's chunk
 * first? Three sets, every document written as a PDF by pdfkit and read back by our own pipeline
 * (`WorkerPdfExtractor`, as uploads are), every question ranked by `QuestionRanker.rank` with the
 * service's defaults:
 *
 * 1. **QASPER papers** (`eval/leval_scientific_qa`, 13 NLP papers, 102 questions written by readers
 *    who saw only the abstract): hit when the top-1 chunk is the document's best chunk for the
 *    reference answer (`answerEvidence`: the chunk holding the answer verbatim, else the chunk
 *    covering most of its content terms; yes/no answers and answers whose content is not in the text
 *    are not scored). Top-1 and top-3.
 * 2. **PubMedQA** (`eval/pubmedqa`, 667 expert-labelled questions): abstracts twelve to a PDF in
 *    file order, each question asked of its group's PDF; hit when the top-1 chunk holds its abstract
 *    (≥ a third of the abstract's word trigrams).
 * 3. **LitQA2 PDF items** (4): the bare question as the goal line, the question with its answer
 *    options beside it (as `pdf-qa` poses it); hit when the top-1 chunk holds the key passage.
 *
 * Generated PDFs are cached in `.eval/reader-qa/pdfs` (keyed by their layout, font and pdfkit
 * version); the parse always runs, so a change to the PDF pipeline is measured. Passage vectors are
 * memoised in `.eval/embeddings`. `--quick` asks the first 120 PubMedQA questions instead of 667;
 * `READER_QA_PASSAGE_TOKENS` sets another passage size. `READER_QA_LLM_RERANK=3,5,8` adds the local
 * LLM re-ranking of the top N chunks (`eval/lib/llm-rerank-eval.ts`; minutes of model time, cached);
 * `READER_QA_DOC2QUERY=1` adds chunks expanded by LLM-written questions (`eval/lib/doc2query-eval.ts`).
 * `READER_QA_EMBEDDING=nomic` ranks with nomic-embed-text v1.5 instead of the configured model.
 */
export async function readerQaEval(
  options: { quick: boolean },
  settings: RankingSetting[] = [],
): Promise<EvalReport> {
  const config = loadConfig();
  // `READER_QA_EMBEDDING=nomic` ranks with nomic-embed-text v1.5 instead of the configured model
  // (`eval/lib/nomic-embedding.ts`; measurement only, decision 0012).
  const model =
    process.env.READER_QA_EMBEDDING === 'nomic'
      ? await loadedNomic()
      : memoizedEmbeddingModel(config, 'reader-qa-');
  const extractor = textOnlyExtractor(config);
  // `READER_QA_PASSAGE_TOKENS=64` measures another passage size (its passages are embedded anew).
  const targetTokens = Number(process.env.READER_QA_PASSAGE_TOKENS ?? Number.NaN);
  const passages = Number.isFinite(targetTokens) ? { targetTokens } : undefined;
  const ranker = new QuestionRanker({ model, passages });
  // Every question asked of it is a first question (a key of its own: the document's vectors are
  // not built yet), answered from BM25's candidate passages as /api/question answers one.
  const firstRanker = new QuestionRanker({ model, passages, memoryBytes: 1 });
  let firstAsked = 0;
  const first = async (request: { documentKey: string; chunks: string[]; question: string }) => {
    firstAsked += 1;
    let path = '';
    const ranked = await firstRanker.rank({
      ...request,
      documentKey: `${request.documentKey}:first-question:${firstAsked}`,
      topK: 3,
      onTimings: (timings) => {
        path = timings.path;
      },
    });
    if (path !== 'first') throw new Error(`a first question took the ${path} path`);
    return ranked.map((chunk) => chunk.index);
  };
  const firstHits = { qasper1: 0, qasper3: 0, pubmed: 0, bare: 0, options: 0 };
  const parse = async (bytes: Buffer) =>
    (await extractor.extract(bytes, { images: false })).chunks.map((chunk) => chunk.text);
  const metrics: EvalReport['metrics'] = {};
  const summary: string[] = [];
  try {
    // 1. QASPER papers.
    const papers = loadReaderPapers(
      join(sharedData, 'eval', 'leval_scientific_qa', 'leval_scientific_qa.jsonl'),
    );
    const qasper: Scored[] = [];
    const skipped = { 'yes/no': 0, absent: 0, spread: 0 };
    const rules = { verbatim: 0, overlap: 0 };
    let qasperTop1 = 0;
    let qasperTop3 = 0;
    let chunkCount = 0;
    // Opt-in: chunks expanded by questions a local LLM writes for them (`READER_QA_DOC2QUERY=1`).
    const doc2query = process.env.READER_QA_DOC2QUERY === '1';
    const doc2queryItems: Doc2QueryItem[] = [];
    for (const paper of papers) {
      const bytes = await paperPdf(paper.layout);
      const chunks = await parse(bytes);
      chunkCount += chunks.length;
      const documentKey = sha256(bytes);
      // The service's figures are warm questions (vectors built); first questions are measured apart.
      await ranker.prepare(documentKey, chunks);
      for (const item of paper.questions) {
        const evidence = answerEvidence(item.answer, chunks);
        if (!evidence.scored) {
          skipped[evidence.reason] += 1;
          continue;
        }
        rules[evidence.rule] += 1;
        const gold = new Set(evidence.chunks);
        const request = { documentKey, chunks, question: item.question };
        const ranked = await ranker.rank({ ...request, topK: 3 });
        if (gold.has(ranked[0]?.index ?? -1)) qasperTop1 += 1;
        if (ranked.some((chunk) => gold.has(chunk.index))) qasperTop3 += 1;
        if (doc2query) {
          const order = (await ranker.rank({ ...request, topK: chunks.length })).map((chunk) => chunk.index);
          doc2queryItems.push({ question: item.question, order, chunks, gold });
        }
        const firstRanked = await first(request);
        if (gold.has(firstRanked[0] ?? -1)) firstHits.qasper1 += 1;
        if (firstRanked.some((index) => gold.has(index))) firstHits.qasper3 += 1;
        qasper.push({ question: item.question, scores: await ranker.passageScores(request), gold });
      }
    }
    const asked = papers.reduce((sum, paper) => sum + paper.questions.length, 0);
    const top1 = qasperTop1 / qasper.length;
    const top3 = qasperTop3 / qasper.length;
    metrics['qasper top-1 best chunk'] = top1;
    metrics['qasper top-3 best chunk'] = top3;
    summary.push(
      `QASPER readers' questions (${papers.length} papers → PDF → ${chunkCount} chunks; ${qasper.length} of ${asked} questions scored: ${rules.verbatim} answers found verbatim, ${rules.overlap} by term overlap ≥ ${minimumCoverage * 100}%; not scored: ${skipped['yes/no']} yes/no, ${skipped.absent} answer not in the text, ${skipped.spread} answer spread over > ⅓ of the chunks):`,
      `  top-1 is the best chunk ${percent(top1)} (goal ≥ 60%: ${verdict(top1 >= 0.6)}); top-3 holds it ${percent(top3)} (goal ≥ 90%: ${verdict(top3 >= 0.9)})`,
    );

    // 2. PubMedQA abstracts, a dozen to a PDF.
    const groups = loadPubMedGroups(
      join(sharedData, 'eval', 'pubmedqa', 'pubmedqa_pqal.jsonl'),
      groupSize,
      options.quick ? 120 : Number.MAX_SAFE_INTEGER,
    );
    const pubmed: Scored[] = [];
    let pubmedTop1 = 0;
    let unheld = 0;
    for (const [index, group] of groups.entries()) {
      if (index % 10 === 0) {
        console.error(`reader-qa: PubMedQA document ${index + 1}/${groups.length}`);
        model.save(); // the vectors so far on disk: a first run embeds for minutes
      }
      const bytes = await paperPdf(group.layout);
      const chunks = await parse(bytes);
      const documentKey = sha256(bytes);
      await ranker.prepare(documentKey, chunks);
      for (const item of group.items) {
        const gold = new Set(
          chunks.flatMap((chunk, chunkIndex) =>
            trigramCoverage(chunk, item.abstract) >= abstractShare ? [chunkIndex] : [],
          ),
        );
        if (gold.size === 0) unheld += 1; // no chunk holds a third of it: counts as a miss
        const request = { documentKey, chunks, question: item.question };
        const ranked = await ranker.rank(request);
        if (gold.has(ranked[0]?.index ?? -1)) pubmedTop1 += 1;
        if (gold.has((await first(request))[0] ?? -1)) firstHits.pubmed += 1;
        pubmed.push({ question: item.question, scores: await ranker.passageScores(request), gold });
      }
    }
    const pubmedRate = pubmedTop1 / pubmed.length;
    metrics['pubmedqa top-1 holds abstract'] = pubmedRate;
    summary.push(
      `PubMedQA (${pubmed.length} questions, ${groups.length} PDFs of ${groupSize} abstracts${unheld > 0 ? `; ${unheld} abstracts with no chunk holding a third of them` : ''}): top-1 chunk holds the question's abstract ${percent(pubmedRate)} (goal ≥ 90%: ${verdict(pubmedRate >= 0.9)})`,
    );

    // 3. LitQA2 PDF items: the bare question is the goal line; with options beside it.
    const litqa = loadPdfQuestions(sharedData);
    const litqaBare: Scored[] = [];
    const litqaOptions: Scored[] = [];
    let bareHits = 0;
    let optionHits = 0;
    const parsed = new Map<string, { key: string; chunks: string[] }>();
    for (const item of litqa) {
      let pdf = parsed.get(item.pdf_file);
      if (!pdf) {
        const bytes = readFileSync(join(sharedData, 'pdfs', item.pdf_file));
        pdf = { key: sha256(bytes), chunks: await parse(bytes) };
        parsed.set(item.pdf_file, pdf);
        await ranker.prepare(pdf.key, pdf.chunks);
      }
      const chunks = pdf.chunks;
      const gold = new Set(
        chunks.flatMap((chunk, chunkIndex) => (containsPassage(chunk, item.key_passage) ? [chunkIndex] : [])),
      );
      for (const [question, into, hit, firstHit] of [
        [item.question, litqaBare, () => (bareHits += 1), () => (firstHits.bare += 1)],
        [withOptions(item), litqaOptions, () => (optionHits += 1), () => (firstHits.options += 1)],
      ] as const) {
        const request = { documentKey: pdf.key, chunks, question };
        const ranked = await ranker.rank(request);
        if (gold.has(ranked[0]?.index ?? -1)) hit();
        if (gold.has((await first(request))[0] ?? -1)) firstHit();
        into.push({ question, scores: await ranker.passageScores(request), gold });
      }
    }
    metrics['litqa2-pdf bare question top-1'] = bareHits / litqa.length;
    metrics['litqa2-pdf with options top-1'] = optionHits / litqa.length;
    summary.push(
      `LitQA2 PDF items: the bare question's top-1 chunk holds the key passage ${bareHits}/${litqa.length} (goal ≥ 3/4: ${verdict(bareHits * 4 >= litqa.length * 3)}); with its answer options ${optionHits}/${litqa.length}`,
    );
    // First questions: the same questions, each on a document whose vectors are not built yet.
    const firstTop1 = firstHits.qasper1 / qasper.length;
    metrics['first question: qasper top-1'] = firstTop1;
    metrics['first question: qasper top-3'] = firstHits.qasper3 / qasper.length;
    metrics['first question: pubmedqa top-1'] = firstHits.pubmed / pubmed.length;
    summary.push(
      `first question (vectors not built: BM25's ${defaultFirstQuestionCandidates} best passages, ${defaultFirstQuestionSpread} spread over the document and the question embedded, the rest in the background): QASPER top-1 ${percent(firstTop1)} / top-3 ${percent(firstHits.qasper3 / qasper.length)} (warm ${percent(top1)} / ${percent(top3)}: ${firstTop1 >= top1 && firstHits.qasper3 >= qasperTop3 ? 'no drop' : 'DROPS'}); PubMedQA ${percent(firstHits.pubmed / pubmed.length)} (warm ${percent(pubmedRate)}); LitQA2 bare ${firstHits.bare}/${litqa.length} (warm ${bareHits}/${litqa.length}), with options ${firstHits.options}/${litqa.length} (warm ${optionHits}/${litqa.length})`,
    );

    // Rankings under test, on the same passage scores (the service's ranking first, as a check).
    if (settings.length > 0) {
      summary.push(
        'rankings on the same passage scores (QASPER top-1/top-3, PubMedQA top-1, LitQA2 bare/options):',
      );
      for (const setting of [serviceRanking, ...settings]) {
        const q1 = hitRate(qasper, setting, 1);
        const q3 = hitRate(qasper, setting, 3);
        const p1 = hitRate(pubmed, setting, 1);
        const bare = hitRate(litqaBare, setting, 1) * litqa.length;
        const withOpts = hitRate(litqaOptions, setting, 1) * litqa.length;
        summary.push(
          `  ${setting.label.padEnd(34)} QASPER ${percent(q1)} / ${percent(q3)}  PubMedQA ${percent(p1)}  LitQA2 ${bare}/${litqa.length} (options ${withOpts}/${litqa.length})`,
        );
        metrics[`${setting.label}: qasper top-1`] = q1;
      }
    }
    // Opt-in: a local LLM re-ranks the hybrid ranking's top N chunks (`READER_QA_LLM_RERANK=3,5,8`).
    const rerankSizes = (process.env.READER_QA_LLM_RERANK ?? '')
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 1);
    if (rerankSizes.length > 0) {
      model.save(); // the vectors on disk before the model's minutes
      const pubmedEvery = Math.max(1, Math.round(pubmed.length / pubmedRerankItems()));
      summary.push(
        ...(await llmRerankRows(rerankSizes, [
          { name: 'LitQA2 bare', items: litqaBare },
          { name: 'LitQA2 with options', items: litqaOptions },
          { name: 'QASPER', items: qasper },
          { name: 'PubMedQA', items: pubmed.filter((_, index) => index % pubmedEvery === 0) },
        ])),
      );
    }
    if (doc2query) {
      model.save();
      summary.push(...(await doc2queryRows(doc2queryItems, model)));
    }
    summary.push(`embedded ${model.embedded} new texts, reused ${model.reused}`);
    return { name: "Readers' questions to PDFs: the top chunk holds the answer", metrics, summary };
  } finally {
    model.save();
    await extractor.close();
    await model.close();
  }
}

function hitRate(items: readonly Scored[], setting: RankingSetting, k: number): number {
  if (items.length === 0) return 0;
  const hits = items.filter((item) =>
    setting
      .rank(item.scores, item.question)
      .slice(0, k)
      .some((index) => item.gold.has(index)),
  );
  return hits.length / items.length;
}

/** The paper as a PDF, from the cache when this layout was written before by the same writer. */
async function paperPdf(layout: PaperLayout): Promise<Buffer> {
  const key = sha256(
    JSON.stringify([
      writerVersion,
      paperFontKind,
      pdfkitVersion(),
      layout.title,
      layout.byline,
      layout.sections,
    ]),
  );
  const file = join(cacheDir, 'pdfs', `${key.slice(0, 32)}.pdf`);
  if (existsSync(file)) return readFileSync(file);
  const bytes = await writePaperPdf(layout);
  mkdirSync(join(cacheDir, 'pdfs'), { recursive: true });
  writeFileSync(file, bytes);
  return bytes;
}

let pdfkitVersionCache: string | undefined;
function pdfkitVersion(): string {
  // pdfkit's exports map does not expose its package.json; read it beside the entry point.
  const entry = createRequire(import.meta.url).resolve('pdfkit');
  const manifest = join(
    entry.slice(0, entry.lastIndexOf('node_modules')),
    'node_modules',
    'pdfkit',
    'package.json',
  );
  pdfkitVersionCache ??= (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  return pdfkitVersionCache;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}
