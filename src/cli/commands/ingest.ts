import { open } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ingestFormats } from '../../ingest/formats/index.js';
import { type IngestInput, resolveInputs } from '../../ingest/ingest-inputs.js';
import { type FileReport, type IngestReport, ingest } from '../../ingest/ingest-pipeline.js';
import { openPaperIndex } from '../../main.js';
import { CliError } from '../cli-error.js';
import { cliConfig } from '../context.js';
import { createProgressDisplay } from '../ingest-progress.js';
import { output } from '../output.js';

interface IngestOptions {
  format?: string;
  batchSize: number;
  json?: boolean;
  progress: boolean;
  optimize?: boolean;
}

/**
 * `alexandria ingest <file|folder|->`: streams records into the local index (ALEXANDRIA_DATA_DIR /
 * ALEXANDRIA_INDEX_PATH). Safe while the server runs: the index is a WAL database and each batch is
 * one transaction, so an interrupted run can simply be run again.
 */
export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description('Add papers and patents from dumps (.gz read as is) to the local search index')
    .argument('<input>', 'a file, a folder (every file below it), or - for standard input')
    .addOption(
      new Option('-f, --format <format>', 'input format, detected per file when absent').choices(
        ingestFormats.map((format) => format.name),
      ),
    )
    .option('--batch-size <records>', 'records per transaction', positiveCount, 500)
    .option('--no-progress', 'no progress bar or progress lines')
    .option('--optimize', 'compact the full-text index afterwards (faster queries after a large load)')
    .option('--json', 'print the summary as JSON')
    .action(async (target: string, options: IngestOptions) => {
      const config = cliConfig();
      const inputs = await inputsOf(target);
      const index = await openPaperIndex(config);
      const display = options.progress
        ? createProgressDisplay({ tty: Boolean(process.stderr.isTTY) })
        : undefined;
      const controller = new AbortController();
      const interrupt = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        const report = await ingest(index, inputs, {
          ...(options.format ? { format: options.format } : {}),
          batchSize: options.batchSize,
          signal: controller.signal,
          ...(display ? { onProgress: (progress) => display.update(progress) } : {}),
        });
        display?.stop();
        if (options.optimize) await index.optimize();
        if (options.json) output.json(report);
        else if (report.read > 0) printSummary(report);
        if (report.read === 0) throw await nothingIngested(target, report);
        const stopped = report.files.filter((file) => file.error?.startsWith('reading stopped'));
        if (stopped.length > 0) {
          // The records read before the failure are stored; the summary above says where it stopped.
          output.error(
            `error: reading stopped early in ${names(stopped)}; fix or replace it and run the same command again.`,
          );
          process.exitCode = 1;
        }
      } catch (error) {
        display?.stop();
        if (controller.signal.aborted) {
          output.error(
            'Interrupted: every finished batch is stored; run the same command again to complete.',
          );
          process.exitCode = 130;
          return;
        }
        throw error;
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
        await index.close();
      }
    });
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
 * Why a run read no record at all, as one line: a PDF (which ingest does not read), a file in no
 * known format, a file that stopped being readable, or inputs in a known format with no record.
 */
async function nothingIngested(target: string, report: IngestReport): Promise<CliError> {
  const skipped = report.files.filter((file) => file.error !== undefined);
  const pdfs: FileReport[] = [];
  for (const file of skipped) if (await isPdf(file.file)) pdfs.push(file);
  if (pdfs.length > 0) {
    return new CliError(
      `${names(pdfs)}: ingest reads metadata dumps (${formatNames}), not PDFs; add a PDF to a project with add_to_project (POST /api/add_to_project, the web UI or the MCP tool).`,
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

/** By extension, or by the `%PDF-` magic within the first KiB (PDFs named otherwise). */
async function isPdf(path: string): Promise<boolean> {
  if (/\.pdf(\.gz)?$/i.test(path)) return true;
  if (path === '-') return false;
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await handle.close();
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
