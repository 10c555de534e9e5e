import pLimit from 'p-limit';
import type { Paper } from '../domain/paper.js';
import type { ChatModel } from '../ports/chat-model.js';
import { FenceMarkerFilter, PromptFence } from '../text/fence.js';
import { quotePaperText } from '../text/markdown-text.js';
import { splitSentences } from '../text/sentences.js';
import { checkCitations } from './citation-filter.js';
import { selectSentences } from './compose.js';
import { paperAnswerPrompt } from './prompts.js';
import { citationMarkdown, SourceLedger } from './source-ledger.js';

export interface GenerativeAnswersOptions {
  /** The chat model; without one every answer is extractive. */
  model?: ChatModel | undefined;
  /** Model calls in flight at once for one search. */
  concurrency: number;
  /** Deadline of one model call, in milliseconds; past it the paper gets the extractive answer. */
  timeoutMs: number;
  /**
   * Deadline of all the model answers of one search, in milliseconds: records still unanswered then
   * get the extractive answer. Unset: each call has only its own `timeoutMs`. The local model, which
   * answers one record at a time, needs it: its queued calls would otherwise wait in turn.
   */
  budgetMs?: number;
  /** Link target for records known only by a `PROJ:` reference. */
  documentUrl?: (pdfRef: string) => string;
  /** Told when a model answer failed and the extractive one was used instead. */
  onFallback?: (error: unknown, paper: Paper) => void;
}

/**
 * `generative_mode=true` on search: adds `answer` to each record — what this paper says about the
 * query, ending with a markdown citation to the paper. With a chat model: one short model answer
 * per paper (bounded concurrency, per-call deadline), falling back to the extractive answer on any
 * failure. Without one: the abstract sentences that best answer the query, verbatim.
 */
export class GenerativeAnswers {
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly options: GenerativeAnswersOptions) {
    this.limit = pLimit(Math.max(1, options.concurrency));
  }

  /** The records with `answer` set, in the same order. */
  async annotate(papers: Paper[], query: string, options: { signal?: AbortSignal } = {}): Promise<Paper[]> {
    const { signal } = options;
    const { budgetMs } = this.options;
    const budget = budgetMs ? AbortSignal.timeout(budgetMs) : undefined;
    const callSignal = budget && signal ? AbortSignal.any([signal, budget]) : (budget ?? signal);
    return Promise.all(
      papers.map(async (paper) => ({
        ...paper,
        answer: await this.answer(paper, query, signal, callSignal),
      })),
    );
  }

  private async answer(
    paper: Paper,
    query: string,
    signal: AbortSignal | undefined,
    callSignal: AbortSignal | undefined,
  ): Promise<string> {
    const { model } = this.options;
    if (!model || !paper.abstract) return this.extractiveAnswer(paper, query);
    try {
      return await this.limit(() => {
        // Past the search's budget, a record waiting for its turn is answered extractively at once.
        callSignal?.throwIfAborted();
        return this.modelAnswer(model, paper, query, callSignal);
      });
    } catch (error) {
      // The caller went away: stop. The budget ran out: this record is answered extractively.
      signal?.throwIfAborted();
      this.options.onFallback?.(error, paper);
      return this.extractiveAnswer(paper, query);
    }
  }

  /** The abstract sentences that best answer the query, then the citation. */
  extractiveAnswer(paper: Paper, query: string): string {
    const ledger = new SourceLedger(this.options.documentUrl);
    const source = ledger.add(paper);
    const citation = citationMarkdown(source);
    if (!paper.abstract?.trim()) return `No abstract is available for this record. ${citation}`;
    const selected = selectSentences(query, [{ source, text: paper.abstract, kind: 'abstract' }], {
      max: 2,
      perSource: 2,
    });
    if (selected.length > 0) {
      // Keep the abstract's own order so the two sentences read as they were written.
      const order = splitSentences(paper.abstract);
      const sentences = selected
        .map((sentence) => sentence.text)
        .sort((a, b) => order.indexOf(a) - order.indexOf(b));
      return `${sentences.map(quotePaperText).join(' ')} ${citation}`;
    }
    const opening = splitSentences(paper.abstract).slice(0, 2).map(quotePaperText).join(' ');
    return `The abstract does not address the query directly; it states: “${opening}” ${citation}`;
  }

  private async modelAnswer(model: ChatModel, paper: Paper, query: string, signal: AbortSignal | undefined) {
    const fence = new PromptFence();
    const ledger = new SourceLedger(this.options.documentUrl);
    const source = ledger.add(paper);
    let text = '';
    for await (const event of model.stream({
      messages: [
        { role: 'system', content: paperAnswerPrompt({ fence }) },
        {
          role: 'user',
          content: `Query: ${query}\n\nPaper:\n${fence.wrap(`Title: ${paper.title}\nAbstract: ${paper.abstract ?? ''}`)}`,
        },
      ],
      maxTokens: 250,
      timeoutMs: this.options.timeoutMs,
      ...(signal ? { signal } : {}),
    })) {
      if (event.type === 'text') text += event.text;
    }
    // A fence marker the model repeats goes; the model was told not to cite, and any link it wrote
    // anyway must be this paper or goes.
    const markers = new FenceMarkerFilter();
    const unfenced = markers.push(text) + markers.end();
    const checked = checkCitations(unfenced.trim(), ledger).text.trim();
    if (checked.length === 0) throw new Error('the model gave an empty answer');
    return `${checked} ${citationMarkdown(source)}`;
  }
}
