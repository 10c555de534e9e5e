import { AppError } from '../domain/errors.js';
import type { Chunk } from '../domain/fulltext.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { ProjectService } from '../services/project-service.js';
import type { FullTextReader, PaperSearch } from '../services/services.js';
import { contentTerms } from '../text/keywords.js';
import { rankPassages } from '../text/sentences.js';

/**
 * Runs `task` with its own deadline inside the run's signal. The deadline holds even when the task
 * ignores its signal: the promise then rejects with a `timeout` AppError and the task is left to
 * finish in the background.
 */
export async function withDeadline<T>(
  task: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  parent: AbortSignal,
  what: string,
): Promise<T> {
  parent.throwIfAborted();
  const controller = new AbortController();
  const signal = AbortSignal.any([parent, controller.signal]);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new AppError('timeout', `${what} took longer than ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([task(signal), expired, aborted]);
  } finally {
    clearTimeout(timer);
    // A listener left on a long-lived parent (the run's composite signal) pins the parent and this
    // call's promises in Node's set of signals kept alive for their listeners: a leak per call.
    if (onAbort) parent.removeEventListener('abort', onAbort);
  }
}

/** A search as the agent makes it: relevance order, preprints included, first page. */
export function agentSearchRequest(fields: Partial<SearchRequest>): SearchRequest {
  return { sort: 'relevance', peerReviewedOnly: false, offset: 0, limit: 10, ...fields };
}

/**
 * Searches with the whole question (its words rank the results, BM25), then — only when nothing
 * matches — with its three most distinctive keywords. Requiring every keyword (what `keywords`
 * means to the search service) was measured too narrow on the 32k-paper bench corpus: six required
 * words left 2 of the relevant records where the question alone ranked the best one first.
 */
export async function searchWithRelaxation(
  search: PaperSearch,
  question: string,
  keywords: string[],
  options: { signal: AbortSignal; limit?: number; patents?: boolean },
): Promise<{ result: SearchResult; request: SearchRequest }> {
  const limit = options.limit ?? 10;
  const attempts: SearchRequest[] = [agentSearchRequest({ query: question, limit })];
  if (keywords.length > 0)
    attempts.push(agentSearchRequest({ keywords: keywords.slice(0, 3).join(' '), limit }));
  let last: { result: SearchResult; request: SearchRequest } | undefined;
  for (const request of attempts) {
    const result = options.patents
      ? await search.searchPatents(request, { signal: options.signal })
      : await search.searchPapers(request, { signal: options.signal });
    last = { result, request };
    if (result.papers.length > 0) return last;
  }
  return last as { result: SearchResult; request: SearchRequest };
}

/** Opening text of stored documents, by document reference (references are content-addressed). */
export type OpeningCache = Map<string, string>;

/**
 * The caller's own papers (every project) that best match the question, by BM25 over title,
 * abstract and — for a paper with a stored PDF but no abstract, whose metadata extraction may have
 * failed ("Untitled document") — the opening of its full text (first chunk, cached). A paper must
 * share at least two terms with the question (or all of them, when it has fewer) to count.
 */
export async function searchLibrary(
  projects: ProjectService,
  tenantId: string,
  question: string,
  options: {
    limit: number;
    maxProjects?: number;
    fullText?: FullTextReader;
    openings?: OpeningCache;
    signal?: AbortSignal;
  },
): Promise<Paper[]> {
  const summaries = (await projects.list(tenantId)).filter((project) => project.paper_count > 0);
  const papers: Paper[] = [];
  const seen = new Set<string>();
  for (const summary of summaries.slice(0, options.maxProjects ?? 50)) {
    const project = await projects.get(tenantId, summary.id);
    for (const paper of project.papers) {
      const key = paper.pdf_id ?? paper.entry_id ?? paper.title;
      if (seen.has(key)) continue;
      seen.add(key);
      papers.push(paper);
    }
  }
  const texts: Array<{ text: string; origin: Paper }> = [];
  for (const paper of papers.slice(0, 500)) {
    let opening = '';
    if (!paper.abstract && paper.pdf_id && options.fullText) {
      opening = await openingOf(options.fullText, tenantId, paper.pdf_id, options);
    }
    texts.push({ text: `${paper.title}. ${paper.abstract ?? ''} ${opening}`, origin: paper });
  }
  const ranked = rankPassages(question, texts);
  const needed = Math.min(2, new Set(contentTerms(question)).size);
  return ranked
    .filter((entry) => entry.matched >= needed)
    .slice(0, options.limit)
    .map((entry) => entry.origin);
}

async function openingOf(
  reader: FullTextReader,
  tenantId: string,
  pdfRef: string,
  options: { openings?: OpeningCache; signal?: AbortSignal },
): Promise<string> {
  const key = `${tenantId}\u0000${pdfRef}`;
  const known = options.openings?.get(key);
  if (known !== undefined) return known;
  let text = '';
  try {
    const first = await reader.readChunk(
      tenantId,
      pdfRef,
      1,
      options.signal ? { signal: options.signal } : {},
    );
    text = (first.chunks[0]?.chunk ?? '').slice(0, 3000);
  } catch {
    options.signal?.throwIfAborted();
    // An unreadable document is ranked by its metadata alone.
  }
  if (options.openings) {
    if (options.openings.size >= 2000)
      options.openings.delete(options.openings.keys().next().value as string);
    options.openings.set(key, text);
  }
  return text;
}

/**
 * Whether a document can be read without fetching anything: a PDF stored in a project, or a remote
 * PDF whose parse is cached here (a `localOnly` read of its first chunk succeeds). For offline
 * installations, which must not try hosts they cannot reach.
 */
export async function readableHere(
  reader: FullTextReader,
  tenantId: string,
  pdfRef: string,
  signal: AbortSignal,
): Promise<boolean> {
  if (/^PROJ:/i.test(pdfRef.trim())) return true;
  try {
    await reader.readChunk(tenantId, pdfRef, 1, { signal, localOnly: true });
    return true;
  } catch {
    signal.throwIfAborted();
    return false;
  }
}

/** Urls of the figures a chunk's markdown image references point at. */
export function figureUrls(imageMarkdown: string[]): string[] {
  return imageMarkdown.flatMap((markdown) => {
    const match = /\]\(([^)\s]+)/.exec(markdown);
    return match?.[1] ? [match[1]] : [];
  });
}

/**
 * The chunks of a document worth reading for a question: the `topK` that `ask` ranks best (dense +
 * BM25 over passages), plus — for documents of at most `scanLimit` chunks — every other chunk, so
 * that sentence ranking also sees a passage the chunk ranking missed. Chunks come from the parse
 * cache once the document has been asked, so the scan costs reads, not parsing.
 */
export async function readForQuestion(
  reader: FullTextReader,
  tenantId: string,
  pdfRef: string,
  question: string,
  options: { topK: number; scanLimit: number; signal: AbortSignal; localOnly?: boolean },
): Promise<{ chunks: Chunk[]; asked: Set<number>; total: number }> {
  const local = options.localOnly ? { localOnly: true } : {};
  const answer = await reader.ask(tenantId, pdfRef, question, {
    topK: options.topK,
    signal: options.signal,
    ...local,
  });
  const chunks = new Map(answer.chunks.map((chunk) => [chunk.chunk_num, chunk]));
  const asked = new Set(chunks.keys());
  if (answer.total_chunk_num <= options.scanLimit) {
    for (let number = 1; number <= answer.total_chunk_num; number += 1) {
      if (chunks.has(number)) continue;
      options.signal.throwIfAborted();
      const read = await reader.readChunk(tenantId, pdfRef, number, { signal: options.signal, ...local });
      for (const chunk of read.chunks) chunks.set(chunk.chunk_num, chunk);
    }
  }
  return {
    chunks: [...chunks.values()].sort((a, b) => a.chunk_num - b.chunk_num),
    asked,
    total: answer.total_chunk_num,
  };
}
