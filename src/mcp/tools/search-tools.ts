import { z } from 'zod';
import { type SearchRequest, type SearchResult, sortOrders } from '../../domain/search.js';
import type { PaperSearch } from '../../services/services.js';
import { mcpHints, toolCall } from '../mcp-hints.js';
import { guarded, jsonResult, type ToolModule } from '../tool-kit.js';
import { type CompactPaper, compactPaper } from './compact.js';

/** Adds `answer` (what each paper says about the query) to records, when generative mode is on. */
export interface PaperAnswerer {
  annotate(
    papers: SearchResult['papers'],
    query: string,
    options?: { signal?: AbortSignal },
  ): Promise<SearchResult['papers']>;
}

const searchShape = {
  query: z
    .string()
    .trim()
    .max(1000)
    .optional()
    .describe('The question in natural language, e.g. "Which tools speed up event annotation?"'),
  keywords: z
    .string()
    .trim()
    .max(500)
    .optional()
    .describe(
      '2–6 English keywords that should appear, e.g. "event annotation tool". Give query, keywords, or both.',
    ),
  sort: z
    .enum(sortOrders)
    .default('relevance')
    .describe('relevance (default), cited_by_count, or publication_date (newest first).'),
  peer_reviewed_only: z
    .boolean()
    .default(true)
    .describe('Only journal articles and conference papers (default true).'),
  start_year: z.number().int().min(1000).max(2100).optional().describe('First publication year, inclusive.'),
  end_year: z.number().int().min(1000).max(2100).optional().describe('Last publication year, inclusive.'),
  offset: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(0)
    .describe('Skip this many results (paging; see the hint).'),
  limit: z.number().int().min(1).max(50).default(10).describe('Results per page (default 10).'),
};

type SearchArgs = {
  query?: string | undefined;
  keywords?: string | undefined;
  full_user_prompt?: string | undefined;
  sort: SearchRequest['sort'];
  peer_reviewed_only: boolean;
  start_year?: number | undefined;
  end_year?: number | undefined;
  offset: number;
  limit: number;
};

/** The service validates the request (empty search, year order) with the same messages as REST. */
function requestOf(args: SearchArgs): SearchRequest {
  return {
    ...(args.keywords ? { keywords: args.keywords } : {}),
    ...(args.query ? { query: args.query } : {}),
    ...(args.full_user_prompt ? { fullUserPrompt: args.full_user_prompt } : {}),
    sort: args.sort,
    peerReviewedOnly: args.peer_reviewed_only,
    ...(args.start_year !== undefined ? { startYear: args.start_year } : {}),
    ...(args.end_year !== undefined ? { endYear: args.end_year } : {}),
    offset: args.offset,
    limit: args.limit,
  };
}

/**
 * A page of results with the service's hint (paging, sources; phrased in tool calls) and the tool
 * calls that take one of these papers further, with the first paper's own identifiers filled in.
 */
function resultOf(result: SearchResult, abstractChars: number) {
  const papers = result.papers.map((paper) => compactPaper(paper, { abstractChars }));
  return jsonResult(
    { total: result.total, next_offset: result.nextOffset, papers },
    [result.hint, ...nextSteps(papers, result.hint)].filter(Boolean).join(' '),
  );
}

function nextSteps(papers: CompactPaper[], hint: string): string[] {
  const steps: string[] = [];
  const readable = papers.find((paper) => paper.pdf_id)?.pdf_id;
  // The local index's hint says how to read already; the federated one does not.
  if (readable && !hint.includes('read_full_text(')) {
    steps.push(
      `Read a paper with ${toolCall('read_full_text', { pdf_id: readable })} (its pdf_id), or ask it with ${toolCall('ask_pdf', { pdf_id: readable, question: '…' })}.`,
    );
  }
  const known = papers.find((paper) => paper.paper_id)?.paper_id;
  if (known) {
    steps.push(
      `Keep a paper (its PDF is fetched when open) with ${toolCall('add_to_project', { paper_id: known })} (its paper_id).`,
    );
  }
  return steps;
}

/** search_papers, fast_paper_search and search_patents. */
export function searchTools(search: PaperSearch, answers?: PaperAnswerer): ToolModule {
  return (server, context) => {
    server.registerTool(
      'search_papers',
      {
        title: 'Search scholarly papers',
        description:
          'Searches papers (local index and enabled scholarly sources) and returns metadata and abstracts: title, authors, year, venue, DOI, url, citation count, and pdf_id when the full text can be read. With generative_mode, each paper also gets an "answer": what it says about the query, with a citation.',
        inputSchema: {
          ...searchShape,
          generative_mode: z
            .boolean()
            .default(false)
            .describe('Add a per-paper answer to the query (slower).'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (args, extra) =>
        guarded(context, async () => {
          const request = requestOf(args);
          const result = await search.searchPapers(request, { signal: extra.signal, hints: mcpHints });
          if (args.generative_mode && answers) {
            const question = request.query ?? request.fullUserPrompt ?? request.keywords ?? '';
            result.papers = await answers.annotate(result.papers, question, {
              signal: extra.signal,
            });
          }
          return resultOf(result, 600);
        }),
    );

    server.registerTool(
      'fast_paper_search',
      {
        title: 'Fast paper search',
        description:
          'The quickest paper search: same filters as search_papers, no generated answers, short abstracts. Use it to scan a topic before reading.',
        inputSchema: searchShape,
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (args, extra) =>
        guarded(context, async () =>
          resultOf(
            await search.searchPapers(requestOf(args), { signal: extra.signal, hints: mcpHints }),
            300,
          ),
        ),
    );

    server.registerTool(
      'search_patents',
      {
        title: 'Search patents',
        description:
          'Searches patents by 2–6 keywords (and the question): title, inventors, assignees, patent number, dates, abstract. To find one specific patent, put its title in quotes in query.',
        inputSchema: {
          ...searchShape,
          full_user_prompt: z
            .string()
            .trim()
            .max(4000)
            .optional()
            .describe("The user's whole request, quoted."),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (args, extra) =>
        guarded(context, async () =>
          resultOf(
            await search.searchPatents(requestOf(args), { signal: extra.signal, hints: mcpHints }),
            600,
          ),
        ),
    );
  };
}
