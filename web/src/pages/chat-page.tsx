import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf, request } from '../lib/api';
import { Markdown } from '../lib/markdown';
import { readEvents } from '../lib/sse';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** What the agent did while answering (`delta.reasoning_content`). */
  progress: string;
  error?: string;
  done: boolean;
}

interface CompletionChunk {
  choices?: Array<{
    delta?: { content?: string; reasoning_content?: string };
    finish_reason?: string | null;
  }>;
  error?: { message?: string };
}

/**
 * A research chat: streams the agent's answer from /api/chat/completions, shows its progress live
 * (searching, reading) and renders citations as links: papers open at their url, documents in the
 * reader.
 */
export function ChatPage() {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState(false);
  const controller = useRef<AbortController | null>(null);
  const endRef = useRef<HTMLDivElement>(null);

  useEffect(() => () => controller.current?.abort(), []);
  useEffect(() => endRef.current?.scrollIntoView?.({ block: 'end' }), [turns]);

  const update = (change: (turn: Turn) => Turn) =>
    setTurns((current) => [...current.slice(0, -1), change(current[current.length - 1] as Turn)]);

  const send = async (event: Event) => {
    event.preventDefault();
    const question = draft.trim();
    if (!question || streaming) return;
    const history = turns
      .filter((turn) => turn.content && !turn.error)
      .map(({ role, content }) => ({ role, content }));
    setDraft('');
    setTurns((current) => [
      ...current,
      { role: 'user', content: question, progress: '', done: true },
      { role: 'assistant', content: '', progress: '', done: false },
    ]);
    setStreaming(true);
    const abort = new AbortController();
    controller.current = abort;
    try {
      const response = await request('/api/chat/completions', {
        method: 'POST',
        json: {
          model: 'alexandria',
          stream: true,
          messages: [...history, { role: 'user', content: question }],
        },
        signal: abort.signal,
      });
      for await (const frame of readEvents(response, abort.signal)) {
        const chunk = frame as CompletionChunk;
        if (chunk.error) {
          update((turn) => ({ ...turn, error: chunk.error?.message ?? 'The answer failed.' }));
          continue;
        }
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.reasoning_content)
          update((turn) => ({ ...turn, progress: turn.progress + delta.reasoning_content }));
        if (delta?.content) update((turn) => ({ ...turn, content: turn.content + delta.content }));
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') update((turn) => ({ ...turn, error: messageOf(error) }));
    } finally {
      update((turn) => ({ ...turn, done: true }));
      setStreaming(false);
      controller.current = null;
    }
  };

  return (
    <section aria-labelledby="chat-title" class="chat">
      <h1 id="chat-title" tabIndex={-1}>
        Research chat
      </h1>
      <p class="meta">
        Answers cite the papers the agent found and read; citations open the paper or its full text.
      </p>
      <ol class="turns" aria-live="polite">
        {turns.map((turn, index) => (
          <li key={index} class={`turn ${turn.role}`}>
            <span class="who">{turn.role === 'user' ? 'You' : 'Alexandria'}</span>
            {turn.role === 'user' ? (
              <p>{turn.content}</p>
            ) : (
              <>
                {turn.progress ? (
                  <details class="progress" open={!turn.done}>
                    <summary>{turn.done ? 'What the agent did' : 'Working…'}</summary>
                    <pre>{turn.progress.trim()}</pre>
                  </details>
                ) : !turn.done ? (
                  <p class="status">Working…</p>
                ) : null}
                <div class="answer-text">
                  <Markdown text={turn.content} />
                </div>
                {turn.error ? (
                  <p class="error" role="alert">
                    {turn.error}
                  </p>
                ) : null}
              </>
            )}
          </li>
        ))}
      </ol>
      <div ref={endRef} />
      <form class="chat-form" onSubmit={send}>
        <label for="chat-q">Your research question</label>
        <textarea
          id="chat-q"
          rows={3}
          value={draft}
          placeholder="e.g. Which tools support nested event annotation, and how accurate are they?"
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) void send(event);
          }}
        />
        <div class="row">
          <button type="submit" class="primary" disabled={streaming || !draft.trim()}>
            Send
          </button>
          {streaming ? (
            <button type="button" onClick={() => controller.current?.abort()}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
