import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { BusyStatus } from '../components/busy-status';
import {
  chatState,
  clearChat,
  rememberScroll,
  sendQuestion,
  setDraft,
  stopAnswer,
  type Turn,
  useChat,
} from '../lib/chat-store';
import { Markdown } from '../lib/markdown';

/** Said once an answer has taken a while: the first question on a paper indexes it first. */
const slowAnswerNote =
  'Reading papers the first time takes longer: their passages are being indexed so the agent can find answers in them.';

function AnswerTurn({ turn }: { turn: Turn }) {
  return (
    <>
      {!turn.done ? (
        <BusyStatus since={turn.startedAt ?? Date.now()} label="Working…" slowNote={slowAnswerNote} />
      ) : null}
      {turn.progress ? (
        <details class="progress" open={!turn.done}>
          <summary>{turn.done ? 'What the agent did' : 'What the agent is doing'}</summary>
          <pre>{turn.progress.trim()}</pre>
        </details>
      ) : null}
      <div class="answer-text">
        <Markdown text={turn.content} options={{ from: 'chat' }} />
      </div>
      {turn.error ? (
        <p class="error" role="alert">
          {turn.error}
        </p>
      ) : null}
    </>
  );
}

/**
 * A research chat: streams the agent's answer from /api/chat/completions, shows its progress live
 * (searching, reading) and renders citations as links: papers open at their url, documents in the
 * reader. The conversation outlives the page (see chat-store): following a citation and coming
 * back finds it as it was, scrolled where it was, and an answer still being written keeps coming.
 */
export function ChatPage() {
  const { turns, draft, streaming } = useChat();
  const endRef = useRef<HTMLDivElement>(null);

  // Back from the reader: the conversation where the user left it. Leaving: remember where that is.
  useLayoutEffect(() => {
    const saved = chatState().scrollY;
    if (saved !== null) window.scrollTo(0, saved);
    return () => rememberScroll(window.scrollY);
  }, []);
  // While an answer grows, follow it.
  useEffect(() => {
    if (streaming) endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [turns, streaming]);

  const send = (event: Event) => {
    event.preventDefault();
    void sendQuestion(draft.trim());
  };

  return (
    <section aria-labelledby="chat-title" class="chat">
      <div class="title-row">
        <h1 id="chat-title" tabIndex={-1}>
          Research chat
        </h1>
        {turns.length > 0 ? (
          <button type="button" class="link" onClick={clearChat}>
            New conversation
          </button>
        ) : null}
      </div>
      <p class="meta">
        Answers cite the papers the agent found and read; citations open the paper or its full text, and this
        conversation is kept while you read them.
      </p>
      <ol class="turns" aria-live="polite">
        {turns.map((turn, index) => (
          <li key={index} class={`turn ${turn.role}`}>
            <span class="who">{turn.role === 'user' ? 'You' : 'Alexandria'}</span>
            {turn.role === 'user' ? <p>{turn.content}</p> : <AnswerTurn turn={turn} />}
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
            if (event.key === 'Enter' && !event.shiftKey) send(event);
          }}
        />
        <div class="row">
          <button type="submit" class="primary" disabled={streaming || !draft.trim()}>
            Send
          </button>
          {streaming ? (
            <button type="button" onClick={stopAnswer}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
