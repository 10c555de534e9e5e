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
  let message = `${response.status} ${response.statusText}`;
  let param: string | null = null;
  try {
    const envelope = (await response.json()) as { error?: { message?: string; param?: string | null } };
    if (envelope.error?.message) message = envelope.error.message;
    param = envelope.error?.param ?? null;
  } catch {
    // not an envelope: keep the status line
  }
  if (response.status === 401)
    window.dispatchEvent(new CustomEvent('alexandria:unauthorized', { detail: message }));
  throw new ApiError(message, response.status, param);
}

export async function getJson<T>(path: string, options: CallOptions = {}): Promise<T> {
  return (await (await request(path, options)).json()) as T;
}

/** A human sentence for any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
