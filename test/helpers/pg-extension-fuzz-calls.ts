import {
  anyInt,
  callOf,
  docsList,
  type FuzzCall,
  hostileArray,
  hostileBigints,
  hostileBytes,
  hostileFloats,
  INT_MAX,
  integer,
  phraseText,
  pick,
  type Random,
  tsvectorText,
} from './pg-extension-fuzz.js';

/** Mostly the well-formed and the damaged index (the calls that reach the decoding), sometimes the others. */
function indexSchema(random: Random, target: FuzzTarget): string {
  return random() < 0.8
    ? (target.indexSchemas[random() < 0.5 ? 0 : 1] as string)
    : pick(random, target.indexSchemas);
}

/** What a generator knows of the database it fuzzes. */
export interface FuzzTarget {
  /** Schema of the extension's functions. */
  extensionSchema: string;
  /** Schemas holding an index (well-formed, damaged) and one holding no tables. */
  indexSchemas: string[];
  /** Word ids of the well-formed index. */
  wordIds: string[];
}

/** A call, and the search_path it needs (the 1.0–1.2 search finds its tables through it). */
export type FuzzCallOf = (random: Random, target: FuzzTarget) => FuzzCall & { searchPath?: string };

const searchTypes = [
  'int8[]',
  'int4[]',
  'int4[]',
  'int4[]',
  'int4[]',
  'float8[]',
  'float8[]',
  'float8',
  'int4',
  'bool',
  'int4',
  'int4',
  'int4',
  'int4',
  'int4',
];

/** The search's arguments, well-formed: clauses of the index's words, a plan over them, a page. */
function searchArguments(random: Random, target: FuzzTarget): unknown[] {
  const clauses = Array.from({ length: integer(random, 1, 4) }, () =>
    Array.from({ length: integer(random, 1, 3) }, () =>
      random() < 0.9 ? pick(random, target.wordIds) : pick(random, ['0', '999999']),
    ),
  );
  const indexes = clauses.map((_, at) => at);
  const someOf = () => indexes.filter(() => random() < 0.5);
  const required = random() < 0.4 ? someOf() : [];
  const scored = [...indexes.filter(() => random() < 0.8), ...(random() < 0.2 ? [0] : [])];
  return [
    clauses.flat(),
    clauses.map((clause) => clause.length),
    required,
    required.length > 0 ? [] : indexes,
    scored,
    scored.map(() => 0.01 + random() * 5),
    [10, 5, 1],
    5 + random() * 50,
    pick(random, [-1, 0, 1]),
    random() < 0.3,
    random() < 0.2 ? 1995 : null,
    random() < 0.2 ? 2015 : null,
    integer(random, 0, 2),
    integer(random, 0, 30),
    integer(random, 0, 20),
  ];
}

/** Ways to break one argument of the search (index into `searchTypes`, then the new value). */
const searchMutations: Array<(random: Random, args: unknown[]) => void> = [
  // The crash of 1.2: a clause of length −1 (or 0) and no words passes the length sum.
  (random, args) => {
    args[0] = [];
    args[1] = [pick(random, [-1, 0, -INT_MAX - 1])];
  },
  (random, args) => {
    args[1] = hostileArray(random, integer(random, 0, 5), () => anyInt(random));
  },
  (random, args) => {
    args[0] = hostileArray(random, integer(random, 0, random() < 0.05 ? 5000 : 6), () =>
      pick(random, hostileBigints),
    );
  },
  (random, args) => {
    const at = pick(random, [2, 3, 4]);
    args[at] = hostileArray(random, integer(random, 0, 5), () => anyInt(random));
  },
  (random, args) => {
    args[5] = hostileArray(random, integer(random, 0, 5), () => pick(random, hostileFloats));
  },
  (random, args) => {
    args[6] = hostileArray(random, pick(random, [0, 2, 3, 3, 4]), () => pick(random, hostileFloats));
  },
  (random, args) => {
    args[7] = pick(random, hostileFloats);
  },
  (random, args) => {
    args[pick(random, [8, 10, 11, 12])] = anyInt(random);
  },
  (random, args) => {
    args[13] = pick(random, [INT_MAX, INT_MAX - 1, -1, -INT_MAX - 1, 2 ** 30]);
    args[14] = pick(random, [INT_MAX, INT_MAX - 1, -1, 1, 2 ** 30]);
  },
  (random, args) => {
    args[integer(random, 0, 14)] = null;
  },
];

function mutated(
  random: Random,
  args: unknown[],
  mutations: Array<(random: Random, args: unknown[]) => void>,
) {
  const count = random() < 0.4 ? 0 : integer(random, 1, 3);
  for (let at = 0; at < count; at += 1) pick(random, mutations)(random, args);
  return count === 0;
}

/** The search of 1.3: the index's schema first, then the arguments of 1.0–1.2. */
export const inverted_search_in_schema: FuzzCallOf = (random, target) => {
  const args = searchArguments(random, target);
  const wellFormed = mutated(random, args, searchMutations);
  const schemaOf = random() < 0.9 ? indexSchema(random, target) : pick(random, ['pg_catalog', '99999', null]);
  const onValid = schemaOf === target.indexSchemas[0];
  return callOf(
    `${target.extensionSchema}.alexandria_inverted_search`,
    ['regnamespace', ...searchTypes],
    [schemaOf, ...args],
    wellFormed && onValid,
    true,
  );
};

/** The search of 1.0–1.2 (kept in 1.3 for callers not yet passing the schema). */
export const inverted_search: FuzzCallOf = (random, target) => {
  const args = searchArguments(random, target);
  const wellFormed = mutated(random, args, searchMutations);
  const searchPath = indexSchema(random, target);
  return {
    ...callOf(
      `${target.extensionSchema}.alexandria_inverted_search`,
      searchTypes,
      args,
      wellFormed && searchPath === target.indexSchemas[0],
      true,
    ),
    searchPath,
  };
};

export const docs_append: FuzzCallOf = (random, target) => {
  const head = docsList(random, integer(random, 0, 20));
  const tail = docsList(random, integer(random, 1, 20));
  const args: unknown[] = [head, tail];
  const wellFormed = random() < 0.2;
  if (!wellFormed)
    for (const at of [0, 1])
      if (random() < 0.7) args[at] = random() < 0.15 ? null : hostileBytes(random, args[at] as Buffer);
  // Well-formed only when the tail's first document follows the head's last: leave that to the server.
  return callOf(`${target.extensionSchema}.alexandria_docs_append`, ['bytea', 'bytea'], args, false);
};

export const slices: FuzzCallOf = (random, target) => {
  const pieces = Array.from({ length: integer(random, 0, 8) }, () =>
    random() < 0.2 ? -1 : integer(random, 0, 20),
  );
  const blob = Buffer.alloc(
    pieces.reduce((sum, length) => sum + Math.max(length, 0), 0),
    7,
  );
  const args: unknown[] = [blob, pieces];
  const wellFormed = random() < 0.25;
  if (!wellFormed) {
    if (random() < 0.5) args[0] = random() < 0.1 ? null : hostileBytes(random, blob);
    if (random() < 0.7)
      args[1] = random() < 0.1 ? null : hostileArray(random, integer(random, 0, 8), () => anyInt(random));
  }
  return callOf(`${target.extensionSchema}.alexandria_slices`, ['bytea', 'int4[]'], args, wellFormed);
};

export const bm25: FuzzCallOf = (random, target) => {
  const phrases = Array.from({ length: integer(random, 0, 4) }, () => phraseText(random));
  const args: unknown[] = [
    tsvectorText(random),
    phrases,
    phrases.map(() => random() * 5),
    [0, 1, 5, 10],
    integer(random, 1, 200),
    10 + random() * 40,
  ];
  const mutations: Array<(random: Random, args: unknown[]) => void> = [
    (random, args) => {
      args[1] = hostileArray(random, integer(random, 0, 6), () => phraseText(random));
    },
    (random, args) => {
      args[2] = hostileArray(random, integer(random, 0, 6), () => pick(random, hostileFloats));
    },
    (random, args) => {
      args[3] = hostileArray(random, pick(random, [0, 3, 4, 4, 5]), () => pick(random, hostileFloats));
    },
    (random, args) => {
      args[4] = anyInt(random);
      args[5] = pick(random, hostileFloats);
    },
    (random, args) => {
      args[integer(random, 0, 5)] = null;
    },
  ];
  const wellFormed = mutated(random, args, mutations);
  return callOf(
    `${target.extensionSchema}.alexandria_bm25`,
    ['tsvector', 'text[]', 'float8[]', 'float8[]', 'int4', 'float8'],
    args,
    wellFormed,
  );
};

/** A word id: the index's, or one at the edges of int8 (or NULL). */
function wordBound(random: Random, target: FuzzTarget): string | null {
  return random() < 0.6
    ? pick(random, target.wordIds)
    : pick(random, ['0', '-1', '9223372036854775807', '-9223372036854775808', null]);
}

/** Compaction of a range of word ids (it rewrites the index's rows, so the valid index stays valid). */
export const compact: FuzzCallOf = (random, target) => {
  const schemaOf = random() < 0.9 ? indexSchema(random, target) : pick(random, ['pg_catalog', '99999', null]);
  return callOf(
    `${target.extensionSchema}.alexandria_compact`,
    ['regnamespace', 'int8', 'int8'],
    [schemaOf, wordBound(random, target), wordBound(random, target)],
    false,
    true,
  );
};

/** The last search's memory and the metadata cache, for an index's schema. */
export const memory: FuzzCallOf = (random, target) => {
  const schemaOf =
    random() < 0.8 ? pick(random, target.indexSchemas) : pick(random, ['pg_catalog', '99999', null]);
  return callOf(`${target.extensionSchema}.alexandria_memory`, ['regnamespace'], [schemaOf], false, true);
};

/** Generators by a function's name and identity arguments (`pg_get_function_identity_arguments`). */
export const fuzzCalls: Record<string, FuzzCallOf> = {
  'alexandria_inverted_search(regnamespace, bigint[], integer[], integer[], integer[], integer[], double precision[], double precision[], double precision, integer, boolean, integer, integer, integer, integer, integer)':
    inverted_search_in_schema,
  'alexandria_inverted_search(bigint[], integer[], integer[], integer[], integer[], double precision[], double precision[], double precision, integer, boolean, integer, integer, integer, integer, integer)':
    inverted_search,
  'alexandria_docs_append(bytea, bytea)': docs_append,
  'alexandria_compact(index regnamespace, first_word bigint, last_word bigint, OUT words bigint, OUT rows_rewritten bigint, OUT postings_removed bigint, OUT postings_kept bigint)':
    compact,
  'alexandria_memory(index regnamespace, OUT search_base_bytes bigint, OUT search_peak_bytes bigint, OUT cache_entries bigint, OUT cache_bytes bigint)':
    memory,
  'alexandria_slices(bytea, integer[])': slices,
  'alexandria_bm25(tsvector, text[], double precision[], double precision[], integer, double precision)':
    bm25,
};
