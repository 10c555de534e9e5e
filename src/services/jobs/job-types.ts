import { embedRecordRangeJob, embedRecordsJob } from '../search/record-vectors-schedule.js';
import { embedPassagesJob } from './passage-embedding-job.js';
import { parsePdfJob } from './pdf-parse-job.js';

/**
 * Every kind of background job Alexandria queues (the `queue` label of `alexandria_jobs`, the types
 * `alexandria jobs` lists).
 */
export const knownJobTypes: readonly string[] = [
  parsePdfJob,
  embedPassagesJob,
  embedRecordsJob,
  embedRecordRangeJob,
];
