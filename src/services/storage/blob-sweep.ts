import type { BlobListing, BlobStore } from '../../ports/blob-store.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { isStalePageImage } from '../documents/page-images.js';
import { classifyBlobKey, type SweptArea, safeSegment, sweptAreas } from './blob-layout.js';
import type { ContentRelease } from './content-release.js';

/** Keys (or document rows) handled per query to the project store. */
const batchSize = 500;

export interface BlobSweepOptions {
  blobs: BlobStore;
  store: Pick<
    ProjectStore,
    | 'storedContent'
    | 'deleteUnfiledDocuments'
    | 'contentReleasesStartedBefore'
    | 'endContentRelease'
    | 'releasedContent'
    | 'forgetContentReleases'
  >;
  release: Pick<ContentRelease, 'releaseOne'>;
  /**
   * Writes younger than this (ms) are left alone: an add in flight here or on another instance
   * writes its PDF before its row, and a release marked more recently may still be running.
   */
  graceMs: number;
  /**
   * How long (ms) what no document stores is kept as a cache: the parse, figures and vectors of a
   * PDF only read by url, a full-text source's text. Counted from when it was written.
   */
  cacheRetentionMs: number;
  /** The parser version reads use; stored parses of other versions go once past the retention. */
  parserVersion?: string;
  now?: () => Date;
  /** Stops the sweep between two blobs. */
  signal?: AbortSignal;
}

/** Blobs and bytes of one area of the store. */
export interface AreaUsage {
  objects: number;
  bytes: number;
}

export interface BlobSweepReport {
  /** What each area holds after the sweep (what it listed, less what it deleted). */
  areas: Record<SweptArea, AreaUsage>;
  /** Content hashes released (every blob filed under them deleted). */
  released: string[];
  /** Blobs deleted one by one: drawings at widths no longer stored, old parses, old vectors, stale source texts. */
  deleted: number;
  /** Releases a kill cut short, finished (or found moot) by this sweep. */
  interruptedReleases: number;
  /** Document rows no entry held, deleted. */
  unfiledDocuments: number;
  /** Temporary files of killed writes deleted (filesystem store only). */
  temporaryFiles: number;
}

interface Candidate {
  blob: BlobListing;
  area: SweptArea;
  sha256: string;
  /** A derived blob's path inside its content folder; absent for the PDF itself. */
  rest?: string;
}

/**
 * Mark and sweep over every area of the blob store (decision 0041). The document rows are the
 * marks: content a row of any tenant has is kept, everything else filed under a content hash is
 * released (`ContentRelease.releaseOne`, which checks the rows again under its claim) once older
 * than its threshold — the grace period for a PDF (left by an add killed before its row) and for
 * what was written to content released not long ago (work still running when its document was
 * deleted), the cache retention for other derived blobs (the caches of PDFs read by url), after
 * which the marks of ended releases are forgotten too. Before the walk it finishes the
 * releases a kill cut short and deletes document rows no entry holds; it also deletes drawings no
 * request can read (other widths, older revisions), parses of other parser versions, passage
 * vectors in the old layout, and old full-text source texts, and the temporary files of killed
 * writes. Safe to run on several instances at once: every delete is idempotent.
 */
export async function sweepBlobs(options: BlobSweepOptions): Promise<BlobSweepReport> {
  const startedAt = (options.now ?? (() => new Date()))().getTime();
  const graceCutoff = new Date(startedAt - options.graceMs).toISOString();
  const report: BlobSweepReport = {
    areas: Object.fromEntries(sweptAreas.map((area) => [area, { objects: 0, bytes: 0 }])) as Record<
      SweptArea,
      AreaUsage
    >,
    released: [],
    deleted: 0,
    interruptedReleases: 0,
    unfiledDocuments: 0,
    temporaryFiles: 0,
  };
  const released = new Set<string>();
  const release = async (sha256: string) => {
    options.signal?.throwIfAborted();
    if (released.has(sha256)) return true;
    if (!(await options.release.releaseOne(sha256))) return false;
    released.add(sha256);
    report.released.push(sha256);
    return true;
  };

  // Releases a kill cut short: claimed again (content stored again since is kept), and a mark
  // whose content is stored again is stale: removed, so adds of it stop waiting.
  for (const sha256 of await options.store.contentReleasesStartedBefore(graceCutoff)) {
    if (!(await release(sha256))) await options.store.endContentRelease(sha256);
    report.interruptedReleases += 1;
  }
  // Rows no entry holds: left by releases of older versions, which kept a PDF after its last entry.
  for (;;) {
    options.signal?.throwIfAborted();
    const orphaned = await options.store.deleteUnfiledDocuments(graceCutoff, batchSize);
    report.unfiledDocuments += orphaned.length;
    for (const sha256 of orphaned) await release(sha256);
    if (orphaned.length < batchSize) break;
  }

  const age = (blob: BlobListing) => startedAt - blob.lastModified.getTime();
  const keep = (area: SweptArea, blob: BlobListing) => {
    report.areas[area].objects += 1;
    report.areas[area].bytes += blob.size;
  };
  const remove = async (key: string) => {
    await options.blobs.delete(key);
    report.deleted += 1;
  };
  const isStale = (candidate: Candidate) => {
    const { area, rest, blob } = candidate;
    if (rest === undefined) return false;
    if (area === 'pages') return isStalePageImage(rest) && age(blob) >= options.graceMs;
    if (area === 'parsed' && options.parserVersion !== undefined) {
      return rest !== `${safeSegment(options.parserVersion)}.json` && age(blob) >= options.cacheRetentionMs;
    }
    return false;
  };
  const settle = async (candidates: Candidate[]) => {
    const hashes = [...new Set(candidates.map((item) => item.sha256))];
    const stored = await options.store.storedContent(hashes);
    const releasedBefore = await options.store.releasedContent(
      hashes.filter((sha256) => !stored.has(sha256)),
    );
    for (const candidate of candidates) {
      options.signal?.throwIfAborted();
      const { blob, area, sha256 } = candidate;
      if (released.has(sha256)) continue;
      if (stored.has(sha256)) {
        if (isStale(candidate)) await remove(blob.key);
        else keep(area, blob);
        continue;
      }
      // Written to content released not long ago (a drawing or embedding still running then): a
      // leftover, not a cache; it goes like a PDF without its row.
      const leftover = area === 'documents' || releasedBefore.has(sha256);
      const threshold = leftover ? options.graceMs : options.cacheRetentionMs;
      if (age(blob) >= threshold && (await release(sha256))) continue;
      keep(area, blob);
    }
  };

  for (const area of sweptAreas) {
    let candidates: Candidate[] = [];
    for await (const blob of options.blobs.list(area)) {
      options.signal?.throwIfAborted();
      const kind = classifyBlobKey(blob.key);
      if (kind.kind === 'document') candidates.push({ blob, area, sha256: kind.sha256 });
      else if (kind.kind === 'derived') candidates.push({ blob, area, sha256: kind.sha256, rest: kind.rest });
      else if (kind.kind === 'legacy' && age(blob) >= options.graceMs) await remove(blob.key);
      else if (kind.kind === 'source' && age(blob) >= options.cacheRetentionMs) await remove(blob.key);
      else keep(area, blob);
      if (candidates.length >= batchSize) {
        await settle(candidates);
        candidates = [];
      }
    }
    await settle(candidates);
  }
  options.signal?.throwIfAborted();
  await options.store.forgetContentReleases(new Date(startedAt - options.cacheRetentionMs).toISOString());
  report.temporaryFiles =
    (await options.blobs.removeStaleTemporaryFiles?.(new Date(startedAt - options.graceMs))) ?? 0;
  return report;
}
