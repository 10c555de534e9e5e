import { ApiError } from './api';
import { readSession, writeSession } from './session-store';

/**
 * Whether the service can fetch PDFs from the internet. Stored PDFs are always readable; a
 * `PDF_URL:` document needs the service to reach its host. The page cannot know that beforehand, so
 * it learns it: once a fetch fails because the host cannot be reached, remote full texts are not
 * offered for a few minutes (the PDF's own link is, for the browser to open), then tried again.
 */
const storageKey = 'alexandria.offlineSince';
const forgetAfterMs = 5 * 60 * 1000;

/** A failure that means "the service could not reach the PDF's host" (offline: no DNS, no route). */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 0) return false; // our own service is down: another message
  return (
    error.code === 'upstream_unavailable' &&
    /Cannot resolve the host|\((?:ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\)/.test(error.message)
  );
}

export function noteUnreachable(): void {
  writeSession(storageKey, Date.now());
}

/** True when remote PDFs cannot be fetched now: the browser is offline, or the service recently could not. */
export function remoteFetchUnavailable(): boolean {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return true;
  const since = readSession<number>(storageKey);
  return typeof since === 'number' && Date.now() - since < forgetAfterMs;
}

/** A service message for people: parameter names become what they stand for. */
export function plainMessage(message: string): string {
  const text = message.replace(/ of pdf_(?:id|url)\b/g, '').replace(/\bpdf_(?:id|url)\b/g, 'the document');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
