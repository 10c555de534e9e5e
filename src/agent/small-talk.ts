import type { ChatMessage } from '../domain/chat.js';
import { isStopword } from '../text/keywords.js';
import { questionOf } from './agent-types.js';

/**
 * Which requests to the chat endpoint are not research questions, so they get a short direct answer
 * instead of a literature run (docs/decisions/0030-chat-details.md). Deliberately conservative: a
 * greeting must be the whole message and one of a closed set of phrases, and a client task must
 * have the shape Open WebUI's task prompts have. Anything else is research.
 */
export type RequestKind =
  | { kind: 'research' }
  | { kind: 'small_talk'; intent: SmallTalkIntent }
  | { kind: 'client_task'; task: ClientTask };

export type SmallTalkIntent = 'hello' | 'thanks' | 'bye' | 'help';

/**
 * A chat client's housekeeping prompt (Open WebUI: chat title, tags, follow-up suggestions, search
 * queries, autocompletion), answered in the JSON shape the prompt asks for.
 */
export interface ClientTask {
  /** The key of the JSON object the prompt asks for: `title`, `tags`, `follow_ups`, `queries`, `text`… */
  key: string;
  /** Whether the key's value is a list (`tags`, `follow_ups`, `queries`) rather than a string. */
  list: boolean;
  /** The prompt as sent (what a chat model is given). */
  prompt: string;
  /** The turns the prompt quotes between `<chat_history>` markers, oldest first. */
  history: Array<{ role: string; text: string }>;
}

export function classifyRequest(messages: ChatMessage[]): RequestKind {
  const question = questionOf(messages);
  const task = clientTaskOf(question);
  if (task) return { kind: 'client_task', task };
  const intent = smallTalkOf(question);
  if (intent) return { kind: 'small_talk', intent };
  return { kind: 'research' };
}

/**
 * Open WebUI's task prompts start with `### Task:` and ask for one JSON object, whose first key the
 * prompt spells out (`JSON format: { "title": … }`, `{ "tags": [ … ] }`, `{ "queries": [ … ] }`,
 * `` `{ "text": … }` ``). A question that merely mentions JSON does not start with that header.
 * The voice-mode emoji prompt has its own fixed opening.
 */
export function clientTaskOf(prompt: string): ClientTask | undefined {
  const text = prompt.trimStart();
  if (/^Your task is to reflect the speaker's likely facial expression through a fitting emoji/i.test(text)) {
    return { key: 'emoji', list: false, prompt, history: [] };
  }
  if (!/^#{2,4}\s*Task:/i.test(text) || !/\bJSON\b/.test(text)) return undefined;
  const shape = /\{\s*"([A-Za-z_]{1,40})"\s*:\s*([["])/.exec(text);
  if (!shape?.[1]) return undefined;
  return { key: shape[1], list: shape[2] === '[', prompt, history: chatHistoryOf(text) };
}

/** The turns quoted as `USER: …` / `ASSISTANT: …` lines inside `<chat_history>…</chat_history>`. */
function chatHistoryOf(prompt: string): Array<{ role: string; text: string }> {
  const match = /<chat_history>([\s\S]*?)<\/chat_history>/i.exec(prompt);
  if (!match?.[1]) return [];
  const turns: Array<{ role: string; text: string }> = [];
  for (const piece of match[1].split(/^(?=(?:USER|ASSISTANT|SYSTEM):)/m)) {
    const turn = /^(USER|ASSISTANT|SYSTEM):\s*([\s\S]*)$/.exec(piece.trim());
    if (turn?.[1] && turn[2]?.trim()) turns.push({ role: turn[1].toLowerCase(), text: turn[2].trim() });
  }
  return turns;
}

const smallTalk: Array<[SmallTalkIntent, RegExp]> = [
  [
    'hello',
    /^(?:hi|hello|hey|hiya|howdy|yo|greetings|hallo|bonjour|salut|hola|ciao|good (?:morning|afternoon|evening|day))(?: there| all| everyone| alexandria)?$/,
  ],
  [
    'thanks',
    /^(?:(?:ok|okay|cool|great|nice|perfect|awesome|got it)(?: thanks?(?: you)?)?|thanks?(?: you)?(?: (?:so|very) much| a lot| again)?|thx|ty|cheers|many thanks|much appreciated|danke(?: schön| schoen)?|merci(?: beaucoup)?|gracias|grazie)$/,
  ],
  ['bye', /^(?:bye|goodbye|bye bye|see you|see ya|good night|ciao for now)$/],
  [
    'help',
    /^(?:help|who are you|what are you|what can you do|what do you do|how does this work|how do i use this|how do i use you)$/,
  ],
];

/**
 * The intent of a message that is nothing but a greeting, thanks, goodbye or a question about the
 * assistant itself ("hi", "thanks!", "what can you do?"), or undefined. Compared whole, after
 * lower-casing and dropping punctuation and emoji, so "thanks, and what about mice?" is research.
 */
export function smallTalkOf(question: string): SmallTalkIntent | undefined {
  const normalized = question
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (normalized.length === 0 || normalized.length > 40) return undefined;
  for (const [intent, pattern] of smallTalk) if (pattern.test(normalized)) return intent;
  return undefined;
}

/**
 * A short title for a conversation without a model: the content words of its first user turn, in
 * their order, at most six and 60 characters, the first capitalised ("Acinetobacter lwoffii
 * evolved lab resistant antibiotics").
 */
export function titleOf(history: Array<{ role: string; text: string }>): string {
  const first = history.find((turn) => turn.role === 'user')?.text ?? history[0]?.text ?? '';
  const words: string[] = [];
  let length = 0;
  for (const match of first.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)) {
    const word = match[0];
    if (isStopword(word.toLowerCase()) || (word.length < 2 && !/\d/.test(word))) continue;
    if (length + word.length + 1 > 60) break;
    words.push(word);
    length += word.length + 1;
    if (words.length === 6) break;
  }
  const title = words.join(' ');
  return title ? title.charAt(0).toUpperCase() + title.slice(1) : 'Research question';
}
