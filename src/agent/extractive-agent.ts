import type { Paper } from '../domain/paper.js';
import type { SearchResult } from '../domain/search.js';
import { estimateTokens } from '../ports/chat-model.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import { emptyResultHint } from '../services/search/empty-result-hint.js';
import { plainLine } from '../text/markdown-text.js';
import { unique } from './agent-step-rules.js';
import type {
  AgentBudgets,
  AgentEvent,
  ResearchAgent,
  ResearchRequest,
  ResearchTools,
} from './agent-types.js';
import { notAboutItNote } from './answer-endings.js';
import { AnswerabilityJudge } from './answerability.js';
import { CitationFilter } from './citation-filter.js';
import {
  anchorSentences,
  referencesSection,
  selectSentences,
  sentenceLine,
  withoutBibliography,
} from './compose.js';
import { readFollowUp, readingLine } from './conversation.js';
import { notAnsweredText, relatedSources } from './relevance.js';
import {
  agentSearchRequest,
  figureUrls,
  type OpeningCache,
  readableHere,
  readForQuestion,
  searchLibrary,
  searchWithRelaxation,
  withDeadline,
} from './retrieval.js';
import { citationMarkdown, type Evidence, type RetrievedSource, SourceLedger } from './source-ledger.js';

/**
 * The answer when no record was found: what was searched, then the words every surface uses for an
 * empty result (index empty, sources off or unreachable, nothing matched; decision 0045), with the
 * advice of a question asked in plain words. The caller's projects were searched too.
 */
function nothingFound(question: string, keywords: string[], result: SearchResult | undefined): string {
  const searched = keywords.length ? `Searched for: ${keywords.join(', ')}. ` : '';
  if (!result) return `${searched}No paper was found. Try other words, or add papers to a project.\n`;
  const hint = emptyResultHint({
    kind: 'paper',
    request: agentSearchRequest({ query: question }),
    indexEmpty: result.indexEmpty === true,
    sources: result.sources ?? [],
    total: 0,
  });
  return `${searched}${hint} Papers in your projects are searched too.\n`;
}

/** At most 200 characters of the user's text, for a progress line ("…" when cut). */
function shortened(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** Records whose abstracts are considered. */
const maxPapers = 6;
/** Full texts read (asked the question) per run. */
const maxDocuments = 3;
/** Documents of at most this many chunks are scanned whole for sentences, beyond `ask`'s top chunks. */
const scanLimit = 80;

export interface ExtractiveAgentOptions {
  budgets: AgentBudgets;
  /** Link target for a record known only by a `PROJ:` document reference. */
  documentUrl?: (pdfRef: string) => string;
  /**
   * Whether open-access PDFs of search results (`PDF_URL:` references) are fetched and read; when
   * false only what is here is read — PDFs stored in projects and cached parses of remote PDFs —
   * and no host is tried (offline installations, benchmarks). Default true.
   */
  readRemotePdfs?: boolean;
  /** The sentence encoder that judges whether a retrieved record answers (decision 0064); absent: the term rule alone. */
  embeddings?: EmbeddingModel;
}

/**
 * The research agent without a language model (the embedded default). It does the steps a model
 * would, deterministically: keywords from the question → search (and the caller's own projects) →
 * abstracts → ask the question of the top full texts → an answer made only of retrieved sentences,
 * quoted verbatim, each with its citation, then the references list. The abstract part streams as
 * soon as the search returns, before any PDF is read, so the first words arrive fast.
 * See docs/agent.md.
 */
export class ExtractiveAgent implements ResearchAgent {
  /** Openings of stored PDFs without an abstract, for ranking the caller's projects. */
  private readonly openings: OpeningCache = new Map();

  constructor(
    private readonly tools: ResearchTools,
    private readonly options: ExtractiveAgentOptions,
  ) {}

  async *run(request: ResearchRequest): AsyncIterable<AgentEvent> {
    const { budgets } = this.options;
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(budgets.timeLimitMs)]);
    // A follow-up ("what datasets evaluate them?") is searched and answered with what it refers to.
    const followUp = readFollowUp(request.messages);
    const question = followUp.resolved;
    const ledger = new SourceLedger(this.options.documentUrl);
    const filter = new CitationFilter(ledger);
    let answer = '';
    const emit = (text: string): AgentEvent | undefined => {
      const checked = filter.push(text);
      answer += checked;
      return checked ? { type: 'content', text: checked } : undefined;
    };

    const keywords = followUp.keywords;
    const reading = readingLine(followUp);
    if (reading) yield { type: 'progress', text: reading };
    yield { type: 'progress', text: `Searching for: ${keywords.join(', ') || shortened(question)}\n` };
    const papers: Paper[] = [];
    const notes: string[] = [];
    const [library, found] = await Promise.all([
      this.tools.projects
        ? withDeadline(
            (inner) =>
              searchLibrary(
                this.tools.projects as NonNullable<ResearchTools['projects']>,
                request.tenantId,
                question,
                {
                  limit: 3,
                  openings: this.openings,
                  signal: inner,
                  ...(this.tools.fullText ? { fullText: this.tools.fullText } : {}),
                },
              ),
            budgets.toolTimeoutMs,
            signal,
            'Searching your projects',
          ).catch((error: unknown) => failed(error, notes, request.signal))
        : undefined,
      this.tools.search
        ? withDeadline(
            (inner) =>
              searchWithRelaxation(
                this.tools.search as NonNullable<ResearchTools['search']>,
                question,
                keywords,
                {
                  signal: inner,
                  limit: 10,
                },
              ),
            budgets.toolTimeoutMs,
            signal,
            'The search',
          ).catch((error: unknown) => failed(error, notes, request.signal))
        : undefined,
    ]);
    if (library) papers.push(...library);
    if (found) papers.push(...found.result.papers);
    for (const note of notes) yield { type: 'progress', text: `${note}\n` };
    const sources = unique(papers.map((paper) => ledger.add(paper))).slice(0, maxPapers);
    yield {
      type: 'progress',
      text:
        sources.length === 0
          ? 'No matching records.\n'
          : `Found ${sources.length} records: ${sources.map((source) => source.label).join('; ')}\n`,
    };

    for (const source of sources) {
      if (source.paper.abstract)
        ledger.addEvidence({ source, text: source.paper.abstract, kind: 'abstract' });
    }
    const used = new Set<string>();
    // Only records related to the question are quoted (they share its key terms): a sentence of an
    // unrelated paper that happens to share a word is no answer.
    const ofRelated = (evidence: Evidence[]) => {
      const related = new Set(relatedSources(question, sources, ledger.evidence));
      return evidence.filter((item) => related.has(item.source));
    };
    const fromAbstracts = selectSentences(question, ofRelated(ledger.evidence), {
      max: 4,
      perSource: 2,
      exclude: used,
    });
    if (fromAbstracts.length > 0) {
      const event = emit(
        `Passages of the retrieved papers that bear on the question, quoted verbatim.\n\n**From the abstracts**\n\n${fromAbstracts.map(sentenceLine).join('')}`,
      );
      if (event) yield event;
    }

    const documents = await this.documentsToRead(request.tenantId, sources, signal);
    const fullTextEvidence: Evidence[] = [];
    if (documents.length > 0 && this.tools.fullText) {
      const reader = this.tools.fullText;
      yield {
        type: 'progress',
        text: `Reading the full text of: ${documents.map((source) => plainLine(source.paper.title, 80)).join('; ')}\n`,
      };
      const outcomes = await Promise.allSettled(
        documents.map((source) =>
          withDeadline(
            (inner) =>
              readForQuestion(reader, request.tenantId, source.paper.pdf_id as string, question, {
                topK: 3,
                scanLimit,
                signal: inner,
                localOnly: this.options.readRemotePdfs === false,
              }),
            budgets.toolTimeoutMs,
            signal,
            `Reading ${source.label}`,
          ),
        ),
      );
      request.signal.throwIfAborted();
      for (const [index, outcome] of outcomes.entries()) {
        const source = documents[index] as RetrievedSource;
        if (outcome.status === 'rejected') {
          yield { type: 'progress', text: `Could not read ${source.label}: ${messageOf(outcome.reason)}\n` };
          continue;
        }
        for (const chunk of outcome.value.chunks) {
          for (const url of figureUrls(chunk.img_mds)) ledger.addFigure(url);
          const evidence: Evidence = {
            source,
            text: withoutBibliography(chunk.chunk),
            kind: 'fulltext',
            chunk: chunk.chunk_num,
          };
          ledger.addEvidence(evidence);
          fullTextEvidence.push(evidence);
        }
      }
      const fromFullTexts = await anchorSentences(
        reader,
        request.tenantId,
        selectSentences(question, ofRelated(fullTextEvidence), { max: 5, perSource: 3, exclude: used }),
      );
      if (fromFullTexts.length > 0) {
        const lead =
          fromAbstracts.length > 0
            ? '\n'
            : 'Passages of the retrieved papers that bear on the question, quoted verbatim.\n\n';
        const event = emit(`${lead}**From the full texts**\n\n${fromFullTexts.map(sentenceLine).join('')}`);
        if (event) yield event;
      }
    }

    // Whether any related record answers (decision 0064): the embedding model's judgment, or the
    // term rule alone when there is no model or it fails.
    const { answering, related } = await new AnswerabilityJudge(
      this.options.embeddings,
      undefined,
      signal,
    ).answering(question, sources, ledger.evidence);
    const searched = keywords.join(', ') || shortened(question);
    if (answer.length === 0) {
      const text =
        sources.length === 0
          ? nothingFound(question, keywords, found?.result)
          : answering.length === 0
            ? notAnsweredText(searched, sources, related.length > 0)
            : `No sentence of the retrieved papers answers the question closely. The closest records:\n\n${related
                .slice(0, 5)
                .map((source) => `- ${citationMarkdown(source)} — ${plainLine(source.paper.title)}\n`)
                .join('')}`;
      const event = emit(text);
      if (event) yield event;
    } else if (sources.length > 0 && answering.length === 0) {
      // Sentences were quoted from records on the subject, none of which answers the question.
      const event = emit(notAboutItNote([searched], true));
      if (event) yield event;
    }
    const rest = filter.end();
    answer += rest;
    if (rest) yield { type: 'content', text: rest };
    const references = referencesSection(filter.report.cited);
    if (references) {
      answer += references;
      yield { type: 'content', text: references };
    }
    yield {
      type: 'done',
      summary: {
        mode: 'extractive',
        usage: {
          promptTokens: estimateTokens(request.messages.map((message) => message.content).join('\n')),
          completionTokens: estimateTokens(answer),
        },
        steps: 0,
        sources: ledger.size,
        citations: filter.report,
        ledger,
      },
    };
  }

  /**
   * The records whose full text is read: the first `maxDocuments` with a `pdf_id`. Offline
   * (`readRemotePdfs: false`) only what can be read here counts — PDFs stored in projects and
   * remote PDFs whose parse is cached — so no host is tried and no failure is reported for them.
   */
  private async documentsToRead(
    tenantId: string,
    sources: RetrievedSource[],
    signal: AbortSignal,
  ): Promise<RetrievedSource[]> {
    const withText = sources.filter((source) => source.paper.pdf_id !== undefined);
    const reader = this.tools.fullText;
    if (this.options.readRemotePdfs !== false || !reader) return withText.slice(0, maxDocuments);
    const here = await Promise.all(
      withText.map((source) => readableHere(reader, tenantId, source.paper.pdf_id as string, signal)),
    );
    return withText.filter((_, index) => here[index]).slice(0, maxDocuments);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failed search step becomes a progress note; a client abort stops the run. */
function failed(error: unknown, notes: string[], clientSignal: AbortSignal): undefined {
  clientSignal.throwIfAborted();
  notes.push(`A step failed: ${messageOf(error)}`);
  return undefined;
}
