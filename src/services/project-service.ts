import { formatProjectRef } from '../domain/document-ref.js';
import { AppError, invalid, notFound } from '../domain/errors.js';
import { identifierKey, parsePaperIdentifier } from '../domain/identifiers.js';
import { identityKeys, type Paper } from '../domain/paper.js';
import { defaultProjectId, type Project, type ProjectEntry } from '../domain/project.js';
import { newId } from '../platform/ids.js';
import type { ProjectStore } from '../ports/project-store.js';

/** How a request names a project: `project_id` or `project_name`; neither means the default. */
export interface ProjectSelector {
  projectId?: string | undefined;
  projectName?: string | undefined;
}

export interface ProjectSummary {
  id: string;
  name: string;
  created_at: string;
  paper_count: number;
}

const maxNameLength = 200;

/** Projects of a tenant and the papers filed in them. */
export class ProjectService {
  /** Tenants whose row and default project are known to exist (saves two writes per request). */
  private readonly provisioned = new Set<string>();

  constructor(private readonly store: ProjectStore) {}

  /** Creates the tenant row and its default project once per process. */
  private async provision(tenantId: string): Promise<void> {
    if (this.provisioned.has(tenantId)) return;
    await this.store.ensureTenant(tenantId);
    await this.store.ensureProject(tenantId, defaultProjectId);
    this.provisioned.add(tenantId);
  }

  async create(tenantId: string, name: string): Promise<ProjectSummary> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > maxNameLength || hasControlCharacters(trimmed)) {
      throw invalid('project_name', `project_name must be 1–${maxNameLength} printable characters`);
    }
    await this.provision(tenantId);
    if (trimmed === defaultProjectId) {
      throw new AppError('conflict', `"${defaultProjectId}" is the default project and always exists`, {
        param: 'project_name',
      });
    }
    const project = await this.store.createProject(tenantId, { id: newId('prj', 10), name: trimmed });
    return summary(project, 0);
  }

  async list(tenantId: string): Promise<ProjectSummary[]> {
    await this.provision(tenantId);
    const projects = await this.store.listProjects(tenantId);
    return projects.map((project) => summary(project, project.paperCount));
  }

  /**
   * The project a request names. The default project is created on first use. An unknown
   * `project_name` is created when `createMissing` (adding papers), else it is a 404.
   */
  async resolve(
    tenantId: string,
    selector: ProjectSelector,
    options: { createMissing?: boolean } = {},
  ): Promise<Project> {
    const { projectId, projectName } = selector;
    if (projectId !== undefined && projectId !== '') {
      return this.findOrDefault(tenantId, projectId, 'project_id');
    }
    if (projectName !== undefined && projectName !== '') {
      if (projectName === defaultProjectId) return this.findOrDefault(tenantId, projectName, 'project_name');
      const project = await this.store.findProject(tenantId, projectName);
      if (project) return project;
      if (options.createMissing) {
        await this.create(tenantId, projectName).catch((error: unknown) => {
          if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        });
        const created = await this.store.findProject(tenantId, projectName);
        if (created) return created;
      }
      throw notFound(`No project named "${projectName}"`, 'project_name');
    }
    return this.findOrDefault(tenantId, defaultProjectId, 'project_id');
  }

  private async findOrDefault(tenantId: string, idOrName: string, param: string): Promise<Project> {
    if (idOrName === defaultProjectId) {
      await this.provision(tenantId);
      const project = await this.store.findProject(tenantId, defaultProjectId);
      if (project) return project;
      // Deleted since it was provisioned: the default project always exists, so bring it back.
      return this.store.ensureProject(tenantId, defaultProjectId);
    }
    const project = await this.store.findProject(tenantId, idOrName);
    if (!project) throw notFound(`No project "${idOrName}"`, param);
    return project;
  }

  /** A project with its papers, each as a paper record with `entry_id` and `pdf_id`. */
  async get(tenantId: string, idOrName: string): Promise<ProjectSummary & { papers: Paper[] }> {
    const project = await this.findOrDefault(tenantId, idOrName, 'id');
    const entries = await this.store.listEntries(tenantId, project.id);
    return { ...summary(project, entries.length), papers: entries.map((entry) => entryToPaper(entry)) };
  }

  /** Files a paper (and its stored document) in a project; idempotent by identifiers/document. */
  async addPaper(
    tenantId: string,
    project: Project,
    paper: Paper,
    documentId: string | null,
  ): Promise<{ paper: Paper; created: boolean }> {
    const { entry, created } = await this.store.addEntry(tenantId, project.id, {
      entryId: newId('ent', 12),
      paper,
      documentId,
      identityKeys: identityKeys(paper),
    });
    return { paper: entryToPaper(entry), created };
  }

  async entries(tenantId: string, project: Project): Promise<ProjectEntry[]> {
    return this.store.listEntries(tenantId, project.id);
  }

  /**
   * Removes a paper from a project, named by its entry id or by a typed identifier
   * (`DOI:10.1000/x`) of the paper.
   */
  async removePaper(tenantId: string, idOrName: string, entryIdOrKey: string): Promise<void> {
    const project = await this.findOrDefault(tenantId, idOrName, 'id');
    if (await this.store.removeEntry(tenantId, project.id, entryIdOrKey)) return;
    if (!entryIdOrKey.includes(':')) {
      throw notFound(`Project "${project.name}" has no paper ${entryIdOrKey}`, 'paper_id');
    }
    const key = identifierKey(parsePaperIdentifier(entryIdOrKey, 'paper_id'));
    const entries = await this.store.listEntries(tenantId, project.id);
    const match = entries.find((entry) => entry.identityKeys.includes(key));
    if (!match || !(await this.store.removeEntry(tenantId, project.id, match.entryId))) {
      throw notFound(`Project "${project.name}" has no paper ${entryIdOrKey}`, 'paper_id');
    }
  }

  async delete(tenantId: string, idOrName: string): Promise<void> {
    const project = await this.findOrDefault(tenantId, idOrName, 'id');
    await this.store.deleteProject(tenantId, project.id);
  }
}

function summary(project: Project, paperCount: number): ProjectSummary {
  return { id: project.id, name: project.name, created_at: project.createdAt, paper_count: paperCount };
}

/** The wire record of a project entry: the paper plus `entry_id` and, with a document, `pdf_id`. */
export function entryToPaper(entry: ProjectEntry): Paper {
  return {
    ...entry.paper,
    entry_id: entry.entryId,
    ...(entry.documentId ? { pdf_id: formatProjectRef(entry.projectId, entry.documentId) } : {}),
  };
}

function hasControlCharacters(text: string): boolean {
  for (const character of text) if (character.charCodeAt(0) < 0x20) return true;
  return false;
}
