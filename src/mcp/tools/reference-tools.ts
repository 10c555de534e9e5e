import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import type { CitationGraphService } from '../../services/references/citation-graph.js';
import type { ReferenceService } from '../../services/references/reference-service.js';
import { parseReferenceText, referenceTextLimits } from '../../services/references/reference-text.js';
import { mcpHints } from '../mcp-hints.js';
import { guarded, jsonResult, type ToolModule } from '../tool-kit.js';
import { compactPaper } from './compact.js';
import { projectOf, projectShape, strictInput } from './project-params.js';

/**
 * get_references, get_citation_contexts, verify_references, parse_references and get_project_graph
 * (the REST names, decision 0026).
 */
export function referenceTools(references: ReferenceService, graph?: CitationGraphService): ToolModule {
  return (server, context) => {
    if (graph) {
      server.registerTool(
        'get_project_graph',
        {
          title: "A project's citation graph",
          description:
            'Which papers of a project cite each other (edges between entry ids) and the works its papers cite most that the project lacks (missing: title, how many cite it, the linked paper_id to add), read from the reference lists of its stored PDFs.',
          inputSchema: strictInput({
            ...projectShape,
            min_citing: z
              .number()
              .int()
              .min(1)
              .max(100)
              .default(2)
              .describe('A missing work is cited by at least this many papers of the project.'),
            limit: z.number().int().min(1).max(200).default(20).describe('Missing works listed.'),
          }),
          annotations: { readOnlyHint: true, openWorldHint: false },
        },
        ({ min_citing, limit, ...args }, extra) =>
          guarded(context, async () => {
            const { ref, param } = projectOf(args);
            const result = await graph.projectGraph(
              context.tenantId,
              { project: ref, param },
              { minCiting: min_citing, limit, signal: extra.signal, hints: mcpHints },
            );
            return jsonResult(
              {
                project: result.project,
                nodes: result.nodes.map(({ paper, ...node }) => ({ ...node, paper: compactPaper(paper) })),
                edges: result.edges.map(({ reference: _reference, ...edge }) => edge),
                missing: result.missing.map(({ paper, ...work }) => ({
                  ...work,
                  paper: paper ? compactPaper(paper) : null,
                })),
              },
              result.hint,
            );
          }),
      );
    }

    server.registerTool(
      'get_references',
      {
        title: "A paper's reference list, linked",
        description:
          'Parses the reference list of a stored or fetched PDF into entries (number, authors, title, year, venue, DOI, arXiv id), links each to a paper of the local index (or, online, of the federated sources) when title, year and first author agree (paper_id, match_confidence), and gives the sentences of the PDF that cite it (chunk, page).',
        inputSchema: {
          pdf_id: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .max(4000)
            .describe('The document: PROJ:<project>/<document> (a stored PDF), PDF_URL:<url>, or a PDF url.'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ pdf_id }, extra) =>
        guarded(context, async () => {
          const result = await references.references(context.tenantId, pdf_id, {
            param: 'pdf_id',
            signal: extra.signal,
            hints: mcpHints,
          });
          const compact = result.references.map(({ paper, ...reference }) => ({
            ...reference,
            paper: paper ? compactPaper(paper) : null,
          }));
          return jsonResult({ pdf_id: result.pdf_id, style: result.style, references: compact }, result.hint);
        }),
    );

    server.registerTool(
      'get_citation_contexts',
      {
        title: 'Where your PDFs cite a paper',
        description:
          'The sentences, in the PDFs stored in your projects, that cite the paper paper_id (DOI:…, ACL:…, ARXIV:…), with the citing PDF, chunk and page of each.',
        inputSchema: {
          paper_id: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .max(300)
            .describe(
              'Typed identifier <TYPE>:<value>, e.g. ACL:2020.acl-main.447 or DOI:10.18653/v1/N19-1423.',
            ),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ paper_id }, extra) =>
        guarded(context, async () => {
          const result = await references.citationContexts(context.tenantId, paper_id, {
            signal: extra.signal,
            hints: mcpHints,
          });
          return jsonResult(
            { paper: result.paper ? compactPaper(result.paper) : null, contexts: result.contexts },
            result.hint,
          );
        }),
    );

    server.registerTool(
      'verify_references',
      {
        title: 'Check a bibliography or a PDF’s references',
        description:
          'Checks every entry of a BibTeX or RIS bibliography (text), a plain-text reference list (text with format "text": one reference per line, a numbered list or a References section), or of a stored PDF’s reference list (pdf_id), against the local index (and the federated sources when online): exists (the matched paper), mismatch (which of year, authors, venue, doi differ), not_found (possibly invented) or preprint_now_published (a preprint whose published version is known: published).',
        inputSchema: {
          text: z
            .string()
            .min(1, 'must not be empty')
            .max(1_000_000)
            .optional()
            .describe('The BibTeX or RIS text; or give pdf_id instead.'),
          format: z
            .enum(['bibtex', 'ris', 'csl', 'text'])
            .optional()
            .describe(
              'bibtex, ris or csl, detected from the text when omitted; text for a plain reference list as pasted from a paper.',
            ),
          pdf_id: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .max(4000)
            .optional()
            .describe(
              'A PDF whose reference list is checked: PROJ:<project>/<document> (a stored PDF), PDF_URL:<url>, or a PDF url.',
            ),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ text, format, pdf_id }, extra) =>
        guarded(context, async () => {
          if (text !== undefined && pdf_id !== undefined) {
            throw invalid('pdf_id', 'Give text (a bibliography) or pdf_id (a PDF), not both');
          }
          if (text === undefined && pdf_id === undefined) {
            throw invalid('text', 'Give text (a BibTeX or RIS bibliography) or pdf_id (a stored PDF)');
          }
          const result = await references.verify(
            pdf_id !== undefined
              ? { kind: 'document', pdfRef: pdf_id, param: 'pdf_id' }
              : format === 'text'
                ? { kind: 'text', text: text ?? '', param: 'text' }
                : { kind: 'bibliography', text: text ?? '', format },
            { tenantId: context.tenantId, signal: extra.signal, hints: mcpHints },
          );
          const compact = result.results.map(({ paper, preprint, published, ...entry }) => ({
            ...entry,
            paper: paper ? compactPaper(paper) : null,
            ...(preprint ? { preprint: compactPaper(preprint) } : {}),
            ...(published ? { published: compactPaper(published) } : {}),
          }));
          return jsonResult(
            { ...(result.pdf_id ? { pdf_id: result.pdf_id } : {}), results: compact, counts: result.counts },
            result.hint,
          );
        }),
    );
    server.registerTool(
      'parse_references',
      {
        title: 'Parse a pasted reference list',
        description:
          'Reads a reference list given as text — one reference per line, a numbered or bracketed list, or a References section copied from a paper — into one CSL-JSON item per reference (type, title, author, container-title, issued, volume, issue, page, publisher, DOI, …), in input order, with the parser that reads PDFs’ reference lists. Nothing is stored or looked up; to check the references against the index, use verify_references with format "text".',
        inputSchema: {
          text: z
            .string()
            .min(1, 'must not be empty')
            .max(referenceTextLimits.maxChars)
            .describe('The reference list as text.'),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ text }) =>
        guarded(context, async () => {
          const { entries } = parseReferenceText(text);
          return jsonResult(
            { entries },
            `${entries.length} reference${entries.length === 1 ? '' : 's'} parsed; check them with verify_references (format "text").`,
          );
        }),
    );
  };
}
