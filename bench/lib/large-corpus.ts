import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import type { Paper } from '../../src/domain/paper.js';
import { ingestFormats } from '../../src/ingest/formats/index.js';
import { decompressed, resolveInputs } from '../../src/ingest/ingest-inputs.js';
import { seededRandom } from './seeded-random.js';

export { seededRandom };

/** `../shared/data`, beside the repository. */
export const sharedData = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

/** The real records the large corpus is grown from. */
export const baseInputs = [
  { path: join(sharedData, 'corpus', 'acl_anthology_2016_2022.jsonl.gz'), format: 'jsonl' },
  { path: join(sharedData, 'corpus', 'mlanthology_2024.jsonl.gz'), format: 'jsonl' },
  { path: join(sharedData, 'eval', 'scifact', 'corpus.jsonl.gz'), format: 'beir' },
];

/** Bump when the perturbation changes: cached corpora of another version are rebuilt. */
export const generatorVersion = 5;

export interface LargeCorpus {
  /** The index file (reuse it; do not write to it). */
  path: string;
  records: number;
  /** UTF-8 bytes of the indexed text (title, abstract, authors, venue) of every record. */
  rawTextBytes: number;
  /** Bytes of the same records as our JSONL (every field). */
  jsonlBytes: number;
  /** Wall-clock seconds the build took (when it was built). */
  buildSeconds: number;
  /** Records/s over the build's last tenth: the upsert rate into an index of about this size. */
  lastTenthRate: number;
  records0: number;
  /** The generator's vocabulary model (see `CorpusGenerator`). */
  vocabulary: Vocabulary;
}

/** Every real record, as the format readers produce them. */
export async function loadBaseRecords(): Promise<Paper[]> {
  const papers: Paper[] = [];
  for (const input of baseInputs) {
    const format = ingestFormats.find((candidate) => candidate.name === input.format);
    if (!format) throw new Error(`no ${input.format} reader`);
    const [file] = await resolveInputs(input.path, process.stdin);
    if (!file) continue;
    for await (const item of format.read(decompressed(file).chunks)) if (item.ok) papers.push(item.paper);
  }
  return papers;
}

// Endings real titles have; appended so that replicas differ in wording, not by random words.
const titleEndings = [
  'Revisited',
  'at Scale',
  'in Practice',
  'for Low-Resource Settings',
  'Beyond English',
  'with Limited Supervision',
  'A Case Study',
  'An Empirical Study',
  'Extended Version',
  'and Its Applications',
  'under Distribution Shift',
  'for Multilingual Data',
];

/**
 * Replica `replica` (0 = the real record) of a base record: authors shuffled, year moved back by
 * up to 12 years with a full date, the venue of another record, the abstract's sentences rotated,
 * a title ending appended, a citation count drawn log-uniformly, 8% turned into preprints, and
 * identifiers made unique so that no two replicas merge.
 */
function perturb(paper: Paper, replica: number, other: Paper, random: () => number, serial: number): Paper {
  if (replica === 0) return { ...paper, cited_by_count: Math.floor(Math.exp(random() * 8)) - 1 };
  const year = (paper.year ?? 2020) - Math.floor(random() * 13);
  const month = String(1 + Math.floor(random() * 12)).padStart(2, '0');
  const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
  const sentences = (paper.abstract ?? '').split(/(?<=\.)\s+/);
  const shift = sentences.length > 1 ? 1 + Math.floor(random() * (sentences.length - 1)) : 0;
  const authors = [...paper.authors];
  for (let index = authors.length - 1; index > 0; index -= 1) {
    const swap = Math.floor(random() * (index + 1));
    [authors[index], authors[swap]] = [authors[swap] as string, authors[index] as string];
  }
  const ids = paper.identifiers ?? {};
  const ending = titleEndings[Math.floor(random() * titleEndings.length)] as string;
  const record: Paper = {
    ...paper,
    title: `${paper.title.replace(/[.\s]+$/, '')}: ${ending}`,
    authors,
    abstract: paper.abstract ? [...sentences.slice(shift), ...sentences.slice(0, shift)].join(' ') : null,
    year,
    publication_date: `${year}-${month}-${day}`,
    venue: other.venue ?? paper.venue ?? null,
    cited_by_count: Math.floor(Math.exp(random() * 8)) - 1,
    type: random() < 0.08 ? 'preprint' : paper.type,
    doi: paper.doi ? `${paper.doi}.r${replica}` : null,
    identifiers: {
      ...(ids.acl ? { acl: `${ids.acl}-r${replica}` } : {}),
      ...(ids.doi ? { doi: `${ids.doi}.r${replica}` } : {}),
      ...(ids.corpus_id ? { corpus_id: `${ids.corpus_id}${String(replica).padStart(3, '0')}` } : {}),
      openalex: `W9${String(serial).padStart(9, '0')}`,
    },
  };
  return record;
}

/** How the real records' vocabulary grows, and how many new words the generator has made. */
export interface Vocabulary {
  /** Distinct words of the real records (titles and abstracts, lower-cased). */
  types: number;
  /** Heaps' exponent: distinct words grow as records^beta, measured on the real records themselves. */
  beta: number;
  /** New words the generator added so far (each one a word no other record has). */
  novel: number;
}

const letters = /\p{L}+/gu;

function wordsOf(paper: Paper): string[] {
  return `${paper.title} ${paper.abstract ?? ''}`.toLowerCase().match(letters) ?? [];
}

/**
 * The large corpus's records in order: the real records, then perturbed replicas of them
 * (`perturb`). A replica alone keeps the real word frequencies and lengths but never brings a new
 * word, while a real collection's vocabulary keeps growing (Heaps' law: distinct words ≈ K·n^β).
 * So replica r's abstracts also get, in all, types·((r+1)^β − r^β) words no record had before
 * (an existing word with a made-up ending), β measured on the real records: the distinct words of
 * every other record against those of all of them. At 10M records that is the vocabulary a corpus
 * 270 times the real one would have, by the real records' own growth curve.
 */
export class CorpusGenerator {
  private readonly random = seededRandom(20261125);
  private readonly novelRandom = seededRandom(20261129);
  private serial = 0;
  readonly vocabulary: Vocabulary;

  constructor(private readonly base: readonly Paper[]) {
    const all = new Set<string>();
    const half = new Set<string>();
    base.forEach((paper, index) => {
      for (const word of wordsOf(paper)) {
        all.add(word);
        if (index % 2 === 0) half.add(word);
      }
    });
    const beta = half.size > 0 ? Math.log(all.size / half.size) / Math.log(2) : 0;
    this.vocabulary = { types: all.size, beta, novel: 0 };
  }

  next(): Paper {
    const replica = Math.floor(this.serial / this.base.length);
    const paper = this.base[this.serial % this.base.length] as Paper;
    const other = this.base[Math.floor(this.random() * this.base.length)] as Paper;
    const record = perturb(paper, replica, other, this.random, this.serial);
    this.serial += 1;
    return replica === 0 ? record : this.withNovelWords(record, replica);
  }

  /** New words per record in replica `replica` (a fraction is drawn as a chance). */
  private novelPerRecord(replica: number): number {
    const { types, beta } = this.vocabulary;
    return (types * ((replica + 1) ** beta - replica ** beta)) / this.base.length;
  }

  private withNovelWords(record: Paper, replica: number): Paper {
    const rate = this.novelPerRecord(replica);
    let count = Math.floor(rate) + (this.novelRandom() < rate - Math.floor(rate) ? 1 : 0);
    if (count === 0 || !record.abstract) return record;
    const tokens = record.abstract.split(' ');
    for (let attempt = 0; count > 0 && attempt < 4 * count + 4; attempt += 1) {
      const at = Math.floor(this.novelRandom() * tokens.length);
      const token = tokens[at] as string;
      if (!/^\p{L}{5,}/u.test(token)) continue;
      tokens[at] = token.replace(/^\p{L}+/u, (word) => `${word}${this.ending()}`);
      count -= 1;
    }
    return { ...record, abstract: tokens.join(' ') };
  }

  /** A made-up ending no other new word has: "q" and the counter in letters. */
  private ending(): string {
    let n = this.vocabulary.novel;
    this.vocabulary.novel += 1;
    let text = '';
    do {
      text = String.fromCharCode(97 + (n % 26)) + text;
      n = Math.floor(n / 26);
    } while (n > 0);
    return `q${text}`;
  }
}

/** Indexed-text bytes and JSONL bytes of one record (for the size ratios). */
function sizes(paper: Paper): { text: number; jsonl: number } {
  const text =
    Buffer.byteLength(paper.title) +
    Buffer.byteLength(paper.abstract ?? '') +
    Buffer.byteLength(paper.authors.join('; ')) +
    Buffer.byteLength(paper.venue ?? '');
  return { text, jsonl: Buffer.byteLength(JSON.stringify(paper)) + 1 };
}

/**
 * The large corpus, built once into `.bench/` (index file + a JSON note of its size and raw text)
 * and reused by later runs. Building 1M records takes several minutes on a shared 2-core machine.
 */
export async function largeCorpus(options: {
  records: number;
  folder?: string;
  log?: (line: string) => void;
}): Promise<LargeCorpus> {
  const folder = options.folder ?? join(import.meta.dirname, '..', '..', '.bench');
  await mkdir(folder, { recursive: true });
  const name = `search-corpus-${options.records}-v${generatorVersion}`;
  const path = join(folder, `${name}.db`);
  const notePath = join(folder, `${name}.json`);
  if (existsSync(path) && existsSync(notePath)) {
    return { ...(JSON.parse(readFileSync(notePath, 'utf8')) as LargeCorpus), path };
  }
  const log = options.log ?? (() => undefined);
  const base = await loadBaseRecords();
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  const index = await createSqlitePaperIndex(building, { mmapBytes: 0 });
  const generator = new CorpusGenerator(base);
  const started = performance.now();
  const lastTenthFrom = Math.floor(options.records * 0.9);
  let lastTenthStarted = started;
  let rawTextBytes = 0;
  let jsonlBytes = 0;
  let serial = 0;
  let batch: Paper[] = [];
  while (serial < options.records) {
    if (serial === lastTenthFrom) lastTenthStarted = performance.now();
    const record = generator.next();
    const size = sizes(record);
    rawTextBytes += size.text;
    jsonlBytes += size.jsonl;
    batch.push(record);
    serial += 1;
    if (batch.length === 2000 || serial === options.records) {
      await index.upsert(batch);
      batch = [];
      if (serial % 100_000 === 0)
        log(`large corpus: ${serial} records in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  const upserted = performance.now();
  await index.optimize();
  const counts = await index.count();
  await index.close();
  const note: LargeCorpus = {
    path,
    records: counts.papers + counts.patents,
    records0: base.length,
    rawTextBytes,
    jsonlBytes,
    buildSeconds: (performance.now() - started) / 1000,
    lastTenthRate: (options.records - lastTenthFrom) / ((upserted - lastTenthStarted) / 1000),
    vocabulary: generator.vocabulary,
  };
  renameSync(building, path);
  for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  writeFileSync(notePath, JSON.stringify(note, null, 2));
  log(
    `large corpus: built ${note.records} records in ${note.buildSeconds.toFixed(0)} s (${statSync(path).size} bytes)`,
  );
  return note;
}
