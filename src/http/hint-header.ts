/** The response header that carries a search's `hint` on the array form of the search endpoints. */
export const hintHeaderName = 'x-alexandria-hint';

/**
 * A hint as a header value: HTTP header values are bytes, and Node refuses characters above
 * U+00FF, so every character outside printable ASCII (and `%` itself) is percent-encoded as UTF-8.
 * Plain English hints stay readable in `curl -i`; `decodeURIComponent(value)` gives the text back.
 */
export function hintHeaderValue(hint: string): string {
  return hint
    .replace(/[\ud800-\udfff]/gu, '\ufffd') // a lone surrogate has no UTF-8: the replacement character
    .replace(/[^\x20-\x24\x26-\x7e]/gu, (character) => encodeURIComponent(character));
}
