/**
 * This tab's sessionStorage, tolerant of browsers that refuse it (private modes, quotas): the page
 * works without it, it just forgets on reload.
 */
export function readSession<T>(key: string): T | null {
  try {
    const text = sessionStorage.getItem(key);
    return text === null ? null : (JSON.parse(text) as T);
  } catch {
    return null;
  }
}

export function writeSession(key: string, value: unknown): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // full or refused: the in-memory state still serves this page load
  }
}
