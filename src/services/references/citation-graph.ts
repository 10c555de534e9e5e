import { formatProjectRef } from '../../domain/document-ref.js';
import { isAppError, notFound } from '../../domain/errors.js';
import {
  identifierKey,
  normalizeArxivId,
  normalizeDoi,
  type PaperIdentifier,
} from '../../domain/identifiers.js';
import { emptyPaper, identityKeys, type Paper } from '../../domain/paper.js';
import { defaultProjectId, type Project, type ProjectEntry } from '../../domain/project.js';
import type { ReferenceView } from '../../domain/references.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { HeavyWork } from '../heavy-work.js';
import { type HintVocabulary, restHints } from '../hint-vocabulary.js';
import type { HintedCallOptions } from '../services.js';
import { titleSimilarity, titleTokens } from './record-matching.js';
import { scoreCandidate, titleThreshold } from './reference-linker.js';
import type { ReferenceService } from './reference-service.js';
import { typedIdOf } from './typed-id.js';

/** A paper of the project in its citation graph. */
export interface GraphNode {
  /** The project entry (`entry_id`), which edges name. */
  id: string;
  paper: Paper;
  /** Entries of its parsed reference list (0 without a stored PDF or without a list). */
  references: number;
  /** How many of them are linked to records of the local index. */
  linked: number;
}

/** `source` cites `target`, both papers of the project. */
export interface GraphEdge {
  source: string;
  target: string;
  /** The citing paper's reference entry, as printed. */
  reference: string;
  /** Sentences of the citing PDF that cite it. */
  contexts: number;
}

/** A work cited by several papers of the project that the project lacks. */
export interface MissingWork {
  title: string;
  /** The record of the local index it is linked to, or null. */
  paper: Paper | null;
  paper_id: string | null;
  /** How many of the project's papers cite it. */
  count: number;
  /** The entries (node ids) citing it. */
  cited_by: string[];
  /** One citing entry's reference, as printed. */
  reference: string;
}

export interface ProjectGraph {
  project: { id: string; name: string };
  nodes: GraphNode[];
  edges: GraphEdge[];
  missing: MissingWork[];
  hint: string;
}

/** The papers around one paper that the tenant's stored PDFs know (the offline literature map). */
export interface LibraryNeighbourhood {
  /** The paper as the tenant stored it, when it is one of their PDFs. */
  stored: Paper | null;
  /** What it cites, from its parsed reference list: linked records first. */
  references: Paper[];
  /** How many of those are records of the local index. */
  linkedReferences: number;
  /** The tenant's stored PDFs that cite it. */
  citations: Paper[];
}

/** A stored PDF of the tenant with its reference list (read once per call). */
interface StoredPaper {
  entry: ProjectEntry;
  pdfId: string;
  references: ReferenceView[];
}

export interface CitationGraphOptions {
  references: Pick<ReferenceService, 'documentReferences'>;
  store: ProjectStore;
  /** The price of a project graph (decision 0042): it may link every stored PDF's list. */
  budget?: HeavyWork;
}

/**
 * The citation graph of a tenant's own PDFs (issue 17 part 3, decision 0031): which papers of a
 * project cite each other and which works they cite most that the project lacks, and — for the
 * literature map — what a stored paper cites and which stored papers cite a paper. Built from the
 * parsed, linked reference lists of ReferenceService (stored beside each document), no upstream.
 */
export class CitationGraphService {
  constructor(private readonly options: CitationGraphOptions) {}

  /**
   * `GET /api/project_graph`: nodes, edges within the project, and the works it lacks. Heavy work
   * (decision 0042): within the tenant's share and a time budget; lists linked before a stop are
   * kept, so asking again goes on.
   */
  async projectGraph(
    tenantId: string,
    selector: { project?: string | undefined; param?: string },
    options: HintedCallOptions & { minCiting?: number; limit?: number } = {},
  ): Promise<ProjectGraph> {
    const budget = this.options.budget;
    if (!budget) return this.graphWithin(tenantId, selector, options);
    return budget.run(
      'project_graph',
      tenantId,
      (signal) => this.graphWithin(tenantId, selector, { ...options, signal }),
      { signal: options.signal, resumable: true },
    );
  }

  private async graphWithin(
    tenantId: string,
    selector: { project?: string | undefined; param?: string },
    options: HintedCallOptions & { minCiting?: number; limit?: number },
  ): Promise<ProjectGraph> {
    const hints = options.hints ?? restHints;
    const param = selector.param ?? 'project_id';
    const idOrName = selector.project?.trim() || defaultProjectId;
    const found = await this.options.store.findProject(tenantId, idOrName);
    // The default project exists for every tenant, even before its first paper.
    if (!found && idOrName !== defaultProjectId) throw notFound(`No project "${idOrName}"`, param);
    const project: Pick<Project, 'id' | 'name'> = found ?? { id: defaultProjectId, name: defaultProjectId };
    const entries = found ? await this.options.store.listEntries(tenantId, found.id) : [];
    const stored = new Map<string, StoredPaper>();
    for (const entry of entries) {
      options.signal?.throwIfAborted();
      const paper = await this.read(tenantId, entry, options.signal);
      if (paper) stored.set(entry.entryId, paper);
    }
    const nodes: GraphNode[] = entries.map((entry) => {
      const references = stored.get(entry.entryId)?.references ?? [];
      return {
        id: entry.entryId,
        paper: paperOfEntry(entry),
        references: references.length,
        linked: references.filter((reference) => reference.paper).length,
      };
    });
    const edges: GraphEdge[] = [];
    const works = new WorkGroups();
    for (const citing of stored.values()) {
      for (const reference of citing.references) {
        const targets = entries.filter(
          (entry) => entry.entryId !== citing.entry.entryId && cites(reference, entry.paper),
        );
        for (const target of targets) {
          if (edges.some((edge) => edge.source === citing.entry.entryId && edge.target === target.entryId))
            continue;
          edges.push({
            source: citing.entry.entryId,
            target: target.entryId,
            reference: reference.raw,
            contexts: reference.contexts.length,
          });
        }
        // A reference to the paper itself (a later version it cites) is no missing work either.
        if (targets.length === 0 && !cites(reference, citing.entry.paper))
          works.add(reference, citing.entry.entryId);
      }
    }
    const minCiting = Math.max(1, options.minCiting ?? 2);
    const missing = works
      .ranked()
      .filter((work) => work.count >= minCiting)
      .slice(0, options.limit ?? 20);
    return {
      project: { id: project.id, name: project.name },
      nodes,
      edges,
      missing,
      hint: graphHint(project, nodes, edges, missing, minCiting, hints),
    };
  }

  /**
   * The papers around a paper in the tenant's stored PDFs: its references when it is one of them
   * (found by `identifier`, or as the same work as `record`), and the stored PDFs citing it. Null
   * when the tenant's PDFs know nothing of it.
   */
  async around(
    tenantId: string,
    identifier: PaperIdentifier,
    record: Paper | null,
    options: { signal?: AbortSignal } = {},
  ): Promise<LibraryNeighbourhood | null> {
    const key = identifierKey(identifier);
    const documents = await this.storedPapers(tenantId, options.signal);
    const self = documents.find(
      (document) =>
        document.entry.identityKeys.includes(key) ||
        identityKeys(document.entry.paper).includes(key) ||
        (record !== null && sameWork(record, document.entry.paper)),
    );
    const target = record ?? self?.entry.paper ?? null;
    if (!target) return null;
    const selfDocument = self?.entry.documentId;
    const citing = documents.filter(
      (document) =>
        document.entry.documentId !== selfDocument &&
        document.references.some((reference) => cites(reference, target)),
    );
    if (!self && citing.length === 0) return null;
    const references = self?.references ?? [];
    const linked = references.flatMap((reference) => (reference.paper ? [reference.paper] : []));
    const unlinked = references.flatMap((reference) =>
      !reference.paper && reference.title ? [recordOfReference(reference)] : [],
    );
    return {
      stored: self ? { ...paperOfEntry(self.entry), pdf_id: self.pdfId } : null,
      references: [...dedupe(linked), ...unlinked],
      linkedReferences: dedupe(linked).length,
      citations: citing.map((document) => ({ ...paperOfEntry(document.entry), pdf_id: document.pdfId })),
    };
  }

  /** Every stored PDF of the tenant once (a document filed in two projects is read once). */
  private async storedPapers(tenantId: string, signal?: AbortSignal): Promise<StoredPaper[]> {
    const seen = new Set<string>();
    const papers: StoredPaper[] = [];
    for (const project of await this.options.store.listProjects(tenantId)) {
      for (const entry of await this.options.store.listEntries(tenantId, project.id)) {
        if (!entry.documentId || seen.has(entry.documentId)) continue;
        seen.add(entry.documentId);
        signal?.throwIfAborted();
        const paper = await this.read(tenantId, entry, signal);
        if (paper) papers.push(paper);
      }
    }
    return papers;
  }

  /** The entry's stored PDF with its references; null without a PDF. */
  private async read(
    tenantId: string,
    entry: ProjectEntry,
    signal?: AbortSignal,
  ): Promise<StoredPaper | null> {
    if (!entry.documentId) return null;
    const pdfId = formatProjectRef(entry.projectId, entry.documentId);
    try {
      const result = await this.options.references.documentReferences(tenantId, pdfId, {
        param: 'project_id',
        ...(signal ? { signal } : {}),
      });
      return { entry, pdfId, references: result.references };
    } catch (error) {
      // A PDF that cannot be read (broken, gone from the store) is a paper without references.
      if (signal?.aborted || !isAppError(error)) throw error;
      return { entry, pdfId, references: [] };
    }
  }
}

/** A project entry as a paper record (as /api/projects shows it). */
function paperOfEntry(entry: ProjectEntry): Paper {
  return {
    ...entry.paper,
    entry_id: entry.entryId,
    ...(entry.documentId ? { pdf_id: formatProjectRef(entry.projectId, entry.documentId) } : {}),
  };
}

/** Identity keys without the title key (strong identifiers only). */
function strongKeys(paper: Paper): string[] {
  return identityKeys(paper).filter((key) => !key.startsWith('title:'));
}

function yearOf(paper: Paper): number | null {
  return paper.year ?? (paper.publication_date ? Number(paper.publication_date.slice(0, 4)) || null : null);
}

/** Two records of one work: a shared strong identifier, or the same title within a year. */
function sameWork(a: Paper, b: Paper): boolean {
  const keys = new Set(strongKeys(a));
  if (strongKeys(b).some((key) => keys.has(key))) return true;
  if (titleTokens(a.title).length < 3 || titleSimilarity(a.title, b.title) < 0.95) return false;
  const left = yearOf(a);
  const right = yearOf(b);
  return left === null || right === null || Math.abs(left - right) <= 1;
}

/**
 * Whether a reference cites the paper: its linked record is the paper, its DOI or arXiv id is the
 * paper's, or — for a paper the index does not hold (a stored PDF) — the reference passes the
 * checks linking uses (title similarity, year, first author) against the paper itself.
 */
export function cites(reference: ReferenceView, paper: Paper): boolean {
  if (reference.paper && sameWork(reference.paper, paper)) return true;
  const keys = new Set(strongKeys(paper));
  const doi = normalizeDoi(reference.doi);
  if (doi && keys.has(`doi:${doi}`)) return true;
  const arxiv = normalizeArxivId(reference.arxiv);
  if (arxiv && keys.has(`arxiv:${arxiv}`)) return true;
  if (!paper.title || titleTokens(paper.title).length < 3) return false;
  return scoreCandidate({ ...reference, yearLabel: null, chunk: 0 }, paper) !== null;
}

/** An unlinked reference as a bare record (its parsed fields). */
function recordOfReference(reference: ReferenceView): Paper {
  const arxiv = normalizeArxivId(reference.arxiv);
  return {
    ...emptyPaper(reference.title ?? reference.raw.slice(0, 200)),
    authors: reference.authors,
    year: reference.year,
    publication_date: reference.year ? String(reference.year) : null,
    venue: reference.venue,
    doi: normalizeDoi(reference.doi),
    ...(arxiv ? { identifiers: { arxiv } } : {}),
  };
}

function dedupe(papers: Paper[]): Paper[] {
  const kept: Paper[] = [];
  for (const paper of papers) if (!kept.some((other) => sameWork(other, paper))) kept.push(paper);
  return kept;
}

interface WorkGroup {
  key: string | null;
  title: string;
  year: number | null;
  paper: Paper | null;
  citing: Set<string>;
  reference: string;
}

/**
 * References of several papers grouped into works: by the linked record's identifier, else the
 * DOI or arXiv id, else a title similar enough to pass linking's threshold (years within one).
 */
class WorkGroups {
  private readonly groups: WorkGroup[] = [];

  add(reference: ReferenceView, citing: string): void {
    const title = reference.paper?.title ?? reference.title;
    if (!title || titleTokens(title).length < 3) return;
    const key = workKey(reference);
    const group =
      (key ? this.groups.find((candidate) => candidate.key === key) : undefined) ??
      this.groups.find(
        (candidate) =>
          (candidate.key === null || key === null || !candidate.paper || !reference.paper) &&
          titleSimilarity(candidate.title, title) >= titleThreshold &&
          (candidate.year === null ||
            reference.year === null ||
            Math.abs(candidate.year - reference.year) <= 1),
      );
    if (!group) {
      this.groups.push({
        key,
        title,
        year: reference.year,
        paper: reference.paper,
        citing: new Set([citing]),
        reference: reference.raw,
      });
      return;
    }
    group.citing.add(citing);
    if (!group.paper && reference.paper) {
      group.paper = reference.paper;
      group.title = reference.paper.title;
      group.key = key;
    }
  }

  /** Works by how many papers cite them (then linked first, then title). */
  ranked(): MissingWork[] {
    return [...this.groups]
      .sort(
        (a, b) =>
          b.citing.size - a.citing.size ||
          Number(b.paper !== null) - Number(a.paper !== null) ||
          a.title.localeCompare(b.title),
      )
      .map((group) => ({
        title: group.title,
        paper: group.paper,
        paper_id: group.paper ? typedIdOf(group.paper) : null,
        count: group.citing.size,
        cited_by: [...group.citing],
        reference: group.reference,
      }));
  }
}

function workKey(reference: ReferenceView): string | null {
  if (reference.paper) return strongKeys(reference.paper)[0] ?? null;
  const doi = normalizeDoi(reference.doi);
  if (doi) return `doi:${doi}`;
  const arxiv = normalizeArxivId(reference.arxiv);
  return arxiv ? `arxiv:${arxiv}` : null;
}

function graphHint(
  project: Pick<Project, 'id' | 'name'>,
  nodes: GraphNode[],
  edges: GraphEdge[],
  missing: MissingWork[],
  minCiting: number,
  hints: HintVocabulary,
): string {
  if (nodes.length === 0)
    return `Project "${project.name}" has no papers yet; add PDFs to see how they cite each other.`;
  const withLists = nodes.filter((node) => node.references > 0).length;
  const links = `${nodes.length} papers (${withLists} with a parsed reference list), ${edges.length} citation${edges.length === 1 ? '' : 's'} between them, from the reference lists of your stored PDFs (no upstream).`;
  const top = missing[0];
  const lacks = top
    ? ` ${missing.length} work${missing.length === 1 ? '' : 's'} cited by ≥ ${minCiting} of them but not in the project; the most cited: "${top.title}" (${top.count}).${top.paper_id ? ` Open it with ${hints.paper(top.paper_id)}.` : ''}`
    : ` No work outside the project is cited by ≥ ${minCiting} of its papers.`;
  const example = edges[0] ?? null;
  const read = example
    ? ` See a paper's references with ${hints.references(nodes.find((node) => node.id === example.source)?.paper.pdf_id ?? '<pdf_id>')}.`
    : '';
  return `${links}${lacks}${read}`;
}
