import { z } from 'zod';
import { booleanText, envVar, nonNegativeInt, optionalText, positiveInt } from '../env-var.js';

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
  recordVectors: envVar('ALEXANDRIA_RECORD_VECTORS', booleanText, {
    default: 'true',
    description:
      "Compute index records' vectors in the background (the embedding model, low priority) and rank relevance searches by BM25 fused with dense similarity where they exist (docs/decisions/0036-hybrid-paper-search.md). false: BM25 alone, no vectors computed.",
  }),
  hybridCandidates: envVar('ALEXANDRIA_HYBRID_CANDIDATES', positiveInt, {
    default: '100',
    description:
      "How many of BM25's first results a relevance search re-ranks with record vectors (at most 100); pages past them keep BM25 order.",
  }),
  hybridDenseWeight: envVar(
    'ALEXANDRIA_HYBRID_DENSE_WEIGHT',
    z.union([z.literal('rrf').transform(() => undefined), z.coerce.number().min(0).max(1)]),
    {
      default: '0.6',
      description:
        "How a relevance search fuses BM25 with record vectors: this weight × the query's cosine + the rest × the BM25 score, both min-max normalised over the candidates (decision 0036). `rrf`: reciprocal-rank fusion (k 60) instead.",
    },
  ),
  hybridDeadlineMs: envVar('ALEXANDRIA_HYBRID_DEADLINE_MS', positiveInt, {
    default: '200',
    description: "Longest a search waits for its query's vector, in ms; past it the page is BM25's.",
  }),
  recordVectorsBatch: envVar('ALEXANDRIA_RECORD_VECTORS_BATCH', positiveInt, {
    default: '64',
    description:
      'Records the background record-vector job reads and embeds per step: sorted by length and cut into model batches (ALEXANDRIA_EMBEDDING_BATCH_SIZE) that its background workers embed side by side.',
  }),
  recordVectorTokens: envVar('ALEXANDRIA_RECORD_VECTOR_TOKENS', nonNegativeInt, {
    default: '0',
    description:
      "Tokens of a record's title and abstract its vector is computed from; 0 = as many as the model reads (254 for all-MiniLM-L6-v2). Fewer embed faster and rank worse: measured on SciFact (decision 0062), 190 tokens ~1.4× as fast for 0.0025–0.0044 less nDCG@10. Vectors stored before a change keep their length until their record changes.",
  }),
  recordVectorsPauseMs: envVar('ALEXANDRIA_RECORD_VECTORS_PAUSE_MS', nonNegativeInt, {
    default: '0',
    description:
      'Pause of the background record-vector job after each step, in ms. Its workers run at a low CPU priority (ALEXANDRIA_EMBEDDING_BACKGROUND_NICE), so requests take the cores first without one; a pause caps its share of an idle machine.',
  }),
  recordVectorsIdleMs: envVar('ALEXANDRIA_RECORD_VECTORS_IDLE_MS', positiveInt, {
    default: '15000',
    description:
      'How often the background record-vector job looks for new records once every record has a vector, in ms (it walks the whole index again every 10 minutes for records whose text changed).',
  }),
};
