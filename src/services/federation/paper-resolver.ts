import { type IdentifierType, identifierKey, type PaperIdentifier } from '../../domain/identifiers.js';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type { SourceReport } from '../../domain/search.js';
import type { Logger } from '../../platform/logger.js';
import type { Cache } from '../../ports/cache.js';
import type { PaperSource } from '../../ports/paper-source.js';
import type { PaperLookup } from '../services.js';
import { fanOut } from './fan-out.js';
import { type Candidate, groupCandidates, mergeRecords } from './paper-merge.js';
import type { SourceMonitor } from './source-monitor.js';

export interface PaperResolverOptions {
  /** The local index (its `PaperLookup`); asked first. */
  local?: PaperLookup;
  /** Sources with `lookup`; those whose `lookupTypes` hold the identifier's type are asked in parallel. */
  sources: readonly PaperSource[];
  /** Source of open-access PDF locations for a DOI (Unpaywall), asked when no record has a PDF. */
  openAccess?: PaperSource;
  cache: Cache;
  monitor?: SourceMonitor;
  /** Keeps a resolved record in the local index, so the next lookup is local. */
  remember?: (paper: Paper) => Promise<void>;
  logger?: Pick<Logger, 'warn'>;
  deadlineMs?: number;
  sourceTimeoutMs?: number;
  /** How long a resolved record (default 1 day) or a miss (default 1 hour) is cached. */
  ttlSeconds?: number;
  missTtlSeconds?: number;
}

export interface Resolution {
  paper: Paper | null;
  sources: SourceReport[];
}

/**
 * `PaperLookup` over the local index and the upstream sources: the index first; else every source
 * that knows the identifier type, in parallel; their records are merged into one (best metadata,
 * every identifier, `ss_id`, citations) and given an open PDF when one exists (the record's own,
 * arXiv's, Europe PMC's, or Unpaywall's best location), so `add_to_project` can fetch it.
 */
export class PaperResolver implements PaperLookup {
  constructor(private readonly options: PaperResolverOptions) {}

  async findByIdentifier(
    identifier: PaperIdentifier,
    options: { signal?: AbortSignal } = {},
  ): Promise<Paper | null> {
    return (await this.resolve(identifier, options)).paper;
  }

  /** The record with a report of which sources answered (for `/api/paper`'s header and hint). */
  async resolve(identifier: PaperIdentifier, options: { signal?: AbortSignal } = {}): Promise<Resolution> {
    const reports: SourceReport[] = [];
    let local: Paper | null = null;
    if (this.options.local) {
      const started = performance.now();
      try {
        local = await this.options.local.findByIdentifier(identifier, options);
        reports.push({
          source: 'index',
          status: 'ok',
          count: local ? 1 : 0,
          durationMs: Math.round(performance.now() - started),
        });
      } catch (error) {
        reports.push({ source: 'index', status: 'failed', message: (error as Error).message });
      }
    }
    if (local && (local.pdf_url || local.pdf_id || this.options.sources.length === 0)) {
      return { paper: local, sources: reports };
    }
    const cacheKey = `paper:v1:${identifier.type}:${identifier.value}`;
    const cached = await this.options.cache.get<{ paper: Paper | null }>(cacheKey);
    if (cached) return { paper: cached.paper ?? local, sources: reports };

    const capable = this.options.sources.filter(
      (source) => source.lookup && source.lookupTypes.includes(identifier.type as IdentifierType),
    );
    const outcomes = await fanOut(
      capable.map((source) => ({
        name: source.name,
        run: (signal: AbortSignal) => source.lookup?.(identifier, { signal }) ?? Promise.resolve(null),
      })),
      {
        deadlineMs: this.options.deadlineMs ?? 8_000,
        sourceTimeoutMs: this.options.sourceTimeoutMs ?? 5_000,
      },
      options.signal,
      (paper) => (paper ? 1 : 0),
    );
    reports.push(...outcomes.map((outcome) => outcome.report));
    const candidates: Candidate[] = outcomes.flatMap(({ call, value }) =>
      value ? [{ paper: value, list: call.name, rank: 1 }] : [],
    );
    if (local) candidates.unshift({ paper: local, list: 'index', rank: 1 });
    let paper = pickGroup(candidates, identifier);
    if (paper && !paper.pdf_url && !paper.pdf_id)
      paper = await this.addOpenPdf(paper, reports, options.signal);

    this.options.monitor?.record(
      'lookup',
      reports.filter((report) => report.source !== 'index'),
    );
    const failed = outcomes.some((outcome) => outcome.report.status !== 'ok');
    // A miss while some source was down is not remembered: the next try may find it.
    if (paper || !failed) {
      await this.options.cache.set(
        cacheKey,
        { paper },
        paper ? (this.options.ttlSeconds ?? 86_400) : (this.options.missTtlSeconds ?? 3_600),
      );
    }
    if (paper && candidates.some((candidate) => candidate.list !== 'index') && this.options.remember) {
      await this.options.remember(paper).catch((error: unknown) => {
        this.options.logger?.warn({ err: error }, 'keeping a resolved paper in the index failed');
      });
    }
    return { paper, sources: reports };
  }

  private async addOpenPdf(
    paper: Paper,
    reports: SourceReport[],
    signal: AbortSignal | undefined,
  ): Promise<Paper> {
    const arxiv = paper.identifiers?.arxiv;
    if (arxiv) return withPdf(paper, `https://arxiv.org/pdf/${arxiv}`);
    const openAccess = this.options.openAccess;
    if (!paper.doi || !openAccess?.lookup) return paper;
    const [outcome] = await fanOut(
      [
        {
          name: openAccess.name,
          run: (inner: AbortSignal) =>
            openAccess.lookup?.({ type: 'DOI', value: paper.doi as string }, { signal: inner }) ??
            Promise.resolve(null),
        },
      ],
      {
        deadlineMs: this.options.sourceTimeoutMs ?? 5_000,
        sourceTimeoutMs: this.options.sourceTimeoutMs ?? 5_000,
      },
      signal,
      (found) => (found?.pdf_url ? 1 : 0),
    );
    if (outcome) reports.push(outcome.report);
    const pdfUrl = outcome?.value?.pdf_url;
    return pdfUrl ? withPdf(paper, pdfUrl) : paper;
  }
}

function withPdf(paper: Paper, pdfUrl: string): Paper {
  return { ...paper, pdf_url: pdfUrl, pdf_id: `PDF_URL:${pdfUrl}` };
}

/** Merges the records of the group that holds the requested identifier (else the largest group). */
function pickGroup(candidates: Candidate[], identifier: PaperIdentifier): Paper | null {
  if (candidates.length === 0) return null;
  const wanted = identifierKey(identifier);
  const groups = groupCandidates(candidates);
  const holding = groups.find((group) =>
    group.some((candidate) =>
      identityKeys(candidate.paper).some((key) => key.toLowerCase() === wanted.toLowerCase()),
    ),
  );
  const group = holding ?? [...groups].sort((a, b) => b.length - a.length)[0];
  return group ? mergeRecords(group) : null;
}
