import { formatProjectRef } from '../domain/document-ref.js';
import { AppError, invalid, notFound } from '../domain/errors.js';
import { identifierKey, parsePaperIdentifier } from '../domain/identifiers.js';
import { identityKeys, type Paper } from '../domain/paper.js';
import { type DocumentRecord, defaultProjectId, type Project, type ProjectEntry } from '../domain/project.js';
import { newId } from '../platform/ids.js';
import type { ProjectStore, Removal } from '../ports/project-store.js';
import type { ContentRelease } from './storage/content-release.js';

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

/** What filing a paper did: the entry as a paper record, and where it went. */
export interface FiledPaper {
  paper: Paper;
  /** The project the paper is filed in. */
  project: Project;
  created: boolean;
  /** The paper was already filed with another document, which was not attached (see `addPaper`). */
  otherDocument: boolean;
}

/**
 * The project an add request names, looked up at once but created (for a new `project_name`) only
 * together with the first paper filed in it, in one transaction: a failed or killed add leaves no
 * empty project behind.
 */
export interface ProjectTarget {
  /** The project's name, for messages. */
  readonly name: string;
  /** Files the paper (see `ProjectService.addPaper`), creating the named project with its entry. */
  file(paper: Paper, document: DocumentRecord | null): Promise<FiledPaper>;
}

const maxNameLength = 200;

export interface ProjectServiceOptions {
  /**
   * Frees the blobs of documents a removal leaves without any holder (decision 0041). Without it
   * they are left for the sweep.
   */
  release?: Pick<ContentRelease, 'release'>;
}

/**
 * Projects of a tenant and the papers filed in them. Removing a paper or a project also deletes
 * the tenant's documents no other entry holds, and frees their blobs when no tenant stores the
 * same content (before answering; what fails is left to the sweep).
 */
export class ProjectService {
  /** Tenants whose row and default project are known to exist (saves two writes per request). */
  private readonly provisioned = new Set<string>();

  constructor(
    private readonly store: ProjectStore,
    private readonly options: ProjectServiceOptions = {},
  ) {}

  /** Creates the tenant row and its default project once per process. */
  private async provision(tenantId: string): Promise<void> {
    if (this.provisioned.has(tenantId)) return;
    await this.store.ensureTenant(tenantId);
    await this.store.ensureProject(tenantId, defaultProjectId);
    this.provisioned.add(tenantId);
  }

  async create(tenantId: string, name: string): Promise<ProjectSummary> {
    const trimmed = validName(name);
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

  /**
   * The project an add request names (see `resolve`), as a `ProjectTarget`: a `project_name` that
   * does not exist yet is checked now and created by `file()` in the transaction of its first entry.
   */
  async target(tenantId: string, selector: ProjectSelector): Promise<ProjectTarget> {
    const { projectId, projectName } = selector;
    const byNewName =
      (projectId === undefined || projectId === '') &&
      projectName !== undefined &&
      projectName !== '' &&
      projectName !== defaultProjectId &&
      (await this.store.findProject(tenantId, projectName)) === null;
    if (byNewName) {
      const name = validName(projectName);
      if (name === defaultProjectId) return this.target(tenantId, { projectName: name });
      // The tenant row must exist before a project can reference it.
      await this.provision(tenantId);
      return {
        name,
        file: async (paper, document) => {
          const { project, entry, created } = await this.store.addEntryCreatingProject(
            tenantId,
            { id: newId('prj', 10), name },
            { entryId: newId('ent', 12), paper, document, identityKeys: identityKeys(paper) },
          );
          return { ...filedOf(entry, created, document), project };
        },
      };
    }
    const project = await this.resolve(tenantId, selector);
    return {
      name: project.name,
      file: async (paper, document) => ({
        ...(await this.addPaper(tenantId, project, paper, document)),
        project,
      }),
    };
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

  /**
   * Files a paper (and its stored document, whose row is written with the entry) in a project;
   * idempotent by document and identifiers (`matchEntry`). `otherDocument` is true when the paper
   * was already filed with a different document: that entry is returned unchanged and `document`
   * was not attached (nor stored).
   */
  async addPaper(
    tenantId: string,
    project: Project,
    paper: Paper,
    document: DocumentRecord | null,
  ): Promise<{ paper: Paper; created: boolean; otherDocument: boolean }> {
    const { entry, created } = await this.store.addEntry(tenantId, project.id, {
      entryId: newId('ent', 12),
      paper,
      document,
      identityKeys: identityKeys(paper),
    });
    return filedOf(entry, created, document);
  }

  /**
   * Files several metadata-only papers (an import) as `addPaper` files each, in one transaction: all
   * or none (0049).
   */
  async addPapers(
    tenantId: string,
    project: Project,
    papers: readonly Paper[],
  ): Promise<Array<{ paper: Paper; created: boolean }>> {
    const filed = await this.store.addEntries(
      tenantId,
      project.id,
      papers.map((paper) => ({
        entryId: newId('ent', 12),
        paper,
        document: null,
        identityKeys: identityKeys(paper),
      })),
    );
    return filed.map(({ entry, created }) => ({ paper: entryToPaper(entry), created }));
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
    const removed = await this.store.removeEntry(tenantId, project.id, entryIdOrKey);
    if (removed) return this.freeStorage(removed);
    if (!entryIdOrKey.includes(':')) {
      throw notFound(`Project "${project.name}" has no paper ${entryIdOrKey}`, 'paper_id');
    }
    const key = identifierKey(parsePaperIdentifier(entryIdOrKey, 'paper_id'));
    const entries = await this.store.listEntries(tenantId, project.id);
    const match = entries.find((entry) => entry.identityKeys.includes(key));
    const byKey = match ? await this.store.removeEntry(tenantId, project.id, match.entryId) : null;
    if (!byKey) throw notFound(`Project "${project.name}" has no paper ${entryIdOrKey}`, 'paper_id');
    await this.freeStorage(byKey);
  }

  /** Frees the blobs of the documents a removal deleted, unless another tenant stores them too. */
  private async freeStorage(removal: Removal): Promise<void> {
    if (removal.orphanedContent.length > 0) await this.options.release?.release(removal.orphanedContent);
  }

  /**
   * Deletes a project and its entries. The default project is refused (409): it always exists, and
   * deleting it used to empty it silently, which made every `PROJ:gpt/…` pdf_id a 404 (0014).
   */
  async delete(tenantId: string, idOrName: string): Promise<void> {
    const project = await this.findOrDefault(tenantId, idOrName, 'id');
    if (project.id === defaultProjectId) {
      throw new AppError(
        'conflict',
        `The default project "${defaultProjectId}" always exists and cannot be deleted. To empty it, remove its papers one by one (DELETE /api/projects/${defaultProjectId}/papers/<entry_id>, entry ids are in GET /api/projects/${defaultProjectId}); to start afresh, create a named project.`,
        { param: 'id' },
      );
    }
    const removed = await this.store.deleteProject(tenantId, project.id);
    if (removed) await this.freeStorage(removed);
  }
}

function filedOf(
  entry: ProjectEntry,
  created: boolean,
  document: DocumentRecord | null,
): Omit<FiledPaper, 'project'> {
  // The tenant's row keeps its id, which is derived from the content like `document.id`.
  const otherDocument = document !== null && entry.documentId !== document.id;
  return { paper: entryToPaper(entry), created, otherDocument };
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

/** A project name trimmed, or a 400 naming `project_name`. */
function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > maxNameLength || hasControlCharacters(trimmed)) {
    throw invalid('project_name', `project_name must be 1–${maxNameLength} printable characters`);
  }
  return trimmed;
}

function hasControlCharacters(text: string): boolean {
  for (const character of text) if (character.charCodeAt(0) < 0x20) return true;
  return false;
}
