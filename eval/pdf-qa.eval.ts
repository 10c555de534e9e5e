import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import {
  defaultFusion,
  type FusionOptions,
  fuseScores,
  type RankMode,
} from '../src/services/question/fusion.js';
import { defaultPassageSizes } from '../src/services/question/prepared-documents.js';
import { type PassageScores, QuestionRanker, rankChunks } from '../src/services/question/question-ranker.js';
import { passageBm25 } from '../src/text/bm25.js';
import type { EvalReport } from './index.js';
import { containsPassage, normalizedWords } from './lib/evidence.js';
import { loadPdfQuestions, type PdfQuestion, withOptions } from './lib/litqa2-pdf.js';
import { memoizedEmbeddingModel, textOnlyExtractor } from './lib/memo-embedding-model.js';
import { type RankingSetting, serviceRanking } from './lib/ranking-levers.js';
import { loadSciFactDocuments, type SciFactDocument } from './lib/scifact-documents.js';

const sharedData = join(import.meta.dirname, '..', '..', 'shared', 'data');

/** A fusion setting under test: a mode, and for hybrid the fusion method and dense weight. */
interface Setting {
  label: string;
  mode: RankMode;
  fusion?: FusionOptions;
}

const settings: Setting[] = [
  { label: 'dense', mode: 'dense' },
  { label: 'bm25', mode: 'bm25' },
  ...[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((weight) => ({
    label: `convex w=${weight}`,
    mode: 'hybrid' as const,
    fusion: { method: 'convex' as const, weight },
  })),
  ...[0.3, 0.5, 0.7].map((weight) => ({
    label: `rrf w=${weight}`,
    mode: 'hybrid' as const,
    fusion: { method: 'rrf' as const, weight },
  })),
];

/**
 * Questions to a PDF: does the top-1 chunk hold the evidence? (1) LitQA2 questions about the shared
 * PDFs, chunks from our pdf.js pipeline, hit = the chunk contains the key passage
 * (`containsPassage`: ≥ 80% of its word trigrams). (2) A bigger proxy to choose the fusion weight:
 * SciFact claims over synthetic documents of same-topic abstracts (`loadSciFactDocuments`). Every
 * fusion setting is scored on the same passage scores. `PDF_QA_PASSAGE_TOKENS=64,128,192` also
 * sweeps the passage size, `PDF_QA_SECTION_CONTEXT=on,off` the section headings in passages,
 * `PDF_QA_BM25_B=0.75,0.3` BM25's length normalisation over passages.
 */
export async function pdfQaEval(
  options: { quick: boolean },
  levers: RankingSetting[] = [],
): Promise<EvalReport> {
  const config = loadConfig();
  const model = memoizedEmbeddingModel(config);
  const extractor = textOnlyExtractor(config);
  try {
    const questions = loadPdfQuestions(sharedData);
    const pdfs = new Map<string, { key: string; chunks: string[] }>();
    for (const file of new Set(questions.map((question) => question.pdf_file))) {
      const bytes = readFileSync(join(sharedData, 'pdfs', file));
      const parsed = await extractor.extract(bytes, { images: false });
      pdfs.set(file, {
        key: createHash('sha256').update(bytes).digest('hex'),
        chunks: parsed.chunks.map((chunk) => chunk.text),
      });
    }
    const scifact = loadSciFactDocuments(join(sharedData, 'eval', 'scifact'), {
      claims: Number(process.env.PDF_QA_CLAIMS ?? (options.quick ? 60 : 300)),
      distractors: 7,
    });
    const variants = (process.env.PDF_QA_PASSAGE_TOKENS ?? String(defaultPassageSizes.targetTokens))
      .split(',')
      .flatMap((tokens) =>
        (process.env.PDF_QA_SECTION_CONTEXT ?? 'on').split(',').flatMap((context) =>
          (process.env.PDF_QA_BM25_B ?? String(passageBm25.b)).split(',').map((b) => ({
            targetTokens: Number(tokens),
            sectionContext: context !== 'off',
            b: Number(b),
          })),
        ),
      );
    const metrics: EvalReport['metrics'] = {};
    const summary: string[] = [];
    for (const { targetTokens, sectionContext, b } of variants) {
      const ranker = new QuestionRanker({
        model,
        passages: { targetTokens, sectionContext },
        bm25: { ...passageBm25, b },
      });
      const litqaScores: PassageScores[] = [];
      const litqaOptionScores: PassageScores[] = [];
      for (const question of questions) {
        const pdf = pdfs.get(question.pdf_file) as { key: string; chunks: string[] };
        const request = { documentKey: pdf.key, chunks: pdf.chunks };
        litqaScores.push(await ranker.passageScores({ ...request, question: question.question }));
        litqaOptionScores.push(await ranker.passageScores({ ...request, question: withOptions(question) }));
      }
      const scifactScores: PassageScores[] = [];
      for (const document of scifact) {
        if (scifactScores.length % 25 === 0) {
          // Progress on stderr, and the vectors so far on disk: a full run embeds for minutes.
          console.error(
            `pdf-qa: ${targetTokens}-token passages, SciFact document ${scifactScores.length}/${scifact.length}`,
          );
          model.save();
        }
        scifactScores.push(
          await ranker.passageScores({
            documentKey: `scifact:${document.claimId}`,
            chunks: document.chunks,
            question: document.claim,
          }),
        );
      }
      summary.push(
        `passages of ${targetTokens} tokens (1 sentence overlap), section headings ${sectionContext ? 'in front' : 'as sentences'}, BM25 b ${b}:`,
      );
      for (const setting of settings) {
        const litqaHitsOf = (scores: PassageScores[]) =>
          questions.filter((question, index) => {
            const top = topChunk(scores[index] as PassageScores, setting);
            const chunks = pdfs.get(question.pdf_file)?.chunks ?? [];
            return containsPassage(chunks[top.index] ?? '', question.key_passage);
          }).length;
        const litqaHits = litqaHitsOf(litqaScores);
        const litqaOptionHits = litqaHitsOf(litqaOptionScores);
        let chunkHits = 0;
        let passageHits = 0;
        scifact.forEach((document, index) => {
          const top = topChunk(scifactScores[index] as PassageScores, setting);
          if (top.index !== document.gold) return;
          chunkHits += 1;
          if (holdsRationale(top.passage.text, document)) passageHits += 1;
        });
        const litqaRate = litqaHits / questions.length;
        const chunkRate = chunkHits / scifact.length;
        const passageRate = passageHits / scifact.length;
        summary.push(
          `  ${setting.label.padEnd(14)} LitQA2-PDF ${litqaHits}/${questions.length} (with options ${litqaOptionHits}/${questions.length})  SciFact-docs chunk@1 ${chunkRate.toFixed(3)} passage@1 ${passageRate.toFixed(3)}`,
        );
        const isDefault =
          targetTokens === defaultPassageSizes.targetTokens &&
          sectionContext === (defaultPassageSizes.sectionContext ?? true) &&
          b === passageBm25.b;
        const defaultLabel = `${defaultFusion.method} w=${defaultFusion.weight}`;
        if (isDefault && ['dense', 'bm25', defaultLabel].includes(setting.label)) {
          const name = setting.mode === 'hybrid' ? 'hybrid' : setting.mode;
          metrics[`litqa2-pdf top-1 hit ${name}`] = litqaRate;
          metrics[`litqa2-pdf+options top-1 hit ${name}`] = litqaOptionHits / questions.length;
          metrics[`scifact-docs chunk@1 ${name}`] = chunkRate;
          metrics[`scifact-docs passage@1 ${name}`] = passageRate;
        }
      }
    }
    // The ranking levers of issue 14 on the default passages (same scores; reader-qa prints them too).
    if (levers.length > 0) {
      const ranker = new QuestionRanker({ model });
      const litqa: Array<{ bare: PassageScores; options: PassageScores; chunks: string[]; key: string }> = [];
      for (const question of questions) {
        const pdf = pdfs.get(question.pdf_file) as { key: string; chunks: string[] };
        const request = { documentKey: pdf.key, chunks: pdf.chunks };
        litqa.push({
          bare: await ranker.passageScores({ ...request, question: question.question }),
          options: await ranker.passageScores({ ...request, question: withOptions(question) }),
          chunks: pdf.chunks,
          key: question.key_passage,
        });
      }
      const scifactScores: PassageScores[] = [];
      for (const document of scifact) {
        scifactScores.push(
          await ranker.passageScores({
            documentKey: `scifact:${document.claimId}`,
            chunks: document.chunks,
            question: document.claim,
          }),
        );
      }
      summary.push(
        'ranking levers (default passages; LitQA2-PDF bare / with options, SciFact-docs chunk@1):',
      );
      for (const lever of [serviceRanking, ...levers]) {
        const litqaHits = (which: 'bare' | 'options') =>
          litqa.filter((item, index) => {
            const question = questions[index] as PdfQuestion;
            const scores = item[which];
            const top =
              lever.rank(scores, which === 'bare' ? question.question : withOptions(question))[0] ?? -1;
            return containsPassage(item.chunks[top] ?? '', item.key);
          }).length;
        const chunkHits = scifact.filter(
          (document, index) =>
            lever.rank(scifactScores[index] as PassageScores, document.claim)[0] === document.gold,
        ).length;
        const rate = chunkHits / scifact.length;
        summary.push(
          `  ${lever.label.padEnd(52)} LitQA2-PDF ${litqaHits('bare')}/${questions.length} (with options ${litqaHits('options')}/${questions.length})  SciFact-docs chunk@1 ${rate.toFixed(3)}`,
        );
        metrics[`lever ${lever.label}: scifact-docs chunk@1`] = rate;
      }
    }
    const hybrid = metrics['litqa2-pdf+options top-1 hit hybrid'];
    const stem = metrics['litqa2-pdf top-1 hit hybrid'];
    if (typeof hybrid === 'number' && typeof stem === 'number') {
      summary.unshift(
        `LitQA2 PDF questions (${questions.length}), posed as LitQA2 poses them (the question and its answer options): hybrid top-1 chunk holds the key passage ${(hybrid * 100).toFixed(0)}% (goal ≥ 80%: ${hybrid >= 0.8 ? 'met' : 'NOT met'})`,
        `  the question stem alone (no options): hybrid ${(stem * 100).toFixed(0)}%, dense ${(Number(metrics['litqa2-pdf top-1 hit dense']) * 100).toFixed(0)}%, BM25 ${(Number(metrics['litqa2-pdf top-1 hit bm25']) * 100).toFixed(0)}%`,
        `SciFact-docs: ${scifact.length} claims, each over its abstract + 7 same-topic abstracts; embedded ${model.embedded} new texts, reused ${model.reused}`,
      );
    }
    return {
      name: 'Questions to a PDF: top-1 chunk holds the evidence (dense, BM25, hybrid)',
      metrics,
      summary,
    };
  } finally {
    model.save();
    await extractor.close();
    await model.close();
  }
}

function topChunk(scores: PassageScores, setting: Setting) {
  const fused = fuseScores(scores.dense, scores.bm25, setting.mode, setting.fusion);
  return rankChunks(scores, fused, 1)[0] ?? { index: -1, score: 0, passage: { text: '', dense: 0, bm25: 0 } };
}

/** The passage holds a rationale sentence (normalised words, as a contiguous run). */
function holdsRationale(passage: string, document: SciFactDocument): boolean {
  const text = ` ${normalizedWords(passage).join(' ')} `;
  return document.rationale.some((sentence) => text.includes(` ${normalizedWords(sentence).join(' ')} `));
}
