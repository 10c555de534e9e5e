import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { parsePaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { ResearchTools } from './agent-types.js';
import { agentSearchRequest, searchLibrary, searchWithRelaxation, withDeadline } from './retrieval.js';
import type { AgentTool, ToolContext } from './tool-call.js';
import type { ToolAccess } from './tool-gate.js';
import { documentOf, renderChunks, renderPapers, renderSearch, type ToolLimits } from './tool-results.js';

/**
 * How much the tools feed back to the model. `full` suits a hosted model; `compact` a small local
 * model on CPU, which reads ~100 prompt tokens a second: fewer tools (search, your projects, ask a
 * PDF), shorter descriptions and arguments, and capped results (docs/decisions/0035-local-chat-model.md).
 */
export type ToolSet = 'full' | 'compact';

const limitsOf: Record<ToolSet, ToolLimits> = {
  full: { papers: 8, abstractChars: 1500, chunkChars: 8000, askChunks: 2 },
  compact: { papers: 4, abstractChars: 1200, chunkChars: 1500, askChunks: 2 },
};

const searchArguments = z.object({
  keywords: z.string().min(1).max(300).describe('2-6 specific English keywords.').optional(),
  query: z.string().min(1).max(1000).describe('The question in natural language.').optional(),
  start_year: z.number().int().optional().describe('First publication year, inclusive.'),
  end_year: z.number().int().optional().describe('Last publication year, inclusive.'),
  sort: z.enum(['relevance', 'cited_by_count', 'publication_date']).optional(),
});
/** The compact set's search: the keywords only (a grammar writes every key, so fewer keys, fewer tokens). */
const compactSearchArguments = z.object({
  keywords: z.string().min(1).max(300).describe('2-6 specific English keywords.'),
});
const documentArguments = z.object({
  pdf_id: z.string().min(1).max(2000).describe('The pdf_id of a record (PDF_URL:… or PROJ:…).'),
});

function tool<S extends z.ZodObject>(
  name: string,
  description: string,
  schema: S,
  describe: (args: z.output<S>) => string,
  run: (args: z.output<S>, context: ToolContext) => Promise<string>,
  access?: (args: z.output<S>, context: ToolContext) => ToolAccess,
): { name: string; schema: S; tool: AgentTool } {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
  return {
    name,
    schema,
    tool: {
      definition: { name, description, parameters },
      describe: describe as (args: never) => string,
      ...(access ? { access: access as (args: never, context: ToolContext) => ToolAccess } : {}),
      // Each call runs within the tool timeout: its services get a signal that ends at it.
      run: ((args: z.output<S>, context: ToolContext) =>
        withDeadline(
          (signal) => run(args, { ...context, signal }),
          context.timeoutMs,
          context.signal,
          name,
        )) as (args: never, context: ToolContext) => Promise<string>,
    },
  };
}

/**
 * The tools offered to the model: one per service that is present (`full`), or the three a small
 * model uses — search, your projects, ask a PDF — with capped results (`compact`).
 */
export function createAgentTools(
  services: ResearchTools,
  set: ToolSet = 'full',
): Map<string, { schema: z.ZodObject; tool: AgentTool }> {
  const tools: Array<{ name: string; schema: z.ZodObject; tool: AgentTool }> = [];
  const { search, fullText, library, projects, literatureMap } = services;
  const limits = limitsOf[set];
  const compact = set === 'compact';
  if (search && compact) {
    tools.push(
      tool(
        'search_papers',
        'Search scholarly papers by keywords. Returns records with their citation, abstract and pdf_id.',
        compactSearchArguments,
        (args) => `Searching papers: ${args.keywords}`,
        async (args, context) => {
          // The words rank the records (BM25); requiring all of them only when that finds nothing.
          const { result } = await searchWithRelaxation(search, args.keywords, args.keywords.split(/\s+/), {
            signal: context.signal,
            limit: limits.papers,
          });
          return renderSearch(result, context, limits);
        },
      ),
    );
  } else if (search) {
    tools.push(
      tool(
        'search_papers',
        'Search scholarly papers. Returns records with title, abstract, year, citation to use, and pdf_id when the full text is readable.',
        searchArguments,
        (args) => `Searching papers: ${args.keywords ?? args.query ?? ''}`,
        async (args, context) => {
          const result = await search.searchPapers(toSearchRequest(args, limits.papers), {
            signal: context.signal,
          });
          return renderSearch(result, context, limits);
        },
      ),
      tool(
        'search_patents',
        'Search patents by 2-6 keywords. Returns patent records (title, abstract, inventors, number).',
        searchArguments,
        (args) => `Searching patents: ${args.keywords ?? args.query ?? ''}`,
        async (args, context) => {
          const result = await search.searchPatents(toSearchRequest(args, limits.papers), {
            signal: context.signal,
          });
          return renderSearch(result, context, limits);
        },
      ),
    );
  }
  if (projects) {
    tools.push(
      tool(
        'search_my_library',
        "Search the papers in the user's own projects (uploaded PDFs and saved papers).",
        z.object({ query: z.string().min(1).max(1000).describe('What to look for.') }),
        (args) => `Searching your projects: ${args.query}`,
        async (args, context) => {
          const papers = await searchLibrary(projects, context.tenantId, args.query, {
            limit: Math.min(5, limits.papers),
            signal: context.signal,
            ...(fullText ? { fullText } : {}),
          });
          return renderSearch({ papers, total: papers.length, nextOffset: null, hint: '' }, context, limits);
        },
      ),
    );
  }
  if (fullText && !compact) {
    tools.push(
      tool(
        'read_full_text',
        'Read one numbered chunk (from 1) of the full text of a record with a pdf_id.',
        documentArguments.extend({
          chunk: z.number().int().min(1).max(10_000).describe('Chunk number, from 1.'),
        }),
        (args) => `Reading chunk ${args.chunk} of ${args.pdf_id}`,
        async (args, context) => {
          const result = await fullText.readChunk(
            context.tenantId,
            documentOf(args.pdf_id, context),
            args.chunk,
            { signal: context.signal },
          );
          return renderChunks(documentOf(args.pdf_id, context), result, context, limits);
        },
        (args, context) => ({ documents: [documentOf(args.pdf_id, context)] }),
      ),
    );
  }
  if (fullText) {
    /** What ask_pdf ranks by: the compact set adds the user's question to the model's. */
    const rankedBy = (question: string, context: ToolContext) => {
      const user = context.userQuestion?.replace(/\s+/g, ' ').trim();
      if (!compact || !user || user.toLowerCase().includes(question.trim().toLowerCase())) return question;
      return `${user}\n${question}`.slice(0, 2000);
    };
    tools.push(
      tool(
        'ask_pdf',
        compact
          ? 'Ask a question of the full text of a record that has a pdf_id.'
          : 'Ask a question of the full text of a record with a pdf_id: returns the most relevant chunks.',
        documentArguments.extend({
          question: z.string().min(1).max(1000).describe('The question, in English.'),
        }),
        (args) => `Asking ${args.pdf_id}: ${args.question}`,
        async (args, context) => {
          const result = await fullText.ask(
            context.tenantId,
            documentOf(args.pdf_id, context),
            rankedBy(args.question, context),
            {
              topK: limits.askChunks,
              signal: context.signal,
            },
          );
          return renderChunks(documentOf(args.pdf_id, context), result, context, limits);
        },
        (args, context) => ({ documents: [documentOf(args.pdf_id, context)] }),
      ),
    );
  }
  if (library && !compact) {
    tools.push(
      tool(
        'add_to_project',
        'Add a paper to the user\'s project (default project "gpt"), by identifier (DOI:…, ARXIV:…, PMID:…) or PDF url. Only when the user asks to save papers.',
        z.object({
          paper_id: z.string().max(300).optional().describe('<TYPE>:<value>, e.g. DOI:10.1000/xyz'),
          pdf_url: z.string().max(2000).optional().describe('http(s) url of a PDF'),
          project_name: z.string().max(200).optional(),
        }),
        (args) => `Adding ${args.paper_id ?? args.pdf_url ?? '?'} to project ${args.project_name ?? 'gpt'}`,
        async (args, context) => {
          // As the HTTP route and the MCP tool do: two inputs are ambiguous, so neither is used.
          if (args.paper_id && args.pdf_url) {
            throw new AppError('invalid_request', 'Give paper_id or pdf_url, not both', {
              param: 'paper_id',
            });
          }
          const input = args.paper_id
            ? { kind: 'identifier' as const, identifier: parsePaperIdentifier(args.paper_id, 'paper_id') }
            : args.pdf_url
              ? { kind: 'url' as const, url: args.pdf_url }
              : undefined;
          if (!input)
            throw new AppError('invalid_request', 'Give paper_id or pdf_url', { param: 'paper_id' });
          const added = await library.add(context.tenantId, { projectName: args.project_name }, input, {
            signal: context.signal,
          });
          return `Added ${added.length} record(s) to project "${args.project_name ?? 'gpt'}".\n${renderPapers(added, context, limits)}`;
        },
        // It files papers: only when the user asked, and only papers the run was given or found.
        (args) => ({
          changesProjects: { projectName: args.project_name },
          ...(args.paper_id ? { identifiers: [parsePaperIdentifier(args.paper_id, 'paper_id')] } : {}),
          ...(args.pdf_url ? { documents: [args.pdf_url] } : {}),
        }),
      ),
    );
  }
  if (literatureMap && !compact) {
    tools.push(
      tool(
        'literature_map',
        'Papers around one paper: the papers it cites (references), papers citing it (citations) and related papers.',
        z.object({
          paper_id: z
            .string()
            .min(3)
            .max(300)
            .describe('<TYPE>:<value>, e.g. DOI:10.1000/xyz or ARXIV:2101.00001'),
        }),
        (args) => `Mapping the literature around ${args.paper_id}`,
        async (args, context) => {
          const identifier = parsePaperIdentifier(args.paper_id, 'paper_id');
          const map = await literatureMap.map(identifier, {
            tenantId: context.tenantId,
            limit: 5,
            signal: context.signal,
          });
          const section = (name: string, papers: Paper[]) =>
            `## ${name} (${papers.length})\n${papers.length ? renderPapers(papers, context, limits) : 'none found'}`;
          return [
            `The paper:\n${renderPapers([map.paper], context, limits)}`,
            section('References (papers it cites)', map.references),
            section('Citations (papers citing it)', map.citations),
            section('Related papers', map.related),
          ].join('\n\n');
        },
        (args) => ({ identifiers: [parsePaperIdentifier(args.paper_id, 'paper_id')] }),
      ),
    );
  }
  return new Map(tools.map((entry) => [entry.name, { schema: entry.schema, tool: entry.tool }]));
}

function toSearchRequest(args: z.output<typeof searchArguments>, limit: number) {
  if (!args.keywords && !args.query)
    throw new AppError('invalid_request', 'Give keywords or query', { param: 'keywords' });
  return agentSearchRequest({
    ...(args.keywords ? { keywords: args.keywords } : {}),
    ...(args.query ? { query: args.query } : {}),
    ...(args.start_year ? { startYear: args.start_year } : {}),
    ...(args.end_year ? { endYear: args.end_year } : {}),
    ...(args.sort ? { sort: args.sort } : {}),
    limit,
  });
}
