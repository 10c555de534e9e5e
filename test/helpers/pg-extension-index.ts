import pg from 'pg';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';

/**
 * Small paper indexes for the alexandria_pg extension's own tests (its fuzz test and its
 * regression tests): written by the real adapter, so the posting blocks, tails, tombstones and
 * metadata rows are the bytes the extension reads in production.
 */
const vocabulary = [
  'glacier',
  'coral',
  'bleaching',
  'carbon',
  'storage',
  'moss',
  'lichen',
  'warming',
  'ocean',
  'sediment',
  'protein',
  'folding',
];

/** A deterministic record: `common` in every one, a few vocabulary words, some in phrases. */
export function syntheticRecord(serial: number, edition = 0): Paper {
  const pick = (offset: number) => vocabulary[(serial * 7 + offset * 5) % vocabulary.length] as string;
  return {
    ...emptyPaper(`Common survey ${serial} of ${pick(0)} ${pick(1)}`),
    type: serial % 9 === 0 ? 'patent' : 'journal-article',
    year: 1990 + (serial % 35),
    publication_date: `${1990 + (serial % 35)}-0${1 + (serial % 9)}-1${serial % 10}`,
    cited_by_count: serial % 4 === 0 ? null : serial * 3,
    doi: `10.5555/fuzz.${serial}`,
    abstract: `The common ${pick(2)} ${pick(3)} was measured ${edition} times near the ${pick(4)} ${pick(5)}; common ${pick(1)} ${pick(6)} again.`,
    authors: [`Author ${serial % 13}`],
  };
}

/**
 * Writes `records` records into `schema` in batches, then rewrites every fifth one (new text: its old
 * document becomes a tombstone). Returns the word ids the index holds.
 */
export async function buildExtensionIndex(
  url: string,
  schema: string,
  records: number,
): Promise<{ wordIds: string[]; commonId: string }> {
  const index = await createPostgresPaperIndex(url, { schema, maxConnections: 2 });
  try {
    for (let start = 0; start < records; start += 100) {
      const batch = Array.from({ length: Math.min(100, records - start) }, (_, at) =>
        syntheticRecord(start + at),
      );
      await index.upsert(batch);
    }
    const changed = Array.from({ length: Math.floor(records / 5) }, (_, at) => syntheticRecord(at * 5, 1));
    await index.upsert(changed);
  } finally {
    await index.close();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const words = await client.query<{ id: string; word: string }>(
      `SELECT id::text, word FROM ${schema}.paper_words ORDER BY id`,
    );
    const common = words.rows.find((row) => row.word === 'common');
    if (!common) throw new Error('the synthetic index lacks its common word');
    return { wordIds: words.rows.map((row) => row.id), commonId: common.id };
  } finally {
    await client.end();
  }
}
