import { z } from 'zod';
import { envVar, nonNegativeInt, positiveInt } from '../env-var.js';

const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'expected postgres://user@host:port/database')
  .optional();
const postgresUrlList = z
  .string()
  .optional()
  .transform((text) =>
    (text ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url.length > 0),
  )
  .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'expected postgres://user@host:port/database')));
const redisUrl = z
  .string()
  .regex(/^rediss?:\/\//, 'expected redis://host:port')
  .optional();

/** Where data lives: the embedded defaults under the data dir, or PostgreSQL/Redis/S3. */
export const storageSection = {
  dataDir: envVar('ALEXANDRIA_DATA_DIR', z.string().min(1), {
    default: './data',
    description:
      'Folder for the SQLite databases (projects, the paper index) and blobs when no S3 bucket is set. Unset, the CLI uses ./data of the working directory, or, when started in / or a folder it cannot write that has no ./data, $XDG_DATA_HOME/alexandria (default ~/.local/share/alexandria).',
  }),
  databaseUrl: envVar('DATABASE_URL', postgresUrl, {
    secret: true,
    description:
      'PostgreSQL connection URL. When set, tenants, API keys, projects, document records, the signing secret and the paper index live in PostgreSQL instead of <data dir>/alexandria.db and <data dir>/index.db, shared by every replica and by `alexandria ingest` (the index needs the alexandria_pg extension on the server: README, "Scaling out").',
  }),
  databaseReadUrls: envVar('ALEXANDRIA_DATABASE_READ_URLS', postgresUrlList, {
    secret: true,
    description:
      'Comma-separated PostgreSQL URLs of read replicas (streaming standbys of DATABASE_URL) that take paper-index searches, round robin; a replica that has not replayed the last committed ingest is skipped for the primary. Writes always go to DATABASE_URL. /metrics counts searches by the database that answered (alexandria_index_searches_total{served_by="primary"|"replica"}).',
  }),
  redisUrl: envVar('REDIS_URL', redisUrl, {
    secret: true,
    description:
      "Redis URL. When set, every replica shares through Redis the cache (search answers, federated result lists, upstream responses, fetched-URL and parse-failure records, reference checks and citation contexts), the API rate limits, each tenant's share of heavy requests and parses, the upstream sources' request spacing and circuit breakers, and the background job queue (run by `serve` and `alexandria worker`). Local search answers are keyed by the answering replica's index and its data version.",
  }),
  s3Bucket: envVar('ALEXANDRIA_S3_BUCKET', z.string().min(3).optional(), {
    description:
      'S3 bucket for blobs (PDFs, figures, parses, passage vectors); it must exist already. When unset, blobs go to <data dir>/blobs.',
  }),
  s3Endpoint: envVar('ALEXANDRIA_S3_ENDPOINT', z.url().optional(), {
    description: 'S3-compatible endpoint URL (MinIO, R2, …); unset for AWS.',
  }),
  s3Region: envVar('ALEXANDRIA_S3_REGION', z.string().min(1), {
    default: 'us-east-1',
    description: 'S3 region.',
  }),
  blobSweepIntervalMinutes: envVar('ALEXANDRIA_BLOB_SWEEP_INTERVAL_MINUTES', nonNegativeInt, {
    default: '360',
    description:
      'How often the server sweeps the blob store, in minutes; the first sweep runs at start. It frees every blob no stored document references (left by a kill, by older releases, or caches of PDFs only read by url once past ALEXANDRIA_FULLTEXT_URL_CACHE_TTL_SECONDS), drawings and parses no request reads any more, finishes deletions a kill cut short, and counts what each area holds (alexandria_blob_store_bytes on /metrics). 0: never.',
  }),
  blobSweepGraceMinutes: envVar('ALEXANDRIA_BLOB_SWEEP_GRACE_MINUTES', positiveInt, {
    default: '60',
    description:
      'Age below which an unreferenced stored PDF is left alone by the sweep, in minutes: an add in progress (here or on another replica sharing the blob store) writes the PDF before its row. Deletions marked longer ago than this are taken as cut short by a kill and finished by the sweep.',
  }),
  s3AccessKeyId: envVar('AWS_ACCESS_KEY_ID', z.string().min(1).optional(), {
    secret: true,
    description: 'S3 access key id (standard AWS variable).',
  }),
  s3SecretAccessKey: envVar('AWS_SECRET_ACCESS_KEY', z.string().min(1).optional(), {
    secret: true,
    description: 'S3 secret access key (standard AWS variable).',
  }),
};
