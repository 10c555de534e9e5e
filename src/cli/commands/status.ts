import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { createJobQueue } from '../../compose/job-queue.js';
import type { Config } from '../../config/load-config.js';
import { openPaperIndex, openProjectStore, recordVectorModelOf } from '../../main.js';
import { knownJobTypes } from '../../services/jobs/job-types.js';
import { type DeploymentStatus, readDeploymentStatus } from '../../services/status/deployment-status.js';
import { CliError } from '../cli-error.js';
import { cliConfig, cliLogger } from '../context.js';
import { output } from '../output.js';

/**
 * `alexandria status`: the figures /metrics shows, read from the deployment's stores (decision
 * 0051) — the data folder's SQLite files, or PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) — so an
 * operator needs no running server and no Prometheus: index size, the record-vector backlog with
 * its drain rate and finishing time, jobs per queue and state, PDFs stored per tenant.
 */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'Index size, vector backlog (drain rate, time to finish), jobs and storage per tenant, read from the data folder or DATABASE_URL/REDIS_URL',
    )
    .option('--json', 'print JSON')
    .option(
      '--sample <seconds>',
      'while records wait for vectors, watch this long to measure the drain rate (0: read once)',
      seconds,
      5,
    )
    .action(async (options: { json?: boolean; sample: number }) => {
      const config = cliConfig();
      const where = locationOf(config);
      const status = await readStatus(config, options.sample * 1000);
      if (options.json) output.json({ database: where, ...status });
      else printStatus(where, status);
    });
}

/** Where the figures come from: the data folder's SQLite files or the PostgreSQL database. */
function locationOf(config: Config): { kind: 'sqlite' | 'postgres'; location: string } {
  const url = config.storage.databaseUrl;
  if (url) {
    const parsed = new URL(url);
    return { kind: 'postgres', location: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}` };
  }
  const dataDir = resolve(config.storage.dataDir);
  if (!existsSync(join(dataDir, 'alexandria.db')) && !existsSync(join(dataDir, 'index.db'))) {
    throw new CliError(
      `No Alexandria data in ${dataDir}: give the data folder with ALEXANDRIA_DATA_DIR (or run from it), or set DATABASE_URL for a scaled-out deployment.`,
      2,
    );
  }
  return { kind: 'sqlite', location: dataDir };
}

async function readStatus(config: Config, sampleMs: number): Promise<DeploymentStatus> {
  const logger = cliLogger(config);
  const index = await openPaperIndex(config, logger);
  const projects = await openProjectStore(config, logger);
  // Without REDIS_URL jobs live inside `alexandria serve`: nothing outside it can count them.
  const queue = config.storage.redisUrl ? await createJobQueue(config, logger) : undefined;
  try {
    return await readDeploymentStatus({
      index,
      projects,
      jobs: queue && { queue, types: knownJobTypes },
      vectorModel: await recordVectorModelOf(config, index),
      sampleMs,
    });
  } finally {
    await queue?.close();
    await projects.close();
    await index.close();
  }
}

function printStatus(where: { kind: string; location: string }, status: DeploymentStatus): void {
  output.line(`Alexandria status: ${where.location} (${where.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`);
  output.line(`index      ${count(status.index.records)} records`);
  const vectors = status.vectors;
  if (!vectors) output.line('vectors    off (ALEXANDRIA_RECORD_VECTORS=false)');
  else output.line(`vectors    ${backlogLine(vectors)}`);
  if (!status.jobs) output.line('jobs       in-process (no REDIS_URL): see /metrics of the server');
  else {
    output.line('jobs');
    output.table(
      knownJobTypes.map((type) => ({
        // Indented under their heading, column names included.
        '  queue': `  ${type}`,
        ...Object.fromEntries(
          (status.jobs ?? [])
            .filter((job) => job.type === type && job.state !== 'completed')
            .map((job) => [job.state, String(job.count)]),
        ),
      })),
    );
  }
  if (status.storage.length === 0) output.line('storage    no stored PDFs');
  else {
    output.line('storage');
    output.table(
      status.storage.map((tenant) => ({
        '  tenant': `  ${tenant.tenantId}`,
        pdfs: count(tenant.documents),
        bytes: bytes(tenant.bytes),
      })),
    );
  }
}

export function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0)
    throw new InvalidArgumentError('Give a number of seconds, 0 or more.');
  return parsed;
}

const count = (value: number) => value.toLocaleString('en-US');

function bytes(value: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? scaled : scaled.toFixed(1)} ${units[unit]}`;
}

/**
 * The record-vector backlog in words, as `alexandria status` and the `alexandria ingest` summary
 * print it: "12 records waiting, 500 embedded (model); draining 9.6/s, done in ~2 s".
 */
export function backlogLine(vectors: NonNullable<DeploymentStatus['vectors']>): string {
  const pace =
    vectors.pending === 0
      ? 'done'
      : vectors.drainPerSecond === undefined
        ? 'drain rate not measured (--sample)'
        : vectors.etaSeconds === undefined
          ? `not draining (nothing stored in ${vectors.sampledSeconds.toFixed(0)} s: is a process running jobs?)`
          : `draining ${vectors.drainPerSecond.toFixed(1)}/s, done in ~${duration(vectors.etaSeconds)}`;
  return `${count(vectors.pending)} records waiting, ${count(vectors.stored)} embedded (${vectors.model}); ${pace}`;
}

function duration(totalSeconds: number): string {
  if (totalSeconds < 90) return `${Math.ceil(totalSeconds)} s`;
  if (totalSeconds < 5400) return `${Math.round(totalSeconds / 60)} min`;
  return `${(totalSeconds / 3600).toFixed(1)} h`;
}
