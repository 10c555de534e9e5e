import type { ChatMessage } from '../domain/chat.js';
import { parseDocumentRef } from '../domain/document-ref.js';
import {
  identifierKey,
  normalizeArxivId,
  normalizeDoi,
  normalizePmcid,
  type PaperIdentifier,
  parsePaperIdentifier,
} from '../domain/identifiers.js';
import { identityKeys } from '../domain/paper.js';
import type { ProjectService } from '../services/project-service.js';
import { locatorsOf, type SourceLedger, safeDecode } from './source-ledger.js';

/** Where an allowed document entered the run. */
export type DocumentOrigin = 'user' | 'ledger' | 'project';

export type ProvenanceDecision = { allowed: true; origin: DocumentOrigin } | { allowed: false };

export interface DocumentProvenanceOptions {
  /** The conversation: references written in its `user` turns are the user's own. */
  messages: ChatMessage[];
  /** What the run's own searches and reads returned. */
  ledger: SourceLedger;
  /**
   * The `PROJ:` references of the documents filed in the caller's projects (by project id and by
   * name); loaded once, the first time a reference is not found otherwise.
   */
  projectDocuments?: () => Promise<string[]>;
}

/**
 * Which documents an agent run may read, fetch or file (docs/decisions/0040): those the user wrote
 * in their own messages (urls, `PDF_URL:`, `PROJ:`, DOIs, arXiv ids, PMIDs), those filed in the
 * caller's projects, and the records the run's own tools returned (the source ledger, with every
 * address of each record). A reference written anywhere else — a paper's text, an earlier assistant
 * turn, the model's imagination — is refused, so text the model reads cannot send the server to
 * an address of its choosing. References are compared by `documentKey`, so another spelling of an
 * allowed address matches it and a different address never does.
 */
export class DocumentProvenance {
  private readonly given = new Set<string>();
  private tenantKeys: Promise<Set<string>> | undefined;

  constructor(private readonly options: DocumentProvenanceOptions) {
    for (const message of options.messages) {
      if (message.role !== 'user') continue;
      for (const key of referenceKeysIn(message.content)) this.given.add(key);
    }
  }

  /** Whether the run may read the document `ref` (`PDF_URL:…`, `PROJ:…` or a url). */
  async checkDocument(ref: string): Promise<ProvenanceDecision> {
    return this.decide(documentKey(ref));
  }

  /** Whether the run may look up or file the paper `identifier` (`DOI:…`, `ARXIV:…`, …). */
  async checkIdentifier(identifier: PaperIdentifier): Promise<ProvenanceDecision> {
    return this.decide(identifierKey(identifier));
  }

  private async decide(key: string | undefined): Promise<ProvenanceDecision> {
    if (key === undefined) return { allowed: false };
    if (this.given.has(key)) return { allowed: true, origin: 'user' };
    if (this.ledgerKeys().has(key)) return { allowed: true, origin: 'ledger' };
    if (key.startsWith('proj:') && (await this.projectKeys()).has(key)) {
      return { allowed: true, origin: 'project' };
    }
    return { allowed: false };
  }

  /** Every address and identifier of every record in the ledger (it grows during the run). */
  private ledgerKeys(): Set<string> {
    const keys = new Set<string>();
    for (const source of this.options.ledger.sources()) {
      for (const locator of locatorsOf(source)) {
        const key = documentKey(locator);
        if (key) keys.add(key);
      }
      for (const key of identityKeys(source.paper)) if (!key.startsWith('title:')) keys.add(key);
    }
    return keys;
  }

  private projectKeys(): Promise<Set<string>> {
    this.tenantKeys ??= (this.options.projectDocuments?.() ?? Promise.resolve([])).then(
      (refs) => new Set(refs.map(documentKey).filter((key): key is string => key !== undefined)),
      () => new Set<string>(),
    );
    return this.tenantKeys;
  }
}

/** The `PROJ:` references of every document filed in the tenant's projects, by id and by name. */
export async function projectDocumentRefs(
  projects: Pick<ProjectService, 'list' | 'get'>,
  tenantId: string,
): Promise<string[]> {
  const refs: string[] = [];
  for (const summary of await projects.list(tenantId)) {
    if (summary.paper_count === 0) continue;
    const project = await projects.get(tenantId, summary.id);
    for (const paper of project.papers) {
      if (!paper.pdf_id?.startsWith(`PROJ:${summary.id}/`)) continue;
      refs.push(paper.pdf_id, paper.pdf_id.replace(`PROJ:${summary.id}/`, `PROJ:${summary.name}/`));
    }
  }
  return refs;
}

/**
 * A comparable form of a document reference, or undefined when it names nothing readable:
 * `proj:<project>/<document>`; `doi:<doi>` for a DOI or a doi.org address without a query;
 * `arxiv:<id>` for an arXiv abs/pdf address without a query; otherwise `url:<host>[:port]<path><query>`
 * with the scheme, a trailing slash and the fragment ignored and percent-escapes of unreserved
 * characters decoded (RFC 3986 §6.2.2). An address carrying credentials (`user@host`) has no key:
 * it is never allowed.
 */
export function documentKey(raw: string): string | undefined {
  const text = raw.trim();
  if (/^PROJ:/i.test(text)) {
    try {
      const ref = parseDocumentRef(text, 'pdf_id');
      return ref.kind === 'project' ? `proj:${ref.project}/${ref.documentId}` : undefined;
    } catch {
      return undefined;
    }
  }
  const target = text.replace(/^PDF_URL:/i, '').trim();
  if (/^(doi:\s*)?10\.\d{4,9}\//i.test(target)) {
    const doi = normalizeDoi(target);
    return doi ? `doi:${doi}` : undefined;
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    return undefined;
  }
  const host = url.hostname.replace(/\.$/, '');
  const path = unreserved(url.pathname).replace(/\/+$/, '');
  const search = unreserved(url.search);
  if (!search && (host === 'doi.org' || host === 'dx.doi.org' || host === 'www.doi.org')) {
    const doi = normalizeDoi(safeDecode(path.slice(1)));
    if (doi) return `doi:${doi}`;
  }
  if (!search && (host === 'arxiv.org' || host === 'www.arxiv.org')) {
    const arxiv = /^\/(?:abs|pdf)\/(.+)$/.exec(path);
    const id = arxiv ? normalizeArxivId(arxiv[1]) : null;
    if (id) return `arxiv:${id}`;
  }
  return `url:${host}${url.port ? `:${url.port}` : ''}${path}${search}`;
}

/**
 * The keys of every reference written in a text: urls, `PDF_URL:`/`PROJ:` references, DOIs,
 * arXiv ids, PMIDs and PMCIDs, and `<TYPE>:<value>` identifiers.
 */
export function referenceKeysIn(text: string): string[] {
  const keys: string[] = [];
  const add = (key: string | null | undefined) => {
    if (key) keys.push(key);
  };
  for (const [token] of text.matchAll(/(?:PDF_URL:\s*)?https?:\/\/[^\s<>"'`)\]]+|PROJ:[^\s<>"'`)\]]+/gi)) {
    add(documentKey(trimEnd(token)));
  }
  for (const [doi] of text.matchAll(/\b10\.\d{4,9}\/[^\s<>"'`]+/g)) {
    const normalized = normalizeDoi(trimEnd(doi));
    add(normalized && `doi:${normalized}`);
  }
  for (const [, id] of text.matchAll(/\b(?:arxiv:\s*)?(\d{4}\.\d{4,5}(?:v\d+)?)\b/gi)) {
    const normalized = normalizeArxivId(id);
    add(normalized && `arxiv:${normalized}`);
  }
  for (const [, digits] of text.matchAll(/\bPMID\s*:?\s*(\d{1,9})\b/gi)) add(`pmid:${digits}`);
  for (const [pmcid] of text.matchAll(/\bPMC\d{1,9}\b/gi)) {
    const normalized = normalizePmcid(pmcid);
    add(normalized && `pmcid:${normalized}`);
  }
  for (const [typed] of text.matchAll(/\b(?:DOI|PMID|SS_ID|ARXIV|MAG|ACL|PMCID)\s*:\s*[^\s<>"'`]+/gi)) {
    try {
      add(identifierKey(parsePaperIdentifier(trimEnd(typed).replace(/:\s+/, ':'))));
    } catch {
      // Not a valid identifier: nothing to allow.
    }
  }
  return keys;
}

/** Sentence punctuation after a reference is not part of it ("see https://x.org/a.pdf."). */
function trimEnd(token: string): string {
  return token.trim().replace(/[.,;:!?'"’”]+$/u, '');
}

/** Percent-escapes of unreserved characters decoded, the others upper-cased (RFC 3986 §6.2.2). */
function unreserved(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (percentEscape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(character) ? character : percentEscape.toUpperCase();
  });
}
