import { invalid } from './errors.js';

/**
 * A reference to a full-text document, as `pdf_url`/`pdf_id` carry it: `PDF_URL:<url>`,
 * `PROJ:<project>/<document>` (a document stored in one of the caller's projects) or a bare
 * http(s) URL.
 */
export type DocumentRef =
  | { kind: 'url'; url: string }
  | { kind: 'project'; project: string; documentId: string };

const segment = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export function formatProjectRef(projectId: string, documentId: string): string {
  return `PROJ:${projectId}/${documentId}`;
}

export function formatUrlRef(url: string): string {
  return `PDF_URL:${url}`;
}

/** Canonical text of a reference (what responses echo as `pdf_url`). */
export function formatDocumentRef(ref: DocumentRef): string {
  return ref.kind === 'url' ? formatUrlRef(ref.url) : formatProjectRef(ref.project, ref.documentId);
}

/**
 * Parses a reference; throws a 400 naming `param` for anything else. Project paths are exactly two
 * safe segments, so no path can walk out of the caller's project (`..`, `/`, `%2e` are refused).
 */
export function parseDocumentRef(text: string, param = 'pdf_url'): DocumentRef {
  const value = text.trim();
  if (/^PROJ:/i.test(value)) {
    const path = value.slice(5).replace(/^\/+/, '');
    const parts = path.split('/');
    const [project, documentId] = parts;
    if (
      parts.length !== 2 ||
      project === undefined ||
      documentId === undefined ||
      !segment.test(project) ||
      !segment.test(documentId) ||
      project.includes('..') ||
      documentId.includes('..')
    ) {
      throw invalid(
        param,
        `${param} "PROJ:${path}" is not a valid project path: use PROJ:<project>/<document>`,
      );
    }
    return { kind: 'project', project, documentId };
  }
  const url = /^PDF_URL:/i.test(value) ? value.slice(8).trim() : value;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(param, `${param} must be PDF_URL:<url>, PROJ:<project>/<document> or an http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid(param, `${param} must use http or https (got ${parsed.protocol})`);
  }
  return { kind: 'url', url: parsed.toString() };
}
