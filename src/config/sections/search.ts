import { envVar, nonNegativeInt, optionalText, positiveInt } from '../env-var.js';

/** The local paper/patent index and the search endpoints. */
export const searchSection = {
  indexPath: envVar('ALEXANDRIA_INDEX_PATH', optionalText, {
    description:
      'SQLite file of the local paper/patent index (FTS5). Default: <ALEXANDRIA_DATA_DIR>/index.db. `alexandria ingest` writes it while the server reads it.',
  }),
  cacheTtlSeconds: envVar('ALEXANDRIA_SEARCH_CACHE_TTL_SECONDS', nonNegativeInt, {
    default: '60',
    description:
      'How long an identical search is answered from the cache, in seconds (0 turns the search cache off).',
  }),
  threads: envVar('ALEXANDRIA_SEARCH_THREADS', nonNegativeInt, {
    default: '2',
    description:
      'Worker threads that run index searches off the event loop, each with its own read-only connection (0 runs them inline).',
  }),
  shards: envVar('ALEXANDRIA_INDEX_SHARDS', positiveInt, {
    default: '2',
    description:
      'Full-text shards of a new index file, searched at once on the search threads (read when the file is created; an existing file keeps its layout).',
  }),
  mmapMb: envVar('ALEXANDRIA_INDEX_MMAP_MB', nonNegativeInt, {
    default: '2048',
    description:
      'MB of the SQLite index file memory-mapped for reads (faster searches on large indexes; 0 turns it off).',
  }),
};
