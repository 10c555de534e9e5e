import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { identifierTypes, parsePaperIdentifier } from '../../domain/identifiers.js';
import type { PaperMetadataService } from '../../services/federation/paper-metadata-service.js';
import { sourcesHint } from '../../services/federation/source-monitor.js';
import { mcpHints, toolCall } from '../mcp-hints.js';
import { guarded, jsonResult, type ToolModule } from '../tool-kit.js';
import { compactPaper } from './compact.js';

const paperId = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(300)
  .describe(
    `Typed identifier <TYPE>:<value>, TYPE one of ${identifierTypes.join(', ')} (e.g. DOI:10.1038/nature14539, ARXIV:1706.03762).`,
  );

/** get_paper_metadata and literature_map (ScholarAI's names), over the metadata service. */
export function paperTools(papers: PaperMetadataService): ToolModule {
  return (server, context) => {
    server.registerTool(
      'get_paper_metadata',
      {
        title: 'Paper metadata by identifier',
        description:
          'Looks a paper up by DOI, arXiv id, PMID, PMCID, Semantic Scholar id, MAG or ACL id, in the local index and the enabled scholarly sources: title, authors, year, venue, abstract, citation count, identifiers, and pdf_id when an open-access PDF is known (then read it with read_full_text).',
        inputSchema: { paper_id: paperId },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ paper_id }, extra) =>
        guarded(context, async () => {
          const identifier = parsePaperIdentifier(paper_id, 'paper_id');
          const { paper, sources } = await papers.resolve(identifier, { signal: extra.signal });
          if (!paper) {
            const missing = sources.filter((report) => report.status !== 'ok').map((report) => report.source);
            throw notFound(
              `No index or source knows ${identifier.type}:${identifier.value}${missing.length > 0 ? ` (not answering: ${missing.join(', ')})` : ''}`,
              'paper_id',
            );
          }
          const typed = `${identifier.type}:${identifier.value}`;
          const keep = toolCall('add_to_project', { paper_id: typed });
          const next = paper.pdf_id
            ? `Read it with ${toolCall('read_full_text', { pdf_id: paper.pdf_id })}, or keep it with ${keep}.`
            : `No open-access PDF is known; ${keep} keeps its metadata.`;
          const related = toolCall('literature_map', { paper_id: typed });
          return jsonResult(
            { ...compactPaper(paper, { abstractChars: 2000 }), identifiers: paper.identifiers ?? {} },
            `${next} Related work: ${related}. ${sourcesHint(sources)}`.trim(),
          );
        }),
    );

    server.registerTool(
      'literature_map',
      {
        title: 'References, citations and related papers',
        description:
          'The papers around one paper: what it cites (references), what cites it (citations) and related papers, merged across the sources with a citation graph. Use it to follow a line of work backwards and forwards.',
        inputSchema: {
          paper_id: paperId,
          limit: z.number().int().min(1).max(50).default(10).describe('Papers per list (default 10).'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ paper_id, limit }, extra) =>
        guarded(context, async () => {
          const identifier = parsePaperIdentifier(paper_id, 'paper_id');
          const map = await papers.map(identifier, {
            tenantId: context.tenantId,
            limit,
            signal: extra.signal,
            hints: mcpHints,
          });
          const list = (items: typeof map.references) => items.map((paper) => compactPaper(paper));
          return jsonResult(
            {
              paper: compactPaper(map.paper),
              references: list(map.references),
              citations: list(map.citations),
              related: list(map.related),
            },
            map.hint,
          );
        }),
    );
  };
}
