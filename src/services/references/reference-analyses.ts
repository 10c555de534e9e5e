import { LRUCache } from 'lru-cache';
import type { CitationContext } from '../../bibliography/citation-markers.js';
import {
  inlineReferenceReader,
  type ReferenceReader,
  type ReferenceReading,
} from '../../bibliography/reference-reading.js';
import type { ReferenceEntry, ReferenceList } from '../../bibliography/references.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { DocumentText } from '../documents/document-text.js';
import { contentFolder, safeSegment } from '../storage/blob-layout.js';
import type { OnlineRecords } from './online-records.js';
import { type ReferenceLink, ReferenceLinker } from './reference-linker.js';

/** A document's references: the list, the citing sentences and the links (with the index version they hold for). */
export interface Analysis {
  list: ReferenceList | null;
  contexts: CitationContext[];
  links: Array<ReferenceLink | null>;
  /** Entries online linking has not finished with (a source failed, or the time budget ran out). */
  pending: boolean;
}

export interface ReferenceAnalysesOptions {
  index: PaperIndex;
  blobs: BlobStore;
  /** Reads lists off the event loop when they are big (default: in this thread). */
  reader?: ReferenceReader | undefined;
  /** The federated sources, when some are enabled (decision 0032). */
  online?: OnlineRecords | undefined;
  /** How long one request may spend asking the sources while linking a list (default 20 s). */
  onlineBudgetMs?: number | undefined;
}

/** What is stored beside a document: its links, and how far local linking got. */
interface StoredLinks {
  version?: string;
  links?: unknown;
  pending?: unknown;
  /** Entries linked locally so far, in list order; absent in links stored complete. */
  linked?: unknown;
}

/** Bumped when parsing or linking changes, so stored links are recomputed. */
export const referencesVersion = 'r1';
/** Entries linked through the sources at once. */
const onlineConcurrency = 4;

/**
 * A document's reference list, citing sentences and links (decision 0031): the list is read from
 * the stored text (off the event loop for big texts), its entries linked to the local index one by
 * one, and the links stored beside the document in the BlobStore under the index's data version.
 * Linking stops when the caller's signal aborts (its time budget, decision 0042); the entries
 * linked so far are stored, and the next request goes on from there.
 */
export class ReferenceAnalyses {
  private readonly linker: ReferenceLinker;
  private readonly readings = new LRUCache<string, ReferenceReading>({ max: 64 });
  private readonly memory = new LRUCache<string, { version: string; analysis: Analysis }>({ max: 64 });

  constructor(private readonly options: ReferenceAnalysesOptions) {
    this.linker = new ReferenceLinker(options.index);
  }

  get online(): OnlineRecords | undefined {
    return this.options.online;
  }

  /** Drops the analyses of content `sha256` from memory: its blobs are being released (decision 0041). */
  forget(sha256: string): void {
    const ofContent = (key: string) => key.endsWith(`:${sha256}`);
    for (const key of [...this.memory.keys()].filter(ofContent)) this.memory.delete(key);
    for (const key of [...this.readings.keys()].filter(ofContent)) this.readings.delete(key);
  }

  /** The list and citing sentences of a text (no linking): from memory, else read. */
  async reading(text: DocumentText, signal?: AbortSignal): Promise<ReferenceReading> {
    const key = `${text.origin}:${text.sha256}`;
    const remembered = this.readings.get(key);
    if (remembered) return remembered;
    const reading = await (this.options.reader ?? inlineReferenceReader).read(text.chunks, signal);
    this.readings.set(key, reading);
    return reading;
  }

  /** The version links are stored under: the index's data, and whether the sources were asked. */
  async version(): Promise<string> {
    return `${referencesVersion}:${await this.options.index.dataVersion()}${this.options.online ? ':online' : ''}`;
  }

  /** Links of the text stored for the current index version, without linking anything; null when none. */
  async storedLinks(text: DocumentText): Promise<Array<ReferenceLink | null> | null> {
    const version = await this.version();
    const remembered = this.memory.get(`${text.origin}:${text.sha256}`);
    if (remembered?.version === version) return remembered.analysis.links;
    const stored = await this.readStored(text, version);
    return stored && stored.linked === stored.links.length ? stored.links : null;
  }

  /**
   * The analysis of a text, from memory, the BlobStore, or computed (and stored). `index` is the
   * index linking searches (a request's memoized view of it; default the index itself).
   */
  async analyse(text: DocumentText, signal?: AbortSignal, index?: PaperIndex): Promise<Analysis> {
    const linker = index ? new ReferenceLinker(index) : this.linker;
    const online = this.options.online;
    const version = await this.version();
    const key = `${text.origin}:${text.sha256}`;
    const remembered = this.memory.get(key);
    if (remembered?.version === version && !remembered.analysis.pending) return remembered.analysis;
    const { list, contexts } = await this.reading(text, signal);
    const entries = list?.entries ?? [];
    let links: Array<ReferenceLink | null> | null = null;
    let linked = 0;
    let pending = false;
    let changed = false;
    if (remembered?.version === version) {
      links = remembered.analysis.links;
      linked = links.length;
      pending = true;
    } else {
      const stored = await this.readStored(text, version);
      if (stored) ({ links, linked, pending } = stored);
    }
    if (!links || links.length !== entries.length) {
      links = entries.map(() => null);
      linked = 0;
    }
    if (linked < entries.length) {
      const from = linked;
      try {
        for (; linked < entries.length; linked++) {
          signal?.throwIfAborted();
          links[linked] = await linker.link(entries[linked] as ReferenceEntry);
        }
      } catch (error) {
        // Stopped (its time budget, or the client left): what was linked is kept for the next request.
        if (linked > from) await this.store(text, { version, links, pending: false, linked });
        throw error;
      }
      pending = online !== undefined && links.some((link) => link === null);
      changed = true;
    }
    if (pending && online) {
      pending = await this.linkOnline(linker, entries, links, online, signal);
      changed = true;
    }
    // Online lookups keep the records they resolve in the index (its version moves on): the links
    // are stored under the version they leave, so the next read does not link them all again.
    const leftAt = online ? await this.version() : version;
    if (changed) await this.store(text, { version: leftAt, links, pending, linked: entries.length });
    const analysis = { list, contexts, links, pending };
    this.memory.set(key, { version: leftAt, analysis });
    return analysis;
  }

  private blobKey(text: DocumentText): string {
    return `${contentFolder('references', text.sha256)}/${safeSegment(text.origin)}-${referencesVersion}.json`;
  }

  private async readStored(
    text: DocumentText,
    version: string,
  ): Promise<{ links: Array<ReferenceLink | null>; linked: number; pending: boolean } | null> {
    const stored = await this.options.blobs.get(this.blobKey(text));
    if (!stored) return null;
    const parsed = JSON.parse(Buffer.from(stored).toString('utf8')) as StoredLinks;
    if (parsed.version !== version || !Array.isArray(parsed.links)) return null;
    const links = parsed.links as Array<ReferenceLink | null>;
    const linked = typeof parsed.linked === 'number' ? Math.min(parsed.linked, links.length) : links.length;
    return { links, linked, pending: parsed.pending === true };
  }

  private async store(
    text: DocumentText,
    stored: { version: string; links: Array<ReferenceLink | null>; pending: boolean; linked: number },
  ): Promise<void> {
    await this.options.blobs.put(this.blobKey(text), Buffer.from(JSON.stringify(stored)), {
      contentType: 'application/json',
    });
  }

  /**
   * Links the entries the local index left unlinked through the federated sources, a few at once,
   * within the time budget. Returns whether some are still pending (a source failed or was
   * skipped, or time ran out): the next request goes on with those.
   */
  private async linkOnline(
    linker: ReferenceLinker,
    entries: readonly ReferenceEntry[],
    links: Array<ReferenceLink | null>,
    online: OnlineRecords,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const deadline = performance.now() + (this.options.onlineBudgetMs ?? 20_000);
    const todo = entries.flatMap((entry, at) => (links[at] === null ? [{ entry, at }] : []));
    let pending = false;
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const item = todo[next++];
        if (!item) break;
        if (performance.now() > deadline) {
          pending = true;
          continue;
        }
        signal?.throwIfAborted();
        const { link, complete } = await linker.linkOnline(item.entry, online, signal);
        links[item.at] = link;
        if (!complete) pending = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(onlineConcurrency, todo.length) }, worker));
    return pending;
  }
}
