import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { AgentItem, AgentSet, Split, Verdict } from './agent-sets.js';
import { readJsonLines } from './jsonl.js';

/** One answered item of the agent evaluation, as stored (decision 0066). */
export interface StoredAnswer {
  id: string;
  set: AgentSet;
  split: Split;
  question: string;
  answer: string;
  /** The answer's opening verdict word, if it has one. */
  verdict: Verdict | null;
  /** The records the answer cites (after the service's checks). */
  citations: Array<{ url: string; title: string }>;
  /** Citations in the answer that name no record of the run's ledger (`auditCitations`). */
  outsideLedger: string[];
  /** The run summary's figures (the ledger itself is left out). */
  summary: Record<string, unknown>;
  /** Seconds to the whole answer, and to the first progress event. */
  seconds: number;
  firstProgressSeconds: number | null;
  fingerprint: string;
  at: string;
}

/** What the fingerprint is made of: what changes an answer. */
export interface FingerprintParts {
  /** The chat model: its file's name and size (or an API model's name and 0). */
  model: { name: string; size: number };
  /** Every non-test source file of the agent, path relative to the repository and its text. */
  sources: Array<{ path: string; text: string }>;
  /** The chat settings that change an answer. */
  chat: Record<string, unknown>;
}

/** sha256 over the model's name and size, the agent's sources (in path order) and the chat settings. */
export function fingerprintOf(parts: FingerprintParts): string {
  const hash = createHash('sha256');
  hash.update(`model\0${parts.model.name}\0${parts.model.size}\0`);
  for (const source of [...parts.sources].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    hash.update(`file\0${source.path}\0${source.text}\0`);
  hash.update(`chat\0${stableJson(parts.chat)}`);
  return hash.digest('hex');
}

/** JSON with object keys sorted at every level; undefined values dropped. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, entry]) => `${JSON.stringify(key)}:${stableJson(entry)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** The non-test `.ts` files under `folder` (recursively), paths relative to `root`. */
export function agentSources(root: string, folder = join(root, 'src', 'agent')): FingerprintParts['sources'] {
  const files: FingerprintParts['sources'] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        files.push({ path: relative(root, path), text: readFileSync(path, 'utf8') });
    }
  };
  walk(folder);
  return files;
}

/** A model file's name and size; a name alone (size 0) when it is not a file here. */
export function modelIdentity(pathOrName: string): FingerprintParts['model'] {
  const name = pathOrName.split('/').pop() ?? pathOrName;
  return { name, size: existsSync(pathOrName) ? statSync(pathOrName).size : 0 };
}

/**
 * The answers stored for one provider: rows of every fingerprint, appended one line per answer as
 * soon as it is written. Only the current fingerprint's rows count (the latest per item).
 */
export class AnswerStore {
  private constructor(
    readonly path: string,
    readonly fingerprint: string,
    private readonly current: Map<string, StoredAnswer>,
    private staleRows: number,
  ) {}

  static async open(path: string, fingerprint: string): Promise<AnswerStore> {
    const rows = existsSync(path) ? await readJsonLines<StoredAnswer>(path) : [];
    const current = new Map<string, StoredAnswer>();
    let stale = 0;
    for (const row of rows) {
      if (row.fingerprint === fingerprint) current.set(row.id, row);
      else stale += 1;
    }
    return new AnswerStore(path, fingerprint, current, stale);
  }

  /** Rows stored under another fingerprint (older code, model or settings). */
  get stale(): number {
    return this.staleRows;
  }

  has(id: string): boolean {
    return this.current.has(id);
  }

  /** The current fingerprint's answers of these items (those answered), in their order. */
  answersOf(items: AgentItem[]): StoredAnswer[] {
    return items.flatMap((item) => this.current.get(item.id) ?? []);
  }

  async append(row: StoredAnswer): Promise<void> {
    if (row.fingerprint !== this.fingerprint) throw new Error('a row of another fingerprint');
    await mkdir(dirname(this.path), { recursive: true });
    await appendFile(this.path, `${JSON.stringify(row)}\n`);
    this.current.set(row.id, row);
  }
}

/** What a run does: its limits. */
export interface RunLimits {
  /** Most new items to answer (undefined: no limit). */
  limit?: number;
  /** No new item is started past this time (ms since the epoch). */
  deadline?: number;
}

/** What one item's run gave, before it is stored. */
export type AnswerOf = (item: AgentItem) => Promise<Omit<StoredAnswer, 'fingerprint' | 'at'>>;

/**
 * Answers the items the store does not hold under its fingerprint, in the given order, storing each
 * at once; stops at the limit or the deadline. Returns how many it answered.
 */
export async function answerMissing(
  store: AnswerStore,
  items: AgentItem[],
  answer: AnswerOf,
  limits: RunLimits = {},
  now: () => number = Date.now,
): Promise<number> {
  let answered = 0;
  for (const item of items) {
    if (store.has(item.id)) continue;
    if (limits.limit !== undefined && answered >= limits.limit) break;
    if (limits.deadline !== undefined && now() >= limits.deadline) break;
    const row = await answer(item);
    await store.append({ ...row, fingerprint: store.fingerprint, at: new Date(now()).toISOString() });
    answered += 1;
  }
  return answered;
}
