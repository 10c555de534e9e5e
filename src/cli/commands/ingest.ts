import type { Command } from 'commander';
import { ingestFormats } from '../../ingest/formats/index.js';
import { resolveInputs } from '../../ingest/ingest-inputs.js';
import { type IngestReport, ingest } from '../../ingest/ingest-pipeline.js';
import { openPaperIndex } from '../../main.js';
import { cliConfig } from '../context.js';
import { createProgressDisplay } from '../ingest-progress.js';
import { output } from '../output.js';

interface IngestOptions {
  format?: string;
  batchSize: string;
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
    .option(
      '-f, --format <format>',
      `input format, detected per file when absent: ${ingestFormats.map((format) => format.name).join(', ')}`,
    )
    .option('--batch-size <records>', 'records per transaction', '500')
    .option('--no-progress', 'no progress bar or progress lines')
    .option('--optimize', 'compact the full-text index afterwards (faster queries after a large load)')
    .option('--json', 'print the summary as JSON')
    .action(async (target: string, options: IngestOptions) => {
      const config = cliConfig();
      const inputs = await resolveInputs(target, process.stdin);
      if (inputs.length === 0) {
        output.error(`Nothing to ingest in ${target}.`);
        process.exitCode = 1;
        return;
      }
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
          batchSize: Math.max(1, Number.parseInt(options.batchSize, 10) || 500),
          signal: controller.signal,
          ...(display ? { onProgress: (progress) => display.update(progress) } : {}),
        });
        display?.stop();
        if (options.optimize) await index.optimize();
        if (options.json) output.json(report);
        else printSummary(report);
        if (report.files.some((file) => file.error?.startsWith('reading stopped'))) process.exitCode = 1;
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
