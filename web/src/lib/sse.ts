/**
 * Reads a `text/event-stream` body frame by frame: yields the parsed JSON of each `data:` frame and
 * stops at `data: [DONE]`. Comment lines (keep-alives) are skipped.
 */
export async function* readEvents(response: Response, signal?: AbortSignal): AsyncGenerator<unknown> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    while (true) {
      if (signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let boundary = buffer.indexOf('\n\n');
      while (boundary >= 0) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf('\n\n');
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue;
        if (data === '[DONE]') return;
        try {
          yield JSON.parse(data);
        } catch {
          // a malformed frame is skipped, not fatal
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
