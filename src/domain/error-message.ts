/**
 * Error messages may repeat what the client sent (a url, an identifier, a value) so that the client
 * sees which input was wrong. A repeated input is cut short, so that a 70 KB path does not come back
 * as a 70 KB error (nor fill the logs): each run of non-space characters keeps its first
 * `maxEchoedRun` characters, and the whole message its first `maxMessageLength`, each cut marked "…".
 */

/** Characters kept of one run of non-space characters (an echoed url, identifier or value). */
export const maxEchoedRun = 200;

/** Characters kept of a whole message (an echoed text with spaces). */
export const maxMessageLength = 1000;

const longRun = new RegExp(`\\S{${maxEchoedRun + 1},}`, 'gu');

/** The message as it may be sent to a client. */
export function boundedMessage(message: string): string {
  const runs = message.replace(longRun, (run) => `${firstCharacters(run, maxEchoedRun)}…`);
  return runs.length > maxMessageLength ? `${firstCharacters(runs, maxMessageLength)}…` : runs;
}

/** The first `count` characters, never splitting a surrogate pair. */
function firstCharacters(text: string, count: number): string {
  const cut = text.slice(0, count);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
