import type { Paper } from '../../domain/paper.js';
import type { ProjectService } from '../project-service.js';
import {
  type CitationFormat,
  contentTypeOfFormat,
  extensionOfFormat,
  formatPapers,
  parseReferences,
} from './citation-formats.js';

export type { CitationFormat } from './citation-formats.js';
export { citationFormats } from './citation-formats.js';

/** A project rendered as a reference file. */
export interface ProjectExport {
  content: string;
  contentType: string;
  /** A safe download name: the project name with the format's extension. */
  filename: string;
  count: number;
}

/** What an import did: papers filed (new or merged into an existing entry) and entries skipped. */
export interface ImportReport {
  project: string;
  format: CitationFormat | 'detected';
  /** Entries read from the file that became papers. */
  imported: number;
  /** Of those, the papers that were not in the project yet. */
  created: number;
  papers: Paper[];
  skipped: Array<{ index: number; reason: string }>;
}

/**
 * Exports a project to BibTeX, RIS or CSL-JSON for reference managers, and imports such files into a
 * project. Imports are idempotent: a paper already filed (same DOI, arXiv id, … or title + year) is
 * updated, not duplicated; and all or nothing (one transaction).
 */
export class CitationService {
  constructor(private readonly projects: ProjectService) {}

  async exportProject(tenantId: string, idOrName: string, format: CitationFormat): Promise<ProjectExport> {
    const project = await this.projects.get(tenantId, idOrName);
    const papers = project.papers.map(({ entry_id: _entry, pdf_id: _pdf, ...paper }) => paper);
    const base =
      project.name
        .normalize('NFKD')
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '') || project.id;
    return {
      content: formatPapers(papers, format),
      contentType: contentTypeOfFormat[format],
      filename: `${base}.${extensionOfFormat[format]}`,
      count: papers.length,
    };
  }

  async importIntoProject(
    tenantId: string,
    idOrName: string,
    text: string,
    format?: CitationFormat,
  ): Promise<ImportReport> {
    // Parsed (and checked against the input limits) first: a refused file leaves no trace.
    const { papers, skipped } = parseReferences(text, format);
    const project = await this.projects.resolve(tenantId, { projectId: idOrName });
    // One transaction: an import that fails or is killed halfway leaves nothing filed (0049).
    const filed = await this.projects.addPapers(tenantId, project, papers);
    return {
      project: project.id,
      format: format ?? 'detected',
      imported: filed.length,
      created: filed.filter((result) => result.created).length,
      papers: filed.map((result) => result.paper),
      skipped,
    };
  }
}
