import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Config } from '../../config/load-config.js';
import { defaultProjectId } from '../../domain/project.js';
import { ingestFormats } from '../../ingest/formats/index.js';
import { type IngestInput, resolveInputs, separatePdfs } from '../../ingest/ingest-inputs.js';
import {
  defaultIngestBatchSize,
  type FileReport,
  type IngestReport,
  ingest,
} from '../../ingest/ingest-pipeline.js';
import { openPaperIndex, recordVectorModelOf } from '../../main.js';
import { readVectorBacklog } from '../../services/status/deployment-status.js';
import { CliError } from '../cli-error.js';
import { cliConfig, cliContainer, cliLogger } from '../context.js';
import { createProgressDisplay, pdfProgressLine } from '../ingest-progress.js';
import { output } from '../output.js';
import { ingestPdfs, type PdfIngestReport } from './ingest-pdfs.js';
import { backlogLine, seconds } from './status.js';

interface IngestOptions {
  format?: string;
  batchSize: number;
  json?: boolean;
  progress: boolean;
  optimize?: boolean;
  project?: string;
  tenant: string;
  embed: boolean;
  sample: number;
}

/**
 * `alexandria ingest <file|folder|->`: record dumps stream into the local index (ALEXANDRIA_DATA_DIR
 * / ALEXANDRIA_INDEX_PATH); PDFs (recognised by their bytes) are filed in a tenant's project the way
 * add_to_project files an upload (docs/decisions/0027-folder-ingest-packaging-backup.md). One folder
 * may hold both. Safe while the server runs: the stores are WAL databases, each batch or PDF is
 * one transaction, and everything is idempotent, so an interrupted run can simply be run again.
 */
export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description(
      'Add record dumps (.gz read as is) to the local search index, and PDFs to a project (folders recursively)',
    )
    .argument('<input>', 'a file, a folder (every file below it), or - for standard input')
    .addOption(
      new Option('-f, --format <format>', 'record format, detected per file when absent').choices(
        ingestFormats.map((format) => format.name),
      ),
    )
    .option(
      '-p, --project <name>',
      `project the PDFs are filed in, created when missing (default: the default project "${defaultProjectId}")`,
    )
    .option(
      '-t, --tenant <tenant>',
      'tenant whose project gets the PDFs (keys of this tenant see them)',
      'default',
    )
    .option('--no-embed', "don't embed PDFs' passages now (their first question does it)")
    .option('--batch-size <records>', 'records per transaction', positiveCount, defaultIngestBatchSize)
    .option('--no-progress', 'no progress bar or progress lines')
    .option('--optimize', 'compact the full-text index afterwards (faster queries after a large load)')
    .option('--json', 'print the summary as JSON')
    .option(
      '--sample <seconds>',
      'after the ingest, watch the record-vector backlog this long to measure its drain rate (0: read it once)',
      seconds,
      0,
    )
    .action(async (target: string, options: IngestOptions) => {
      const config = cliConfig();
      const { pdfs, records } = await separatePdfs(await inputsOf(target));
      const controller = new AbortController();
      const interrupt = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        const recordReport =
          records.length > 0
            ? await ingestRecords(config, records, options, controller.signal, pdfs.length > 0)
            : undefined;
        const pdfReport =
          pdfs.length > 0 ? await filePdfs(config, pdfs, options, controller.signal) : undefined;
        if (options.json) {
          output.json(pdfReport ? { records: recordReport ?? null, pdfs: pdfReport } : recordReport);
        } else {
          if (recordReport && (recordReport.read > 0 || !pdfReport)) printSummary(recordReport);
          if (recordReport?.backlog?.vectors) printBacklog(recordReport.backlog.vectors);
          if (pdfReport) printPdfSummary(pdfReport);
        }
        if (recordReport && recordReport.read === 0 && !pdfReport) {
          throw nothingIngested(target, recordReport);
        }
        const stopped = recordReport?.files.filter((file) => file.error?.startsWith('reading stopped')) ?? [];
        if (stopped.length > 0) {
          // The records read before the failure are stored; the summary above says where it stopped.
          output.error(
            `error: reading stopped early in ${names(stopped)}; fix or replace it and run the same command again.`,
          );
          process.exitCode = 1;
        }
        const failed = pdfReport?.files.filter((file) => file.status === 'failed') ?? [];
        if (failed.length > 0) {
          output.error(
            `error: ${failed.length} of ${pdfReport?.files.length} PDFs could not be filed (${failed
              .slice(0, 3)
              .map((file) => file.file)
              .join(
                ', ',
              )}${failed.length > 3 ? ', …' : ''}); the others are stored. Fix or remove them and run the same command again.`,
          );
          process.exitCode = 1;
        }
      } catch (error) {
        if (controller.signal.aborted) {
          output.error('Interrupted: everything finished is stored; run the same command again to complete.');
          process.exitCode = 130;
          return;
        }
        throw error;
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
    });
}

/** Streams the record dumps into the local index, with a progress bar or lines. */
async function ingestRecords(
  config: Config,
  inputs: IngestInput[],
  options: IngestOptions,
  signal: AbortSignal,
  withPdfs: boolean,
): Promise<IngestReport & { backlog?: VectorBacklog }> {
  const index = await openPaperIndex(config, cliLogger(config));
  const display = options.progress
    ? createProgressDisplay({ tty: Boolean(process.stderr.isTTY) })
    : undefined;
  try {
    const report = await ingest(index, inputs, {
      ...(options.format ? { format: options.format } : {}),
      batchSize: options.batchSize,
      signal,
      ...(display ? { onProgress: (progress) => display.update(progress) } : {}),
    });
    display?.stop();
    if (options.optimize) await index.optimize();
    // What the summary says about vectors: the records that still wait for one, and how fast a
    // running serve or worker computes them (measured only with --sample).
    const backlog =
      report.inserted + report.merged > 0
        ? await readVectorBacklog({
            index,
            vectorModel: await recordVectorModelOf(config, index),
            sampleMs: options.sample * 1000,
          }).catch(() => undefined)
        : undefined;
    // Beside PDFs, a file in no record format (a README, notes) is listed as skipped, not an error.
    if (withPdfs && report.read === 0 && !options.json) {
      for (const file of report.files) output.error(`skipped ${file.file}: ${file.error ?? 'no records'}`);
    }
    return backlog ? { ...report, backlog } : report;
  } finally {
    display?.stop();
    await index.close();
  }
}

/** Files the PDFs in the project (see ingest-pdfs.ts), a progress line per PDF on stderr. */
async function filePdfs(
  config: Config,
  pdfs: IngestInput[],
  options: IngestOptions,
  signal: AbortSignal,
): Promise<PdfIngestReport> {
  // The command queues the embedding itself (and waits for it), rather than the add doing it.
  const embed = options.embed && config.documents.embedOnAdd;
  config.documents.embedOnAdd = false;
  const container = await cliContainer(config);
  try {
    const project = options.project ?? defaultProjectId;
    if (options.progress) {
      output.error(
        `Filing ${pdfs.length} PDF${pdfs.length === 1 ? '' : 's'} in project "${project}" of tenant "${options.tenant}"…`,
      );
    }
    return await ingestPdfs(container, pdfs, {
      tenant: options.tenant,
      ...(options.project === undefined ? {} : { project: options.project }),
      embed,
      signal,
      ...(options.progress
        ? { onFile: (file, position, total) => output.error(pdfProgressLine(file, position, total)) }
        : {}),
    });
  } finally {
    await container.close();
  }
}

function positiveCount(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw new InvalidArgumentError('Give a whole number of at least 1.');
  }
  return Number(text);
}

const formatNames = ingestFormats.map((format) => format.name).join(', ');

/** The inputs named by the argument, or a one-line error when the path cannot be read. */
async function inputsOf(target: string): Promise<IngestInput[]> {
  const inputs = await resolveInputs(target, process.stdin).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
      throw new CliError(
        `No such file or folder: ${target}. Give a file, a folder, or - for standard input.`,
      );
    }
    if (error.code === 'EACCES' || error.code === 'EPERM') {
      throw new CliError(`Cannot read ${target}: permission denied. Check its permissions.`);
    }
    throw error;
  });
  if (inputs.length === 0) {
    throw new CliError(`Nothing to ingest: ${target} holds no files (hidden files are skipped).`);
  }
  return inputs;
}

/**
 * Why a run read no record at all, as one line: a compressed PDF (PDFs are read as they are), a
 * file in no known format, a file that stopped being readable, or inputs in a known format with
 * no record.
 */
function nothingIngested(target: string, report: IngestReport): CliError {
  const skipped = report.files.filter((file) => file.error !== undefined);
  const gzippedPdfs = skipped.filter((file) => /\.pdf\.gz$/i.test(file.file));
  if (gzippedPdfs.length > 0) {
    return new CliError(
      `${names(gzippedPdfs)}: a compressed PDF is not read; decompress it (gunzip) and run ingest on the PDF.`,
    );
  }
  const unknown = skipped.filter(
    (file) => file.format === null && !file.error?.startsWith('reading stopped'),
  );
  if (unknown.length > 0) {
    return new CliError(
      `Nothing ingested: the format of ${names(unknown)} was not recognised; accepted formats: ${formatNames} (give one with --format if detection fails).`,
    );
  }
  const stopped = skipped[0];
  if (stopped) {
    return new CliError(
      `Nothing ingested from ${stopped.file}: ${stopped.error}. Check that the file is complete.`,
    );
  }
  const source = target === '-' ? 'standard input' : target;
  return new CliError(`Nothing ingested: ${source} holds no records. Check that it is the dump you meant.`);
}

function names(files: FileReport[]): string {
  const shown = files.slice(0, 3).map((file) => (file.file === '-' ? 'standard input' : file.file));
  return files.length > 3 ? `${shown.join(', ')} and ${files.length - 3} more` : shown.join(', ');
}

type VectorBacklog = Awaited<ReturnType<typeof readVectorBacklog>>;

/** The record-vector backlog after the ingest (issue 38): what waits, and what computes it. */
function printBacklog(vectors: NonNullable<VectorBacklog['vectors']>): void {
  output.line(`Vectors: ${backlogLine(vectors)}.`);
  if (vectors.pending > 0 && vectors.drainPerSecond === undefined) {
    output.line(
      '  A running `alexandria serve` (or `alexandria worker`) computes them; until then searches rank these records by keywords. `alexandria status` shows the drain rate and the time to finish.',
    );
  }
}

function printSummary(report: IngestReport): void {
  const seconds = report.elapsedMs / 1000;
  output.line(
    `Read ${report.read} records in ${seconds.toFixed(1)} s (${Math.round(report.read / Math.max(seconds, 0.001))} records/s): ` +
      `${report.inserted} inserted, ${report.merged} merged, ${report.unchanged} unchanged, ${report.rejected} rejected.`,
  );
  for (const file of report.files) {
    const detail = file.error
      ? `skipped: ${file.error}`
      : `${file.format}, ${file.read} records, ${file.rejected} rejected`;
    output.line(`  ${file.file}: ${detail}`);
  }
  if (report.reasons.length > 0) {
    output.line('Rejected, by reason:');
    for (const { reason, count } of report.reasons.slice(0, 10)) output.line(`  ${count} × ${reason}`);
    output.line('First rejections:');
    for (const example of report.examples.slice(0, 10)) {
      output.line(`  ${example.file} ${example.location}: ${example.reason}`);
    }
  }
}

function printPdfSummary(report: PdfIngestReport): void {
  const seconds = (report.elapsedMs / 1000).toFixed(1);
  const project = `project "${report.project.name}"${report.project.id && report.project.id !== report.project.name ? ` (${report.project.id})` : ''}`;
  output.line(
    `Filed ${report.files.length} PDF${report.files.length === 1 ? '' : 's'} in ${seconds} s in ${project} of tenant "${report.tenant}": ` +
      `${report.added} added, ${report.unchanged} unchanged, ${report.failed} failed.`,
  );
  for (const file of report.files.filter((each) => each.status === 'failed' || each.note)) {
    output.line(`  ${file.file}: ${file.status === 'failed' ? 'failed: ' : ''}${file.note ?? ''}`);
  }
  if (report.project.id && report.added + report.unchanged > 0) {
    output.line(
      `Read them with GET /api/projects/${report.project.id} (a key of tenant "${report.tenant}"), the web page or the MCP tools.`,
    );
  }
}
