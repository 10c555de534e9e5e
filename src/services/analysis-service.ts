import pLimit from 'p-limit';
import { AppError, invalid } from '../domain/errors.js';
import type { Paper } from '../domain/paper.js';
import type { ChatModel } from '../ports/chat-model.js';
import { quotePaperText } from '../text/markdown-text.js';
import { rankSentences } from '../text/sentences.js';
import { synthesizeWithModel } from './analysis/model-synthesis.js';
import type { HeavyWork } from './heavy-work.js';
import { restHints } from './hint-vocabulary.js';
import type { ProjectService } from './project-service.js';
import type { FullTextReader, HintedCallOptions } from './services.js';

export const analysisModes = ['tabular', 'comprehensive'] as const;
export type AnalysisMode = (typeof analysisModes)[number];

/** Bounds of one analysis: every question is asked of every paper. */
export const maxQuestions = 10;
export const maxPapers = 50;

export interface AnalysisRequest {
  /** Project id or name; the default project when absent. */
  project?: string | undefined;
  questions: string[];
  mode: AnalysisMode;
}

/** What one paper says about one question. */
export interface AnalysisCell {
  /** The answering sentence(s), verbatim and markdown-inert; empty when the paper does not address it. */
  answer: string;
  /** Where the answer is: a full-text chunk, the abstract, or nowhere. */
  source: 'fulltext' | 'abstract' | 'none';
  chunk: number | null;
  /** Link to the answering chunk (or the paper), for citing. */
  link: string | null;
  /** Why the full text could not be asked, when it could not. */
  note?: string;
}

export interface AnalysisResult {
  project: { id: string; name: string };
  analysis_mode: AnalysisMode;
  questions: string[];
  papers: Array<{
    title: string;
    year: number | null;
    doi: string | null;
    url: string | null;
    pdf_id: string | null;
  }>;
  /** cells[paper][question], in the order of `papers` and `questions`. */
  cells: AnalysisCell[][];
  /** The table (tabular) or the synthesis (comprehensive), ready to show. */
  markdown: string;
  hint: string;
}

export interface AnalysisServiceDependencies {
  projects: ProjectService;
  /** Asks a stored PDF; without it only abstracts are used. */
  fullText?: FullTextReader | undefined;
  /** Absolute link to a chunk of a document, for citations. */
  chunkUrl: (pdfRef: string, chunk: number) => string;
  /** Parallel questions to documents. */
  concurrency?: number;
  /** Writes the comprehensive synthesis when configured; without it the synthesis is extractive. */
  model?: ChatModel | undefined;
  /** Deadline of one synthesis call, in ms. */
  modelTimeoutMs?: number;
  /**
   * The price of an analysis (decision 0042): within the tenant's share of heavy requests and a
   * time budget. Without it analyses run as they come.
   */
  budget?: HeavyWork | undefined;
}

/**
 * Splits ScholarAI's `question` (several questions comma-joined by its SDK) into questions. A comma
 * after a question mark always separates; without any question mark, every comma does ("datasets,
 * metrics, results"); one question that merely contains commas ("In mice, what …?") stays whole.
 */
export function splitQuestions(text: string | string[]): string[] {
  const parts = (Array.isArray(text) ? text : [text]).flatMap((item) => {
    const trimmed = item.trim();
    const byQuestionMark = trimmed.split(/(?<=\?)\s*,\s*/);
    if (byQuestionMark.length > 1) return byQuestionMark;
    return trimmed.includes('?') ? [trimmed] : trimmed.split(',');
  });
  return [...new Set(parts.map((part) => part.trim()).filter((part) => part.length > 0))];
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

/** The paper's year for display. */
function yearOf(paper: Paper): number | null {
  return paper.year ?? (Number(/^(\d{4})/.exec(paper.publication_date ?? '')?.[1]) || null);
}

/**
 * Asks every question of every paper of a project (the question endpoint per paper with a stored
 * PDF, the abstract otherwise) and answers as a markdown table, paper × question, each cell quoting
 * the answering sentence and citing its chunk; or, in comprehensive mode, as a synthesis per question
 * that gathers what each paper says, best evidence first, and names the papers that do not address it.
 */
export class AnalysisService {
  constructor(private readonly dependencies: AnalysisServiceDependencies) {}

  async analyze(
    tenantId: string,
    request: AnalysisRequest,
    options: HintedCallOptions = {},
  ): Promise<AnalysisResult> {
    const questions = request.questions;
    if (questions.length === 0)
      throw invalid('question', 'question is required: one question, or several separated by commas');
    if (questions.length > maxQuestions) {
      throw invalid('question', `At most ${maxQuestions} questions per analysis (got ${questions.length})`);
    }
    const budget = this.dependencies.budget;
    if (!budget) return this.analyzeWithin(tenantId, request, options);
    return budget.run(
      'analyze_project',
      tenantId,
      (signal) => this.analyzeWithin(tenantId, request, { ...options, signal }),
      { signal: options.signal, stoppedHint: 'Ask fewer questions at once, or of a smaller project.' },
    );
  }

  private async analyzeWithin(
    tenantId: string,
    request: AnalysisRequest,
    options: HintedCallOptions,
  ): Promise<AnalysisResult> {
    const questions = request.questions;
    const project = await this.dependencies.projects.get(tenantId, request.project ?? 'gpt');
    if (project.papers.length === 0) {
      throw new AppError(
        'unprocessable',
        `Project "${project.name}" has no papers to analyze; add some with add_to_project`,
        {
          param: 'project_name',
        },
      );
    }
    const papers = project.papers.slice(0, maxPapers);
    // Each analysis has its own few questions in flight: a shared queue would make one tenant's
    // 500-cell analysis hold up everyone else's.
    const limit = pLimit(this.dependencies.concurrency ?? 4);
    const cells = await Promise.all(
      papers.map((paper) =>
        Promise.all(
          questions.map((question) =>
            limit(() => {
              options.signal?.throwIfAborted();
              return this.cell(tenantId, paper, question, options.signal);
            }),
          ),
        ),
      ),
    );
    let written: Array<string | null> = [];
    let modelNote = '';
    if (request.mode === 'comprehensive' && this.dependencies.model) {
      ({ written, note: modelNote } = await this.writeSyntheses(papers, questions, cells, options.signal));
    }
    const markdown =
      request.mode === 'tabular'
        ? table(papers, questions, cells)
        : synthesis(papers, questions, cells, written);
    const withText = papers.filter((paper) => paper.pdf_id).length;
    const hints = [
      `${papers.length} paper${papers.length === 1 ? '' : 's'} × ${questions.length} question${questions.length === 1 ? '' : 's'}; ${withText} answered from full text, the rest from abstracts.`,
      project.papers.length > papers.length
        ? `Only the first ${maxPapers} of ${project.papers.length} papers were analyzed.`
        : '',
      modelNote,
      `Open a cited chunk with ${(options.hints ?? restHints).citedChunk()} to check an answer in context.`,
    ];
    return {
      project: { id: project.id, name: project.name },
      analysis_mode: request.mode,
      questions,
      papers: papers.map((paper) => ({
        title: paper.title,
        year: yearOf(paper),
        doi: paper.doi,
        url: paper.url,
        pdf_id: paper.pdf_id ?? null,
      })),
      cells,
      markdown,
      hint: hints.filter(Boolean).join(' '),
    };
  }

  /** One model-written paragraph per question (null where the model failed or nothing answers). */
  private async writeSyntheses(
    papers: Paper[],
    questions: string[],
    cells: AnalysisCell[][],
    signal: AbortSignal | undefined,
  ): Promise<{ written: Array<string | null>; note: string }> {
    const model = this.dependencies.model;
    let failures = 0;
    const written = await Promise.all(
      questions.map(async (question, column) => {
        const evidence = papers.flatMap((paper, row) => {
          const cell = cells[row]?.[column];
          return cell?.answer ? [{ label: plainLabel(paper), link: cell.link, text: cell.answer }] : [];
        });
        if (!model || evidence.length === 0) return null;
        try {
          const text = await synthesizeWithModel(model, question, evidence, {
            ...(signal ? { signal } : {}),
            ...(this.dependencies.modelTimeoutMs ? { timeoutMs: this.dependencies.modelTimeoutMs } : {}),
          });
          return text || null;
        } catch {
          signal?.throwIfAborted();
          failures += 1;
          return null;
        }
      }),
    );
    const note =
      failures > 0
        ? `The chat model failed for ${failures} question${failures === 1 ? '' : 's'}; those syntheses are extractive.`
        : '';
    return { written, note };
  }

  private async cell(
    tenantId: string,
    paper: Paper,
    question: string,
    signal: AbortSignal | undefined,
  ): Promise<AnalysisCell> {
    let note: string | undefined;
    if (paper.pdf_id && this.dependencies.fullText) {
      try {
        const result = await this.dependencies.fullText.ask(
          tenantId,
          paper.pdf_id,
          question,
          signal ? { signal } : {},
        );
        const chunk = result.chunks[0];
        if (chunk) {
          const answer = bestSentences(question, chunk.chunk);
          if (answer) {
            return {
              answer,
              source: 'fulltext',
              chunk: chunk.chunk_num,
              link: this.dependencies.chunkUrl(paper.pdf_id, chunk.chunk_num),
            };
          }
        }
      } catch (error) {
        signal?.throwIfAborted();
        note = error instanceof AppError ? error.message : 'the full text could not be read';
      }
    }
    const fromAbstract = paper.abstract ? bestSentences(question, paper.abstract) : '';
    if (fromAbstract) {
      return {
        answer: fromAbstract,
        source: 'abstract',
        chunk: null,
        link: paper.url,
        ...(note ? { note } : {}),
      };
    }
    return { answer: '', source: 'none', chunk: null, link: null, ...(note ? { note } : {}) };
  }
}

/** The one or two sentences of a text that best answer the question, quoted; '' when none does. */
function bestSentences(question: string, text: string): string {
  const ranked = rankSentences(question, [{ text, origin: null }]);
  const best = ranked[0];
  if (!best) return '';
  const chosen = [best];
  const second = ranked[1];
  if (second && second.score >= best.score * 0.8 && best.text.length + second.text.length < 400)
    chosen.push(second);
  return chosen.map((sentence) => quotePaperText(sentence.text)).join(' ');
}

function citation(cell: AnalysisCell): string {
  if (!cell.link) return cell.source === 'abstract' ? '(abstract)' : '';
  return cell.source === 'fulltext' ? `[chunk ${cell.chunk}](${cell.link})` : `[abstract](${cell.link})`;
}

function plainLabel(paper: Paper): string {
  const year = yearOf(paper);
  return year ? `${paper.title} (${year})` : paper.title;
}

function paperLabel(paper: Paper): string {
  const title = escapeCell(paper.title).replace(/[[\]]/g, '');
  const year = yearOf(paper);
  const label = paper.url ? `[${title}](${paper.url})` : title;
  return year ? `${label} (${year})` : label;
}

function table(papers: Paper[], questions: string[], cells: AnalysisCell[][]): string {
  const header = `| Paper | ${questions.map(escapeCell).join(' | ')} |`;
  const rule = `|---|${questions.map(() => '---').join('|')}|`;
  const rows = papers.map((paper, row) => {
    const values = (cells[row] ?? []).map((cell) =>
      cell.answer
        ? escapeCell(`“${cell.answer}” ${citation(cell)}`)
        : escapeCell(cell.note ? `— (${cell.note})` : '— not addressed'),
    );
    return `| ${paperLabel(paper)} | ${values.join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

function synthesis(
  papers: Paper[],
  questions: string[],
  cells: AnalysisCell[][],
  written: Array<string | null> = [],
): string {
  return questions
    .map((question, column) => {
      const answers = papers
        .map((paper, row) => ({ paper, cell: cells[row]?.[column] }))
        .filter((entry): entry is { paper: Paper; cell: AnalysisCell } => Boolean(entry.cell?.answer));
      const paragraph = written[column];
      // Full-text evidence first (the more specific answer), unless a written paragraph numbers it.
      if (!paragraph) {
        answers.sort((a, b) => Number(b.cell.source === 'fulltext') - Number(a.cell.source === 'fulltext'));
      }
      const silent = papers.filter((_paper, row) => !cells[row]?.[column]?.answer);
      const lines = [`### ${question}`, ''];
      if (paragraph) lines.push(paragraph, '');
      if (answers.length === 0) lines.push('None of the papers addresses this question.');
      else {
        lines.push(
          `${answers.length} of ${papers.length} paper${papers.length === 1 ? '' : 's'} address${answers.length === 1 ? 'es' : ''} this:`,
          '',
        );
        answers.forEach(({ paper, cell }, index) => {
          const number = paragraph ? `[${index + 1}] ` : '';
          lines.push(`- ${number}${paperLabel(paper)}: “${cell.answer}” ${citation(cell)}`);
        });
      }
      if (silent.length > 0 && answers.length > 0) {
        lines.push('', `Not addressed by: ${silent.map((paper) => paperLabel(paper)).join('; ')}.`);
      }
      return lines.join('\n');
    })
    .join('\n\n');
}
