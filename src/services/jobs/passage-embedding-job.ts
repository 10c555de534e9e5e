import { parseDocumentRef } from '../../domain/document-ref.js';
import { AppError } from '../../domain/errors.js';
import type { JobHandler, JobQueue } from '../../ports/job-queue.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { FullTextService } from '../documents/full-text-service.js';

/** Embeds a filed PDF's passages and stores the vectors, so its first question is warm. */
export const embedPassagesJob = 'embed-passages';

export type EmbedPassagesPayload = {
  tenant: string;
  /** The filed document, `PROJ:<project>/<document>`. */
  pdfId: string;
  /** Its content hash: the job's de-duplication id. */
  sha256: string;
};

/**
 * Queues the embedding of a PDF just filed by `tenant`. De-duplicated by content hash: the same
 * bytes filed twice (by two tenants, or through two replicas) while the job waits or runs embed
 * once, and the vectors, keyed by content, serve both.
 */
export async function enqueuePassageEmbedding(
  jobs: JobQueue,
  store: ProjectStore,
  tenant: string,
  pdfId: string,
): Promise<boolean> {
  const ref = parseDocumentRef(pdfId, 'pdf_id');
  if (ref.kind !== 'project') return false;
  const record = await store.getDocument(tenant, ref.documentId);
  if (!record) return false;
  const payload: EmbedPassagesPayload = { tenant, pdfId, sha256: record.sha256 };
  const { created } = await jobs.enqueue(embedPassagesJob, payload, { id: record.sha256, lane: tenant });
  return created;
}

/**
 * Runs an `embed-passages` job: reads the document's text (the parse cache has it from the upload)
 * and lets the ranker embed and store its passages, in the tenant's turns of its fair queue.
 * Idempotent: the ranker finds vectors already stored and does nothing. A document removed since
 * it was queued is nothing to do.
 */
export function passageEmbeddingHandler(
  fullText: Pick<FullTextService, 'prepareQuestions'>,
): JobHandler<EmbedPassagesPayload> {
  return async (payload) => {
    try {
      await fullText.prepareQuestions(payload.tenant, payload.pdfId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return;
      throw error;
    }
  };
}
