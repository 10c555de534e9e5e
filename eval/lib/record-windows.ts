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

/**
 * Segments of a record for several vectors per record (issue 14, 2026-11-27 second pass): the first
 * is the shipped `title. abstract` (the model reads its first `maxTokens`), and when that text is
 * longer than the window, the title followed by the sentences the first segment did not reach, packed
 * greedily within `maxTokens`, each continuation starting `overlap` whole sentences back; at most
 * `cap` segments. The sentence the window cut in the middle starts the second segment (it was not
 * read whole).
 */
export function recordSegments(
  title: string,
  abstract: string | undefined,
  options: { maxTokens: number; overlap: number; cap: number; continuationTokens?: number },
  countTokens: (text: string) => number,
): string[] {
  const head = title.trim();
  const body = abstract?.trim();
  const first = body ? `${head}. ${body}` : head;
  if (!body || countTokens(first) <= options.maxTokens) return [first];
  const budget = options.continuationTokens ?? options.maxTokens;
  const sentences = body.split(/(?<=[.!?])\s+(?=[A-Z0-9([])/u).filter((sentence) => sentence.length > 0);
  // Sentences read whole by the first segment.
  let read = 0;
  while (
    read < sentences.length &&
    countTokens(`${head}. ${sentences.slice(0, read + 1).join(' ')}`) <= options.maxTokens
  )
    read += 1;
  const segments = [first];
  let start = Math.max(0, read - options.overlap);
  let next = read;
  while (next < sentences.length && segments.length < options.cap) {
    let end = Math.max(next + 1, start + 1);
    while (
      end < sentences.length &&
      countTokens(`${head}. ${sentences.slice(start, end + 1).join(' ')}`) <= budget
    )
      end += 1;
    segments.push(`${head}. ${sentences.slice(start, end).join(' ')}`);
    next = end;
    start = Math.max(next - options.overlap, start + 1);
  }
  return segments;
}
