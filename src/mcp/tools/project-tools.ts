import { z } from 'zod';
import { citationFormats } from '../../services/citation-service.js';
import { guarded, jsonResult, type ToolModule, textResult } from '../tool-kit.js';
import { compactPaper } from './compact.js';

const projectName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const projectRef = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('Project id or name; "gpt" is the default project every user has.');

/** Projects: create, list, open, export. */
export const projectTools: ToolModule = (server, context) => {
  const { services, tenantId } = context;

  server.registerTool(
    'create_project',
    {
      title: 'Create a project',
      description:
        'Creates a project: a named collection of papers (a reading list) for this user. Papers are then filed in it with add_to_project. The default project "gpt" always exists and need not be created.',
      inputSchema: { project_name: projectName.describe('Name of the new project, e.g. "CRISPR delivery".') },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ project_name }) =>
      guarded(context, async () => {
        const project = await services.projects.create(tenantId, project_name);
        return jsonResult(project, `Add papers with add_to_project using project_id "${project.id}".`);
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
        return jsonResult(projects, 'Open one with get_project to see its papers and their pdf_id.');
      }),
  );

  server.registerTool(
    'get_project',
    {
      title: 'Open a project',
      description:
        'The papers filed in a project: title, authors, year, DOI, entry_id and, when the PDF is stored, pdf_id (usable with read_full_text and ask_pdf).',
      inputSchema: { project: projectRef },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ project }) =>
      guarded(context, async () => {
        const found = await services.projects.get(tenantId, project);
        const papers = found.papers.map((paper) => compactPaper(paper));
        return jsonResult(
          { id: found.id, name: found.name, paper_count: found.paper_count, papers },
          papers.some((paper) => paper.pdf_id)
            ? 'Read a paper with read_full_text(pdf_id), or ask it with ask_pdf(pdf_id, question).'
            : 'No paper of this project has a stored PDF yet; add one with add_to_project.',
        );
      }),
  );

  server.registerTool(
    'export_project',
    {
      title: 'Export a project as BibTeX, RIS or CSL-JSON',
      description:
        'The papers of a project as a reference-manager file (BibTeX for LaTeX/JabRef, RIS for EndNote/Zotero/Mendeley, CSL-JSON for Pandoc/Zotero), built from the stored metadata.',
      inputSchema: {
        project: projectRef,
        format: z
          .enum(citationFormats, { error: 'format must be one of bibtex, ris, csl' })
          .default('bibtex')
          .describe('bibtex (default), ris, or csl.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ project, format }) =>
      guarded(context, async () => {
        const exported = await services.citations.exportProject(tenantId, project, format);
        return textResult(exported.content || `Project "${project}" has no papers to export.`);
      }),
  );
};
