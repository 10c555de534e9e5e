import type { SourceReport } from '../../domain/search.js';
import type { Logger } from '../../platform/logger.js';
import { SourceSkippedError } from '../../ports/paper-source.js';

/** What a federated operation was (labels the reports). */
export type FederatedOperation = 'search' | 'patents' | 'lookup' | 'graph';

export type SourceReportListener = (operation: FederatedOperation, report: SourceReport) => void;

/**
 * Where source outcomes go: one warning log line per source that did not answer, and every
 * subscriber (the HTTP layer counts them in Prometheus). Nothing about a source is silently dropped.
 */
export class SourceMonitor {
  private readonly listeners = new Set<SourceReportListener>();

  constructor(private readonly logger?: Pick<Logger, 'warn'>) {}

  /** Subscribes to every report; returns the unsubscribe function. */
  onReport(listener: SourceReportListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(operation: FederatedOperation, reports: SourceReport[]): void {
    for (const report of reports) {
      if (report.status !== 'ok') {
        this.logger?.warn(
          {
            source: report.source,
            operation,
            status: report.status,
            durationMs: report.durationMs,
            reason: report.message,
          },
          'upstream source did not answer',
        );
      }
      for (const listener of this.listeners) listener(operation, report);
    }
  }
}

/**
 * Runs one source call and describes its outcome; never throws. A failed call also hands back its
 * error, so that a caller can tell a request the local index refused from a source that broke.
 */
export async function reportCall<T>(
  source: string,
  call: () => Promise<T>,
  count: (value: T) => number,
  now: () => number = () => performance.now(),
): Promise<{ value: T | null; report: SourceReport; error?: unknown }> {
  const started = now();
  try {
    const value = await call();
    return {
      value,
      report: { source, status: 'ok', count: count(value), durationMs: Math.round(now() - started) },
    };
  } catch (error) {
    const durationMs = Math.round(now() - started);
    if (error instanceof SourceSkippedError) {
      return {
        value: null,
        report: { source, status: 'skipped', durationMs, message: error.message },
        error,
      };
    }
    const code = (error as { code?: string }).code;
    const timedOut = code === 'timeout' || (error instanceof Error && error.name === 'TimeoutError');
    return {
      value: null,
      report: {
        source,
        status: timedOut ? 'timeout' : 'failed',
        durationMs,
        message: error instanceof Error ? error.message : String(error),
      },
      error,
    };
  }
}

/** `openalex=ok;semantic_scholar=timeout` — the `x-alexandria-sources` header value. */
export function sourcesHeader(reports: readonly SourceReport[]): string {
  return reports.map((report) => `${report.source}=${report.status}`).join(';');
}

/** One sentence for an agent: which sources answered and which did not (and why). */
export function sourcesHint(reports: readonly SourceReport[]): string {
  if (reports.length === 0) return '';
  const answered = reports
    .filter((report) => report.status === 'ok')
    .map((report) => `${report.source} (${report.count ?? 0})`);
  const missing = reports
    .filter((report) => report.status !== 'ok')
    .map(
      (report) =>
        `${report.source} ${report.status === 'skipped' ? 'skipped (recent failures or rate limit)' : report.status}`,
    );
  const parts: string[] = [];
  if (answered.length > 0) parts.push(`Sources: ${answered.join(', ')}.`);
  if (missing.length > 0)
    parts.push(`Not included this time: ${missing.join(', ')}; results may be incomplete.`);
  return parts.join(' ');
}
