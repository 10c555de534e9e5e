import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isAppError } from '../../domain/errors.js';
import { defaultProjectId } from '../../domain/project.js';
import type { IngestInput } from '../../ingest/ingest-inputs.js';
import type { Container } from '../../main.js';
import { sha256Hex } from '../../platform/ids.js';
import { documentIdOf } from '../../services/documents/document-storage.js';
import { embedPassagesJob, enqueuePassageEmbedding } from '../../services/jobs/passage-embedding-job.js';
import { declaredPageCount } from '../pdf-page-count.js';

/** What became of one PDF of the folder. */
export interface PdfFileReport {
  file: string;
  /** added: filed now; unchanged: this PDF (or its paper) was already in the project; failed: not filed. */
  status: 'added' | 'unchanged' | 'failed';
  title?: string;
  pdf_id?: string;
  pages?: number;
  chunks?: number;
  /** Parse, store and (in this process) embedding, in milliseconds. */
  ms: number;
  /** Why it failed, or what else is worth knowing (a scan, a duplicate, embedding left for later). */
  note?: string;
}

/** The summary of the PDFs of one `alexandria ingest` run. */
export interface PdfIngestReport {
  tenant: string;
  /** The project's name and id (`PROJ:<id>/…` in pdf_ids). */
  project: { name: string; id: string | null };
  added: number;
  unchanged: number;
  failed: number;
  files: PdfFileReport[];
  elapsedMs: number;
}

export interface PdfIngestOptions {
  tenant: string;
  /** The project's name; absent: the default project, as add_to_project without one. */
  project?: string;
  /** Embed each PDF's passages before the next one (default on, ALEXANDRIA_EMBED_ON_ADD). */
  embed: boolean;
  signal: AbortSignal;
  /** Told about each PDF when it is done, with its position (from 1) and the count. */
  onFile?: (report: PdfFileReport, position: number, total: number) => void;
}

/**
 * Files each PDF in a tenant's project through the service path of an add_to_project upload:
 * parsed in the worker threads (text, chunks, figures), stored by content hash, filed idempotently
 * (the same PDF again is the same document and entry: "unchanged"), then its passages embedded by
 * the same `embed-passages` job embed-on-add queues. Without REDIS_URL that job runs here and each
 * PDF is ready for questions when its line is printed; with REDIS_URL it is queued for the workers.
 * A PDF that cannot be filed is reported and the next one goes on.
 */
export async function ingestPdfs(
  container: Container,
  inputs: readonly IngestInput[],
  options: PdfIngestOptions,
): Promise<PdfIngestReport> {
  const { services, config } = container;
  const started = performance.now();
  const projectName = options.project ?? defaultProjectId;
  const known = await knownEntries(container, options.tenant, projectName);
  const report: PdfIngestReport = {
    tenant: options.tenant,
    project: { name: projectName, id: known.projectId },
    added: 0,
    unchanged: 0,
    failed: 0,
    files: [],
    elapsedMs: 0,
  };
  const uploadMaxBytes = config.documents.uploadMaxMb * 1024 * 1024;
  // Embedding here only when this process runs the jobs (no REDIS_URL); stopped after a failure.
  let embedHere = options.embed && !config.storage.redisUrl;
  for (const [index, input] of inputs.entries()) {
    options.signal.throwIfAborted();
    const fileStarted = performance.now();
    const file: PdfFileReport = { file: input.name, status: 'failed', ms: 0 };
    try {
      if ((input.size ?? 0) > uploadMaxBytes) {
        throw new Error(
          `larger than the upload limit of ${config.documents.uploadMaxMb} MB (ALEXANDRIA_UPLOAD_MAX_MB)`,
        );
      }
      const bytes = new Uint8Array(await readFile(input.name));
      const [paper] = await services.library.add(
        options.tenant,
        { projectName },
        { kind: 'upload', bytes, filename: basename(input.name) },
        { signal: options.signal },
      );
      if (!paper?.entry_id || !paper.pdf_id) throw new Error('the service filed no entry');
      const sha256 = sha256Hex(bytes);
      const ownDocument = paper.pdf_id.endsWith(`/${documentIdOf(sha256)}`);
      file.status = known.entries.has(paper.entry_id) ? 'unchanged' : 'added';
      known.entries.add(paper.entry_id);
      report.project.id ??= /^PROJ:([^/]+)\//.exec(paper.pdf_id)?.[1] ?? null;
      file.title = paper.title;
      file.pdf_id = paper.pdf_id;
      file.pages = declaredPageCount(bytes);
      if (!ownDocument) {
        file.note = `the same paper is already filed with another PDF (${paper.pdf_id}); this one was not filed`;
      } else {
        const text = await services.fullText.readChunk(options.tenant, paper.pdf_id, 1);
        file.chunks = text.total_chunk_num;
        const hasText = text.chunks.some((chunk) => chunk.chunk.trim() !== '');
        if (!hasText) file.note = 'no text layer (a scan): stored, but there is no text to read or ask';
        else if (options.embed && config.storage.redisUrl) {
          await enqueuePassageEmbedding(
            container.jobs,
            container.stores.projects,
            options.tenant,
            paper.pdf_id,
          );
          file.note = 'embedding queued for the workers';
        } else if (embedHere) {
          const failure = await embedNow(container, options.tenant, paper.pdf_id, sha256, options.signal);
          if (failure) {
            embedHere = false;
            file.note = `embedding failed (${failure}); this and the next PDFs embed at their first question`;
          }
        }
      }
    } catch (error) {
      if (options.signal.aborted) throw error;
      file.status = 'failed';
      file.note = reasonOf(error);
    }
    file.ms = Math.round(performance.now() - fileStarted);
    report[file.status] += 1;
    report.files.push(file);
    options.onFile?.(file, index + 1, inputs.length);
  }
  report.elapsedMs = Math.round(performance.now() - started);
  return report;
}

/** Entry ids already in the project (to tell "added" from "unchanged"), and its id when it exists. */
async function knownEntries(
  container: Container,
  tenant: string,
  project: string,
): Promise<{ projectId: string | null; entries: Set<string> }> {
  try {
    const found = await container.services.projects.get(tenant, project);
    return {
      projectId: found.id,
      entries: new Set(found.papers.flatMap((paper) => (paper.entry_id ? [paper.entry_id] : []))),
    };
  } catch (error) {
    // A project named for the first time is created with its first PDF.
    if (isAppError(error) && error.code === 'not_found') return { projectId: null, entries: new Set() };
    throw error;
  }
}

/**
 * Queues the document's `embed-passages` job and waits until this process has run it (the
 * in-process queue retries a failing run before giving up). Returns why it failed, or undefined.
 */
async function embedNow(
  container: Container,
  tenant: string,
  pdfId: string,
  sha256: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  await enqueuePassageEmbedding(container.jobs, container.stores.projects, tenant, pdfId);
  for (;;) {
    const job = await container.jobs.get(embedPassagesJob, sha256);
    if (!job || job.state === 'completed') return undefined;
    if (job.state === 'failed') return job.error ?? 'unknown error';
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An error as the end of a progress line: the service's own message, else the system's. */
function reasonOf(error: unknown): string {
  if (isAppError(error)) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
