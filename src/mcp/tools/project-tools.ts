import { z } from 'zod';
import { citationFormats } from '../../services/export/citation-service.js';
import { mcpHints, toolCall } from '../mcp-hints.js';
import { guarded, jsonResult, type ToolModule, textResult } from '../tool-kit.js';
import { compactPaper } from './compact.js';
import { asArgumentError, projectOf, projectShape, strictInput } from './project-params.js';

const projectName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const aliasNote = ' (`project`, its old name, is still accepted.)';

/** Projects: create, list, open, export. Projects are named by project_id or project_name, as in REST. */
export const projectTools: ToolModule = (server, context) => {
  const { services, tenantId } = context;

  server.registerTool(
    'create_project',
    {
      title: 'Create a project',
      description:
        'Creates a project: a named collection of papers (a reading list) for this user. Papers are then filed in it with add_to_project. The default project "gpt" always exists and need not be created.',
      inputSchema: strictInput({
        project_name: projectName.describe('Name of the new project, e.g. "CRISPR delivery".'),
      }),
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ project_name }) =>
      guarded(context, async () => {
        const project = await services.projects.create(tenantId, project_name);
        const add = toolCall('add_to_project', { project_id: project.id, paper_id: '<TYPE>:<value>' });
        return jsonResult(project, `Add papers with ${add}, or with pdf_url instead of paper_id.`);
      }),
  );

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description:
        'Lists the user\'s projects (id, name, created_at, paper_count), the default project "gpt" included.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(context, async () => {
        const projects = await services.projects.list(tenantId);
        return jsonResult(
          projects,
          `Open one with ${toolCall('get_project', { project_id: '<id>' })} to see its papers and their pdf_id.`,
        );
      }),
  );

  server.registerTool(
    'get_project',
    {
      title: 'Open a project',
      description: `The papers filed in a project: title, authors, year, DOI, entry_id and, when the PDF is stored, pdf_id (usable with read_full_text and ask_pdf).${aliasNote}`,
      inputSchema: strictInput(projectShape),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(context, async () => {
        const { ref, param } = projectOf(args);
        const found = await services.projects.get(tenantId, ref).catch((error: unknown) => {
          throw asArgumentError(error, param);
        });
        const papers = found.papers.map((paper) => compactPaper(paper));
        // A stored PDF (PROJ:) reads offline; a PDF_URL: one only when its url answers.
        const stored = papers.find((paper) => paper.pdf_id?.startsWith('PROJ:'))?.pdf_id;
        return jsonResult(
          { id: found.id, name: found.name, paper_count: found.paper_count, papers },
          stored
            ? `Read a paper by its pdf_id, e.g. ${mcpHints.document(stored)}.`
            : `No paper of this project has a stored PDF yet; add one with ${toolCall('add_to_project', { project_id: found.id, pdf_url: '<url of the PDF>' })}.`,
        );
      }),
  );

  server.registerTool(
    'export_project',
    {
      title: 'Export a project as BibTeX, RIS or CSL-JSON',
      description: `The papers of a project as a reference-manager file (BibTeX for LaTeX/JabRef, RIS for EndNote/Zotero/Mendeley, CSL-JSON for Pandoc/Zotero), built from the stored metadata.${aliasNote}`,
      inputSchema: strictInput({
        ...projectShape,
        format: z
          .enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' })
          .default('bibtex')
          .describe('bibtex (default), ris, or csl.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(context, async () => {
        const { ref, param } = projectOf(args);
        const exported = await services.citations
          .exportProject(tenantId, ref, args.format)
          .catch((error: unknown) => {
            throw asArgumentError(error, param);
          });
        return textResult(exported.content || `Project "${ref}" has no papers to export.`);
      }),
  );
};
