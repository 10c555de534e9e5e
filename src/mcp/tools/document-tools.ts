import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import type { FullTextResult } from '../../domain/fulltext.js';
import { parsePaperIdentifier } from '../../domain/identifiers.js';
import type { AddPaperInput, FullTextReader, PaperLibrary } from '../../services/services.js';
import { mcpHints } from '../mcp-hints.js';
import { guarded, jsonResult, type ToolModule, textResult } from '../tool-kit.js';
import { compactPaper } from './compact.js';
import { strictInput } from './project-params.js';

const pdfId = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(4000)
  .describe(
    'The document: a pdf_id from a search or project (PDF_URL:<url> or PROJ:<project>/<document>), or a PDF url.',
  );

/** A chunk as text an LLM reads directly: where it is, the text, its figures, what to do next. */
function chunkText(result: FullTextResult, heading: string): string {
  if (result.chunks.length === 0) return `${heading}\n\n(no text)\n\nHint: ${result.hint}`;
  return result.chunks
    .map((chunk) => {
      const figures = chunk.img_mds.filter((image) => !chunk.chunk.includes(image));
      const passagePages = chunk.passage?.pages ?? [];
      return [
        `${heading.replace('{n}', String(chunk.chunk_num))} of ${result.total_chunk_num} · ${chunk.pdf_url}${pagesNote(chunk.pages)}`,
        ...(chunk.passage
          ? [
              '',
              `Best passage${pagesNote(passagePages, ',')}: “${chunk.passage.text.replace(/\s+/g, ' ').trim()}”`,
            ]
          : []),
        '',
        chunk.chunk.trim(),
        ...(figures.length > 0 ? ['', 'Figures:', ...figures] : []),
      ].join('\n');
    })
    .concat(`Hint: ${result.hint}`)
    .join('\n\n---\n\n');
}

/** ` · page 4` / ` · pages 4–5` (the separator given), or nothing when the pages are unknown. */
function pagesNote(pages: number[] | undefined, separator = ' ·'): string {
  if (!pages || pages.length === 0) return '';
  const first = pages[0] as number;
  const last = pages[pages.length - 1] as number;
  return first === last ? `${separator} page ${first}` : `${separator} pages ${first}–${last}`;
}

/** read_full_text and ask_pdf. */
export function fullTextTools(reader: FullTextReader): ToolModule {
  return (server, context) => {
    server.registerTool(
      'read_full_text',
      {
        title: 'Read a paper, chunk by chunk',
        description:
          "Returns one numbered chunk (a few thousand characters, in reading order, with its figures as markdown images) of a paper's full text, and the total number of chunks. Start at chunk 1 and follow the hint; or use ask_pdf to jump to the chunk that answers a question.",
        inputSchema: {
          pdf_id: pdfId,
          chunk: z
            .number()
            .int()
            .min(0)
            .max(100_000)
            .default(1)
            .describe('Chunk number, from 1 (default 1).'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ pdf_id, chunk }, extra) =>
        guarded(context, async () =>
          textResult(
            chunkText(
              await reader.readChunk(context.tenantId, pdf_id, chunk, {
                signal: extra.signal,
                param: 'pdf_id',
                hints: mcpHints,
              }),
              'Chunk {n}',
            ),
          ),
        ),
    );

    server.registerTool(
      'ask_pdf',
      {
        title: 'Ask a question of a paper',
        description:
          'Finds the chunk of a paper that best answers a question (semantic + keyword search over the full text) and returns it with its number, so the answer can be quoted and cited. Read the neighbouring chunks with read_full_text for context.',
        inputSchema: {
          pdf_id: pdfId,
          question: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .max(2000)
            .describe('The question, in English.'),
          top_k: z
            .number()
            .int()
            .min(1)
            .max(10)
            .default(1)
            .describe('How many chunks to return, best first (default 1).'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ pdf_id, question, top_k }, extra) =>
        guarded(context, async () =>
          textResult(
            chunkText(
              await reader.ask(context.tenantId, pdf_id, question, {
                topK: top_k,
                signal: extra.signal,
                param: 'pdf_id',
                hints: mcpHints,
              }),
              'Best answer: chunk {n}',
            ),
          ),
        ),
    );
  };
}

/** add_to_project: a paper by identifier or PDF url into a project. */
export function libraryTools(library: PaperLibrary): ToolModule {
  return (server, context) => {
    server.registerTool(
      'add_to_project',
      {
        title: 'Add a paper to a project',
        description:
          'Files a paper in one of the user\'s projects (default "gpt"), given a typed identifier (DOI:…, ARXIV:…, PMID:…, PMCID:…, SS_ID:…, MAG:…, ACL:…) or a PDF url. The open-access PDF is fetched and stored when there is one; the hint says whether it was and, if so, the read_full_text call that reads it. Adding the same paper twice keeps one entry.',
        inputSchema: strictInput({
          paper_id: z
            .string()
            .trim()
            .min(1)
            .max(300)
            .optional()
            .describe('Typed identifier, e.g. DOI:10.1093/nar/gkae223.'),
          pdf_url: z.string().trim().min(1).max(4000).optional().describe('A PDF url (http or https).'),
          url: z.string().trim().min(1).max(4000).optional().describe('Same as pdf_url.'),
          project_id: z.string().trim().min(1).max(200).optional().describe('Project id (default "gpt").'),
          project_name: z
            .string()
            .trim()
            .min(1)
            .max(200)
            .optional()
            .describe('Project name; created when it does not exist.'),
        }),
        annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
      },
      ({ paper_id, pdf_url, url, project_id, project_name }, extra) =>
        guarded(context, async () => {
          const added = await library.add(
            context.tenantId,
            { projectId: project_id, projectName: project_name },
            addInput(paper_id, pdf_url, url),
            { signal: extra.signal, hints: mcpHints },
          );
          // The service's hint says what was stored and, only when the PDF was, how to read it.
          const hint = added.map((paper) => paper.hint).find(Boolean);
          return jsonResult(
            added.map((paper) => compactPaper(paper)),
            hint,
          );
        }),
    );
  };
}

/** The one paper an add names, with the REST endpoint's rules (one of paper_id and pdf_url/url). */
function addInput(paperId?: string, pdfUrl?: string, url?: string): AddPaperInput {
  if (pdfUrl && url && pdfUrl !== url) {
    throw invalid('url', 'pdf_url and url are the same parameter; give one of them');
  }
  const location = pdfUrl ?? url;
  if (paperId && location) {
    throw invalid(
      pdfUrl ? 'pdf_url' : 'url',
      'add_to_project files one paper per call: give paper_id or pdf_url, not both',
    );
  }
  if (paperId) return { kind: 'identifier', identifier: parsePaperIdentifier(paperId, 'paper_id') };
  // A pdf_id from a search (PDF_URL:<url>) names the same url.
  if (location) return { kind: 'url', url: location.replace(/^PDF_URL:/i, '').trim() };
  throw invalid('paper_id', 'Nothing to add: give paper_id=<TYPE>:<value> or pdf_url');
}
