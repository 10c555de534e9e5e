import type { FullTextResult } from '../../src/domain/fulltext.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { SearchRequest, SearchResult } from '../../src/domain/search.js';
import type { ProjectSelector } from '../../src/services/project-service.js';
import type {
  AddPaperInput,
  FullTextReader,
  PaperLibrary,
  PaperSearch,
} from '../../src/services/services.js';

/**
 * Recording fakes of the services the agent uses as tools. They keep every call (with its abort
 * signal) so tests can check what the agent asked for and that aborts reach them.
 */

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal | undefined, onAbort: () => void): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        onAbort();
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export class FakePaperSearch implements PaperSearch {
  readonly calls: Array<{ kind: 'papers' | 'patents'; request: SearchRequest; signal?: AbortSignal }> = [];
  aborted = 0;
  delayMs = 0;
  failWith: Error | undefined;

  constructor(
    public papers: Paper[],
    public patents: Paper[] = [],
  ) {}

  searchPapers(request: SearchRequest, options: { signal?: AbortSignal } = {}): Promise<SearchResult> {
    return this.run('papers', this.papers, request, options.signal);
  }

  searchPatents(request: SearchRequest, options: { signal?: AbortSignal } = {}): Promise<SearchResult> {
    return this.run('patents', this.patents, request, options.signal);
  }

  private async run(
    kind: 'papers' | 'patents',
    records: Paper[],
    request: SearchRequest,
    signal: AbortSignal | undefined,
  ): Promise<SearchResult> {
    this.calls.push({ kind, request, ...(signal ? { signal } : {}) });
    await pause(this.delayMs, signal, () => {
      this.aborted += 1;
    });
    if (this.failWith) throw this.failWith;
    const terms = words(`${request.keywords ?? ''} ${request.query ?? ''}`);
    const scored = records
      .map((paper) => {
        const text = words(`${paper.title} ${paper.abstract ?? ''}`);
        let score = 0;
        for (const term of terms) if (term.length > 3 && text.has(term)) score += 1;
        return { paper, score };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score);
    const page = scored.slice(request.offset, request.offset + request.limit).map((entry) => entry.paper);
    return { papers: page, total: scored.length, nextOffset: null, hint: 'fake search' };
  }
}

export class FakeFullTextReader implements FullTextReader {
  readonly calls: Array<{
    kind: 'read' | 'ask';
    pdfRef: string;
    argument: number | string;
    signal?: AbortSignal;
  }> = [];
  aborted = 0;
  delayMs = 0;

  /** `documents[pdfRef]` = the chunks' texts, in order; `figures[pdfRef][n]` = img_mds of chunk n+1. */
  constructor(
    public documents: Record<string, string[]>,
    public figures: Record<string, string[][]> = {},
  ) {}

  async readChunk(
    _tenantId: string,
    pdfRef: string,
    chunk: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<FullTextResult> {
    this.calls.push({
      kind: 'read',
      pdfRef,
      argument: chunk,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await pause(this.delayMs, options.signal, () => {
      this.aborted += 1;
    });
    const chunks = this.chunksOf(pdfRef);
    const number = Math.min(Math.max(chunk, 1), chunks.length);
    return {
      chunks: [this.chunk(pdfRef, number)],
      total_chunk_num: chunks.length,
      hint: `fake chunk ${number}`,
    };
  }

  async ask(
    _tenantId: string,
    pdfRef: string,
    question: string,
    options: { topK?: number; signal?: AbortSignal } = {},
  ): Promise<FullTextResult> {
    this.calls.push({
      kind: 'ask',
      pdfRef,
      argument: question,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await pause(this.delayMs, options.signal, () => {
      this.aborted += 1;
    });
    const chunks = this.chunksOf(pdfRef);
    const terms = words(question);
    const ranked = chunks
      .map((text, index) => {
        const present = words(text);
        let score = 0;
        for (const term of terms) if (term.length > 3 && present.has(term)) score += 1;
        return { index, score };
      })
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, options.topK ?? 1);
    return {
      chunks: ranked.map((entry) => this.chunk(pdfRef, entry.index + 1)),
      total_chunk_num: chunks.length,
      hint: 'fake ask',
    };
  }

  private chunksOf(pdfRef: string): string[] {
    const chunks = this.documents[pdfRef];
    if (!chunks) throw Object.assign(new Error(`no document ${pdfRef}`), { code: 'not_found' });
    return chunks;
  }

  private chunk(pdfRef: string, number: number) {
    return {
      chunk_num: number,
      chunk: this.chunksOf(pdfRef)[number - 1] ?? '',
      img_mds: this.figures[pdfRef]?.[number - 1] ?? [],
      pdf_url: pdfRef,
    };
  }
}

export class FakePaperLibrary implements PaperLibrary {
  readonly calls: Array<{ tenantId: string; selector: ProjectSelector; input: AddPaperInput }> = [];

  async add(tenantId: string, selector: ProjectSelector, input: AddPaperInput): Promise<Paper[]> {
    this.calls.push({ tenantId, selector, input });
    const title = input.kind === 'identifier' ? `Paper ${input.identifier.value}` : 'Uploaded paper';
    return [{ ...emptyPaper(title), entry_id: `ent_${this.calls.length}` }];
  }
}

/** A paper record with the fields the agent reads. */
export function paper(fields: Partial<Paper> & { title: string }): Paper {
  return { ...emptyPaper(fields.title), ...fields };
}
