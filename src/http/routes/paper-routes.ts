import { z } from 'zod';
import { parsePaperIdentifier } from '../../domain/identifiers.js';
import { type Paper, paperSchema } from '../../domain/paper.js';
import type { SourceReport } from '../../domain/search.js';
import { sourcesHeader, sourcesHint } from '../../services/federation/source-monitor.js';
import { principalOf } from '../auth.js';
import { queryInt, queryText } from '../query.js';
import { errorEnvelopeSchema, errorResponses, paperIdPattern } from '../schemas.js';
import { installSourceMetrics } from '../source-metrics.js';
import { abortOnClientClose } from './client-abort.js';
import type { RouteModule } from './route-context.js';

export const sourceReportSchema = z
  .object({
    source: z.string(),
    status: z.enum(['ok', 'failed', 'skipped', 'timeout']),
    count: z.number().int().optional(),
    durationMs: z.number().optional(),
    message: z.string().optional(),
  })
  .meta({ id: 'SourceReport' });

/**
 * The pattern is declared for clients and generators; parsePaperIdentifier enforces it (and the value's
 * own syntax) with the messages the MCP tools give too.
 */
const paperIdParameter = queryText(300).meta({
  pattern: paperIdPattern.source,
  description:
    'Typed identifier <TYPE>:<value>, TYPE one of DOI, PMID, SS_ID, ARXIV, MAG, ACL, PMCID (e.g. DOI:10.1038/nature14539, ARXIV:1706.03762).',
});

const paperMetadataSchema = paperSchema
  .extend({ hint: z.string().describe('What an agent can do next (read the PDF, add to a project, …).') })
  .meta({ id: 'PaperMetadata' });

const literatureMapSchema = z
  .object({
    paper: paperSchema,
    references: z.array(paperSchema).describe('Papers it cites.'),
    citations: z.array(paperSchema).describe('Papers citing it.'),
    related: z.array(paperSchema).describe('Related papers (recommendations; local title matches).'),
    hint: z.string(),
    sources: z.array(sourceReportSchema),
  })
  .meta({ id: 'LiteratureMap' });

const upstreamErrors = {
  502: errorEnvelopeSchema.describe('Every source failed.'),
  504: errorEnvelopeSchema.describe('Sources did not answer in time.'),
};

function paperHint(paper: Paper, reports: SourceReport[], paperId: string): string {
  const read = paper.pdf_id
    ? `Read its full text with /api/fulltext?pdf_id=${paper.pdf_id} (chunk by chunk), or keep it with /api/add_to_project?paper_id=${paperId}.`
    : `No open-access PDF is known for it; /api/add_to_project?paper_id=${paperId} stores its metadata only.`;
  return `${read} Related work: /api/literature_map?paper_id=${paperId}. ${sourcesHint(reports)}`.trim();
}

/**
 * Paper metadata by identifier and the literature map (ScholarAI's get_paper_metadata and
 * literature_map). Both say in `x-alexandria-sources` which upstream sources answered.
 */
export const paperRoutes: RouteModule = (app, { services, metrics }) => {
  const unsubscribe = installSourceMetrics(metrics.registry, services.sourceMonitor);
  app.addHook('onClose', async () => unsubscribe());

  app.get(
    '/api/paper',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Paper metadata by identifier',
        description:
          'Looks the paper up in the local index, then in the enabled upstream sources (OpenAlex, Semantic Scholar, Crossref, Europe PMC, PubMed, arXiv), merging what they know: identifiers, citation count, Semantic Scholar id and an open-access PDF (`pdf_id`) when one exists.',
        tags: ['papers'],
        querystring: z.object({ paper_id: paperIdParameter }),
        response: { 200: paperMetadataSchema, ...errorResponses, ...upstreamErrors },
      },
    },
    async (request, reply) => {
      const identifier = parsePaperIdentifier(request.query.paper_id, 'paper_id');
      const { paper, sources } = await services.papers.resolve(identifier, {
        signal: abortOnClientClose(reply),
      });
      if (sources.length > 0) reply.header('x-alexandria-sources', sourcesHeader(sources));
      if (!paper) {
        const missing = sources.filter((report) => report.status !== 'ok').map((report) => report.source);
        const message = `No index or source knows ${identifier.type}:${identifier.value}${
          missing.length > 0 ? ` (not answering: ${missing.join(', ')})` : ''
        }`;
        return reply.code(404).send({
          error: { message, type: 'not_found_error', code: 'not_found' as const, param: 'paper_id' },
        });
      }
      return { ...paper, hint: paperHint(paper, sources, `${identifier.type}:${identifier.value}`) };
    },
  );

  app.get(
    '/api/literature_map',
    {
      config: { access: 'key' },
      schema: {
        summary: 'References, citations and related papers',
        description:
          'The papers around one paper: what it cites, what cites it, and related papers, merged across the sources that have a citation graph (Semantic Scholar, OpenAlex), the reference lists of your stored PDFs (also offline) and, for related papers, the local index.',
        tags: ['papers'],
        querystring: z.object({
          paper_id: paperIdParameter,
          limit: queryInt({ min: 1, max: 50 })
            .optional()
            .describe('Papers per list (default 10, at most 50).'),
        }),
        response: { 200: literatureMapSchema, ...errorResponses, ...upstreamErrors },
      },
    },
    async (request, reply) => {
      const identifier = parsePaperIdentifier(request.query.paper_id, 'paper_id');
      const map = await services.papers.map(identifier, {
        tenantId: principalOf(request).tenantId,
        limit: request.query.limit ?? 10,
        signal: abortOnClientClose(reply),
      });
      if (map.sources.length > 0) reply.header('x-alexandria-sources', sourcesHeader(map.sources));
      return map;
    },
  );
};
