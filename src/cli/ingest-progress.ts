import cliProgress from 'cli-progress';
import type { IngestProgress } from '../ingest/ingest-pipeline.js';
import type { PdfFileReport } from './commands/ingest-pdfs.js';
import { output } from './output.js';

/** Shows ingest progress: a live bar on a terminal, a plain line every few seconds otherwise. */
export interface ProgressDisplay {
  update(progress: IngestProgress): void;
  stop(): void;
}

const megabyte = 1024 * 1024;

/** Records/s, MB and ETA figures of one progress report. */
function figures(progress: IngestProgress) {
  const seconds = Math.max(progress.elapsedMs / 1000, 0.001);
  const rate = progress.read / seconds;
  const fraction = progress.totalBytes ? Math.min(1, progress.bytes / progress.totalBytes) : undefined;
  const eta = fraction && fraction > 0.001 ? (seconds / fraction) * (1 - fraction) : undefined;
  return { rate, fraction, eta };
}

function duration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${Math.round(seconds % 60)}s`
    : `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

/** A bar on stderr when it is a terminal; log lines (every `intervalMs`) when it is not. */
export function createProgressDisplay(options: { tty: boolean; intervalMs?: number }): ProgressDisplay {
  return options.tty ? terminalBar() : logLines(options.intervalMs ?? 5000);
}

function terminalBar(): ProgressDisplay {
  let bar: cliProgress.SingleBar | undefined;
  let sized = false;
  return {
    update(progress) {
      const { rate, eta } = figures(progress);
      const payload = {
        records: progress.read.toLocaleString('en-US'),
        rate: Math.round(rate).toLocaleString('en-US'),
        etaText: duration(eta),
        file: progress.file,
        megabytes: (progress.bytes / megabyte).toFixed(1),
        totalMegabytes: progress.totalBytes ? (progress.totalBytes / megabyte).toFixed(1) : '?',
      };
      if (!bar) {
        sized = progress.totalBytes !== undefined;
        bar = new cliProgress.SingleBar(
          {
            format: sized
              ? '{bar} {percentage}% | {megabytes}/{totalMegabytes} MB | {records} records | {rate} rec/s | ETA {etaText} | {file}'
              : '{records} records | {rate} rec/s | {megabytes} MB | {file}',
            hideCursor: true,
            clearOnComplete: false,
            stopOnComplete: false,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(sized ? (progress.totalBytes ?? 1) : 1, 0, payload);
      }
      bar.update(sized ? progress.bytes : 0, payload);
    },
    stop() {
      bar?.stop();
    },
  };
}

function logLines(intervalMs: number): ProgressDisplay {
  let last = Number.NEGATIVE_INFINITY;
  return {
    update(progress) {
      if (progress.elapsedMs - last < intervalMs) return;
      last = progress.elapsedMs;
      const { rate, fraction, eta } = figures(progress);
      const share =
        fraction === undefined
          ? ''
          : `, ${(fraction * 100).toFixed(0)}% of ${((progress.totalBytes ?? 0) / megabyte).toFixed(
              1,
            )} MB, ETA ${duration(eta)}`;
      output.error(
        `ingest: ${progress.read} records read (${Math.round(rate)} rec/s${share}), ${progress.inserted} inserted, ${progress.merged} merged, ${progress.rejected} rejected; file ${progress.fileIndex + 1}/${progress.fileCount} ${progress.file}`,
      );
    },
    stop() {},
  };
}

/** One PDF of a folder, done: `[3/18] papers/x.pdf: added, 10 pages, 21 chunks, 4.2 s (note)`. */
export function pdfProgressLine(file: PdfFileReport, position: number, total: number): string {
  const seconds = `${(file.ms / 1000).toFixed(1)} s`;
  if (file.status === 'failed')
    return `[${position}/${total}] ${file.file}: failed, ${seconds}: ${file.note ?? ''}`;
  const details = [
    file.status,
    file.pages === undefined ? undefined : `${file.pages} page${file.pages === 1 ? '' : 's'}`,
    file.chunks === undefined ? undefined : `${file.chunks} chunk${file.chunks === 1 ? '' : 's'}`,
    seconds,
  ].filter((detail) => detail !== undefined);
  return `[${position}/${total}] ${file.file}: ${details.join(', ')}${file.note ? ` (${file.note})` : ''}`;
}
