import { useEffect, useRef, useState } from 'preact/hooks';
import { AddToProject } from '../components/add-to-project';
import { BusyStatus } from '../components/busy-status';
import { DocumentReference, useDocumentInfo } from '../components/document-reference';
import { PageView } from '../components/page-view';
import { getJson, messageOf } from '../lib/api';
import { isUnreachable, noteUnreachable, plainMessage } from '../lib/connectivity';
import { peopleHint } from '../lib/hints';
import { Markdown } from '../lib/markdown';
import { remoteHostOf, remotePdfUrl } from '../lib/paper-registry';
import { href, navigate } from '../lib/router';
import type { FullTextResult, Passage } from '../lib/types';

/** Why a document could not be opened, in words for people, with what they can do instead. */
interface ReadFailure {
  message: string;
  /** The PDF's own url, for the browser to open when the service cannot fetch it. */
  pdfUrl: string | null;
}

function readFailure(failure: unknown, pdf: string): ReadFailure {
  const host = remoteHostOf(pdf);
  const pdfUrl = remotePdfUrl(pdf);
  if (host && isUnreachable(failure)) {
    noteUnreachable();
    return {
      message: `Alexandria cannot reach ${host} to fetch this PDF: the server seems to be offline. Open the PDF in your browser instead, or upload it to a project to read it here.`,
      pdfUrl,
    };
  }
  return { message: plainMessage(messageOf(failure)), pdfUrl: host ? pdfUrl : null };
}

const slowReadNote = 'A paper is read once (its text and figures); after that its pages open at once.';
const slowAskNote =
  'The first question on a paper takes longer: its passages are being indexed for meaning. Later questions are quick.';

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
 * Best passages of answered questions, by document, chunk and question: the answer opens its chunk
 * by navigating, and the passage must still be known once the chunk is read.
 */
const answeredPassages = new Map<string, Passage>();
const passageKey = (pdf: string, chunk: number, question: string) => `${pdf}\n${chunk}\n${question}`;

/**
 * The full text of a document, chunk by chunk (figures inline, previous/next, arrow keys), with a
 * question box: the service finds the chunk that best answers it, which opens highlighted.
 */
export function ReaderPage({ params }: { params: URLSearchParams }) {
  const pdf = params.get('pdf') ?? '';
  const chunk = Math.max(1, Number(params.get('chunk') ?? '1') || 1);
  const title = params.get('title') ?? '';
  const asked = params.get('q') ?? '';
  const from = params.get('from') ?? '';
  const info = useDocumentInfo(pdf, title);
  const [result, setResult] = useState<FullTextResult | null>(null);
  const [error, setError] = useState<ReadFailure | null>(null);
  const [loadingSince, setLoadingSince] = useState<number | null>(null);
  const [question, setQuestion] = useState(asked);
  const [askingSince, setAskingSince] = useState<number | null>(null);
  const [askError, setAskError] = useState<string | null>(null);
  const [answerNote, setAnswerNote] = useState('');
  const textRef = useRef<HTMLDivElement>(null);

  const go = (target: number, extra: Record<string, string> = {}) =>
    navigate('read', { pdf, title: title || undefined, chunk: target, from: from || undefined, ...extra });

  // Another document: nothing of the previous one may show while this one loads (or fails).
  useEffect(() => setResult(null), [pdf]);
  useEffect(() => {
    if (!pdf) return;
    const controller = new AbortController();
    setLoadingSince(Date.now());
    setError(null);
    getJson<FullTextResult>('/api/fulltext', { query: { pdf_id: pdf, chunk }, signal: controller.signal })
      .then((value) => {
        setResult(value);
        textRef.current?.scrollIntoView?.({ block: 'start' });
      })
      .catch((failure) => {
        if ((failure as Error).name !== 'AbortError') setError(readFailure(failure, pdf));
      })
      .finally(() => setLoadingSince(null));
    return () => controller.abort();
  }, [pdf, chunk]);
  const loading = loadingSince !== null;

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
    setAskingSince(Date.now());
    setAskError(null);
    setAnswerNote('');
    try {
      const answer = await getJson<FullTextResult>('/api/question', {
        query: { pdf_id: pdf, question: text },
      });
      const best = answer.chunks[0];
      if (!best) setAskError(peopleHint(answer.hint) || 'No part of this document answers that.');
      else {
        if (best.passage) answeredPassages.set(passageKey(pdf, best.chunk_num, text), best.passage);
        setAnswerNote(peopleHint(answer.hint));
        go(best.chunk_num, { q: text });
      }
    } catch (failure) {
      setAskError(readFailure(failure, pdf).message);
    } finally {
      setAskingSince(null);
    }
  };
  const asking = askingSince !== null;

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
  const passage = answered ? answeredPassages.get(passageKey(pdf, chunk, asked)) : undefined;
  const hint = peopleHint(result?.hint);
  // A document that cannot be opened offers no questions, paging or filing: they would fail too.
  const readable = !(error && !result);
  return (
    <section aria-labelledby="reader-title" class="reader" data-ref={pdf}>
      {from === 'chat' ? (
        <p class="back">
          <a href={href('chat')}>← Back to the chat</a>
        </p>
      ) : null}
      <DocumentReference pdf={pdf} info={info} />

      {readable ? (
        <>
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
            {askingSince !== null ? (
              <BusyStatus
                since={askingSince}
                label="Looking for the answer…"
                slowNote={slowAskNote}
                slowAfter={3}
              />
            ) : null}
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
        </>
      ) : null}

      {loadingSince !== null ? (
        <BusyStatus
          since={loadingSince}
          label={
            remoteHostOf(pdf)
              ? `Fetching and reading the PDF from ${remoteHostOf(pdf)}…`
              : 'Opening the paper…'
          }
          slowNote={slowReadNote}
        />
      ) : null}
      {error ? (
        <div class="error" role="alert">
          <p>{error.message}</p>
          {error.pdfUrl ? (
            <p>
              <a href={error.pdfUrl} target="_blank" rel="noopener noreferrer">
                Open the PDF in your browser
              </a>{' '}
              · <a href={href('projects')}>Upload it to a project</a>
            </p>
          ) : null}
        </div>
      ) : null}
      {current ? (
        <div class="reading">
          <div ref={textRef} class={answered ? 'chunk answer-chunk' : 'chunk'} aria-busy={loading}>
            {answered ? (
              <p class="answer-banner" role="status">
                Best answer to “{asked}” — chunk {chunk}
                {answerNote ? <span class="answer-note"> {answerNote}</span> : null}
              </p>
            ) : null}
            <Markdown text={current.chunk} options={answered ? { highlight: questionWords(asked) } : {}} />
            {figures.length > 0 ? <Markdown text={figures.join('\n\n')} /> : null}
          </div>
          <PageView
            key={`${current.chunk_num} ${passage?.text}`}
            pdf={pdf}
            chunk={current}
            passage={passage}
          />
        </div>
      ) : null}
      {hint ? <p class="hint">{hint}</p> : null}
      {readable ? (
        <div class="actions">
          <AddToProject pdfRef={pdf} />
        </div>
      ) : null}
    </section>
  );
}
