/** The API key, kept in this browser only, and sent as `x-alexandria-api-key` on every call. */
const storageKey = 'alexandria.apiKey';

export function storedKey(): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  if (key) localStorage.setItem(storageKey, key);
  else localStorage.removeItem(storageKey);
}

/** An error answered by the service (OpenAI envelope), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly param: string | null = null,
    /** The envelope's code (`upstream_unavailable`, `not_found`…), when the service gave one. */
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface CallOptions {
  method?: string;
  query?: Query;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (FormData for uploads, text for imports). */
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function urlOf(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A keyed request; failures become ApiError with the service's message. A 401 signs out. */
export async function request(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const key = storedKey();
  if (key) headers['x-alexandria-api-key'] = key;
  let body = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: body ?? null,
      signal: options.signal ?? null,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError('The service cannot be reached. Is it running?', 0);
  }
  if (response.ok) return response;
  throw failureOf(response.status, `${response.status} ${response.statusText}`, await response.text());
}

interface Envelope {
  error?: { message?: string; param?: string | null; code?: string | null };
}

/** The ApiError of a failed response (OpenAI envelope, else the status line). A 401 signs out. */
function failureOf(status: number, statusLine: string, body: string): ApiError {
  let envelope: Envelope = {};
  try {
    envelope = JSON.parse(body) as Envelope;
  } catch {
    // not an envelope: keep the status line
  }
  const message = envelope.error?.message || statusLine;
  if (status === 401) window.dispatchEvent(new CustomEvent('alexandria:unauthorized', { detail: message }));
  return new ApiError(message, status, envelope.error?.param ?? null, envelope.error?.code ?? null);
}

/** Where an upload stands: bytes sent so far, then the wait while the service reads the file. */
export type UploadProgress =
  | { phase: 'sending'; loaded: number; total: number }
  | { phase: 'processing'; since: number };

/**
 * A keyed POST of a form, through XMLHttpRequest because fetch cannot report upload progress:
 * `onProgress` hears the bytes sent, then once the body is sent that the service is working on it.
 */
export function uploadWithProgress<T>(
  path: string,
  query: Query,
  body: FormData,
  onProgress: (progress: UploadProgress) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', urlOf(path, query));
    const key = storedKey();
    if (key) xhr.setRequestHeader('x-alexandria-api-key', key);
    xhr.upload.onprogress = (event) =>
      onProgress({ phase: 'sending', loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
    xhr.upload.onload = () => onProgress({ phase: 'processing', since: Date.now() });
    xhr.onerror = () => reject(new ApiError('The service cannot be reached. Is it running?', 0));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(new ApiError('The service answered with something that is not JSON.', xhr.status));
        }
      } else reject(failureOf(xhr.status, `${xhr.status} ${xhr.statusText}`, xhr.responseText));
    };
    xhr.send(body);
  });
}

export async function getJson<T>(path: string, options: CallOptions = {}): Promise<T> {
  return (await (await request(path, options)).json()) as T;
}

/** A human sentence for any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
