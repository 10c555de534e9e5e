import { useEffect, useRef, useState } from 'preact/hooks';
import { AddToProject } from '../components/add-to-project';
import { getJson, messageOf } from '../lib/api';
import { Markdown } from '../lib/markdown';
import { navigate } from '../lib/router';
import type { FullTextResult } from '../lib/types';

const stopWords = new Set(
  'the a an of in on for to and or is are was were be by with what which how does do did that this from at as it its their there'.split(
    ' ',
  ),
);

/** Words of a question worth marking in the answering chunk. */
function questionWords(question: string): string[] {
  return question
    .toLowerCase()
    .split(/[^\p{L}\p{N}-]+/u)
    .filter((word) => word.length > 2 && !stopWords.has(word));
}

/**
 * The full text of a document, chunk by chunk (figures inline, previous/next, arrow keys), with a
 * question box: the service finds the chunk that best answers it, which opens highlighted.
 */
export function ReaderPage({ params }: { params: URLSearchParams }) {
  const pdf = params.get('pdf') ?? '';
  const chunk = Math.max(1, Number(params.get('chunk') ?? '1') || 1);
  const title = params.get('title') ?? '';
  const asked = params.get('q') ?? '';
  const [result, setResult] = useState<FullTextResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [question, setQuestion] = useState(asked);
  const [asking, setAsking] = useState(false);
  const [askError, setAskError] = useState<string | null>(null);
  const textRef = useRef<HTMLDivElement>(null);

  const go = (target: number, extra: Record<string, string> = {}) =>
    navigate('read', { pdf, title: title || undefined, chunk: target, ...extra });

  useEffect(() => {
    if (!pdf) return;
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    getJson<FullTextResult>('/api/fulltext', { query: { pdf_id: pdf, chunk }, signal: controller.signal })
      .then((value) => {
        setResult(value);
        textRef.current?.scrollIntoView?.({ block: 'start' });
      })
      .catch((failure) => {
        if ((failure as Error).name !== 'AbortError') setError(messageOf(failure));
      })
      .finally(() => setLoading(false));
    return () => controller.abort();
  }, [pdf, chunk]);

  const total = result?.total_chunk_num ?? 0;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (
        ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
        event.altKey ||
        event.ctrlKey ||
        event.metaKey
      )
        return;
      if (event.key === 'ArrowRight' && chunk < total) go(chunk + 1);
      if (event.key === 'ArrowLeft' && chunk > 1) go(chunk - 1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const ask = async (event: Event) => {
    event.preventDefault();
    const text = question.trim();
    if (!text) return;
    setAsking(true);
    setAskError(null);
    try {
      const answer = await getJson<FullTextResult>('/api/question', {
        query: { pdf_id: pdf, question: text },
      });
      const best = answer.chunks[0];
      if (!best) setAskError(answer.hint || 'No part of this document answers that.');
      else go(best.chunk_num, { q: text });
    } catch (failure) {
      setAskError(messageOf(failure));
    } finally {
      setAsking(false);
    }
  };

  if (!pdf) {
    return (
      <section>
        <h1 tabIndex={-1}>Reader</h1>
        <p>Open a paper from the search results or a project to read it here.</p>
      </section>
    );
  }

  const current = result?.chunks[0];
  const answered = asked !== '' && current?.chunk_num === chunk;
  const figures = (current?.img_mds ?? []).filter((image) => !current?.chunk.includes(image));
  return (
    <section aria-labelledby="reader-title" class="reader">
      <h1 id="reader-title" tabIndex={-1}>
        {title || 'Full text'}
      </h1>
      <p class="meta ref">{pdf}</p>

      <form class="ask" onSubmit={ask}>
        <label for="ask-q">Ask this paper a question</label>
        <div class="row">
          <input
            id="ask-q"
            type="text"
            value={question}
            placeholder="e.g. How was the annotation accuracy measured?"
            onInput={(event) => setQuestion(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={asking}>
            {asking ? 'Looking…' : 'Ask'}
          </button>
        </div>
        {askError ? (
          <p class="error" role="alert">
            {askError}
          </p>
        ) : null}
      </form>

      <nav class="chunk-nav" aria-label="Chunks">
        <button
          type="button"
          onClick={() => go(chunk - 1)}
          disabled={chunk <= 1}
          aria-keyshortcuts="ArrowLeft"
        >
          ← Previous
        </button>
        <span aria-live="polite">{total ? `Chunk ${chunk} of ${total}` : loading ? 'Loading…' : ''}</span>
        <button
          type="button"
          onClick={() => go(chunk + 1)}
          disabled={!total || chunk >= total}
          aria-keyshortcuts="ArrowRight"
        >
          Next →
        </button>
      </nav>

      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {current ? (
        <div ref={textRef} class={answered ? 'chunk answer-chunk' : 'chunk'} aria-busy={loading}>
          {answered ? (
            <p class="answer-banner" role="status">
              Best answer to “{asked}” — chunk {chunk}
            </p>
          ) : null}
          <Markdown text={current.chunk} options={answered ? { highlight: questionWords(asked) } : {}} />
          {figures.length > 0 ? <Markdown text={figures.join('\n\n')} /> : null}
        </div>
      ) : null}
      {result?.hint ? <p class="hint">{result.hint}</p> : null}
      <div class="actions">
        <AddToProject pdfRef={pdf} />
      </div>
    </section>
  );
}
