/**
 * Sentence-packed windows of a record's abstract, for the multi-vector levers of the search
 * evaluation (decision 0036): the abstract split at sentence ends, sentences packed greedily while
 * `title. window` stays within `maxTokens` of the model (a sentence longer than that is its own
 * window, which the model then truncates). A record without an abstract has one window, its title.
 */
export function recordWindows(
  title: string,
  abstract: string | undefined,
  maxTokens: number,
  countTokens: (text: string) => number,
): string[] {
  const head = title.trim();
  const body = abstract?.trim();
  if (!body) return [head];
  const sentences = body.split(/(?<=[.!?])\s+(?=[A-Z0-9([])/u).filter((sentence) => sentence.length > 0);
  const windows: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    const candidate = current ? `${current} ${sentence}` : sentence;
    if (current && countTokens(`${head}. ${candidate}`) > maxTokens) {
      windows.push(`${head}. ${current}`);
      current = sentence;
    } else {
      current = candidate;
    }
  }
  if (current) windows.push(`${head}. ${current}`);
  return windows;
}
