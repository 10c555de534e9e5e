import { useEffect, useState } from 'preact/hooks';
import { messageOf, request } from './api';
import { rememberAnswerReferences } from './paper-registry';
import { readSession, writeSession } from './session-store';
import { readEvents } from './sse';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** What the agent did while answering (`delta.reasoning_content`). */
  progress: string;
  error?: string;
  done: boolean;
  /** When the answer started (ms since epoch), for the live "Working… 12 s" line. */
  startedAt?: number;
}

export interface ChatState {
  turns: Turn[];
  draft: string;
  streaming: boolean;
  /** Where the conversation was scrolled when the user left it (a citation opened the reader). */
  scrollY: number | null;
}

interface CompletionChunk {
  choices?: Array<{
    delta?: { content?: string; reasoning_content?: string };
    finish_reason?: string | null;
  }>;
  error?: { message?: string };
}

/**
 * The conversation lives here, not in the chat page: following a citation to the reader unmounts the
 * page but neither stops the answer being streamed nor forgets the turns. It is also written to this
 * tab's sessionStorage, so a reload or a visit to another site and back keeps it too.
 */
const storageKey = 'alexandria.chat';
const interrupted = 'Interrupted: the page was reloaded while this answer was being written.';

let state: ChatState = restore();
let controller: AbortController | null = null;
let saveTimer: ReturnType<typeof setTimeout> | null = null;
const listeners = new Set<(value: ChatState) => void>();

function restore(): ChatState {
  const saved = readSession<Partial<ChatState>>(storageKey);
  const turns = Array.isArray(saved?.turns) ? saved.turns : [];
  return {
    // An answer cut off by a reload cannot resume: it is marked, and the user can ask again.
    turns: turns.map((turn) =>
      turn.done ? turn : { ...turn, done: true, error: turn.error ?? interrupted },
    ),
    draft: typeof saved?.draft === 'string' ? saved.draft : '',
    streaming: false,
    scrollY: typeof saved?.scrollY === 'number' ? saved.scrollY : null,
  };
}

function save(): void {
  saveTimer = null;
  writeSession(storageKey, state.turns.length === 0 && !state.draft ? null : state);
}

function set(change: Partial<ChatState>): void {
  state = { ...state, ...change };
  for (const listener of listeners) listener(state);
  // Streaming updates arrive many times a second: one write per 250 ms is plenty.
  saveTimer ??= setTimeout(save, 250);
}

if (typeof window !== 'undefined') window.addEventListener('pagehide', () => saveTimer && save());

function updateLast(change: (turn: Turn) => Turn): void {
  const last = state.turns[state.turns.length - 1];
  if (last) set({ turns: [...state.turns.slice(0, -1), change(last)] });
}

export function chatState(): ChatState {
  return state;
}

/** The conversation, re-rendering the caller on every change. */
export function useChat(): ChatState {
  const [value, setValue] = useState(state);
  useEffect(() => {
    listeners.add(setValue);
    setValue(state);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}

export function setDraft(draft: string): void {
  set({ draft });
}

export function rememberScroll(scrollY: number | null): void {
  set({ scrollY });
}

export function stopAnswer(): void {
  controller?.abort();
}

/** Forgets the conversation (and stops an answer being written). */
export function clearChat(): void {
  controller?.abort();
  state = { turns: [], draft: '', streaming: false, scrollY: null };
  for (const listener of listeners) listener(state);
  if (saveTimer) clearTimeout(saveTimer);
  saveTimer = null;
  writeSession(storageKey, null);
}

/** Asks the agent, streaming its progress and answer into the last turn. */
export async function sendQuestion(question: string): Promise<void> {
  if (!question || state.streaming) return;
  const history = state.turns
    .filter((turn) => turn.content && !turn.error)
    .map(({ role, content }) => ({ role, content }));
  set({
    draft: '',
    streaming: true,
    scrollY: null,
    turns: [
      ...state.turns,
      { role: 'user', content: question, progress: '', done: true },
      { role: 'assistant', content: '', progress: '', done: false, startedAt: Date.now() },
    ],
  });
  const abort = new AbortController();
  controller = abort;
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
        updateLast((turn) => ({ ...turn, error: chunk.error?.message ?? 'The answer failed.' }));
        continue;
      }
      const delta = chunk.choices?.[0]?.delta;
      if (delta?.reasoning_content)
        updateLast((turn) => ({ ...turn, progress: turn.progress + delta.reasoning_content }));
      if (delta?.content) updateLast((turn) => ({ ...turn, content: turn.content + delta.content }));
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') updateLast((turn) => ({ ...turn, error: messageOf(error) }));
  } finally {
    updateLast((turn) => ({ ...turn, done: true }));
    rememberAnswerReferences(state.turns[state.turns.length - 1]?.content ?? '');
    set({ streaming: false });
    if (controller === abort) controller = null;
  }
}
