import type { ChatMessage } from '../domain/chat.js';
import { estimateTokens } from '../ports/chat-model.js';
import { contentTerms, deriveKeywords } from '../text/keywords.js';

/** A paper the previous answer cited, as its references list (or its links) gave it. */
export interface EarlierPaper {
  label: string;
  url: string;
  /** The title from the references list; the label when the answer only linked it. */
  title: string;
}

/** The last question read against the turn before it. */
export interface FollowUp {
  /** The last user message. */
  question: string;
  /** The previous user question, when the last one refers to it ("them", "it", "the second one"). */
  previousQuestion?: string;
  /** Papers the previous answer cited, in order. */
  previousPapers: EarlierPaper[];
  /** The paper an ordinal ("the second one", "the first paper") names among `previousPapers`. */
  referred?: EarlierPaper;
  /** Search keywords: the question's own first, then what it refers to (at most 6). */
  keywords: string[];
  /** The question with what it refers to spelled out, for ranking sentences and search text. */
  resolved: string;
}

const ordinals: Record<string, number> = {
  first: 1,
  '1st': 1,
  second: 2,
  '2nd': 2,
  third: 3,
  '3rd': 3,
  fourth: 4,
  '4th': 4,
  fifth: 5,
  '5th': 5,
};

/** Words that point back at the previous turn. */
const anaphora =
  /\b(?:them|they|their|theirs|it|its|this|that|these|those|such|the same|the latter|the former|the (?:first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)(?: one| paper| study| article| record)?|above)\b/i;

/**
 * Reads the last question as a possible follow-up: when it points back ("them", "it", "the second
 * one") or is too short to search on its own (≤ 2 content words), and an earlier question exists,
 * the earlier question and the papers the previous answer cited are what it refers to. Keywords
 * keep the question's own terms first and add the earlier question's (or the named paper's title).
 */
export function readFollowUp(messages: ChatMessage[]): FollowUp {
  const users = messages.filter((message) => message.role === 'user' && message.content.trim().length > 0);
  const question = users.at(-1)?.content.trim() ?? '';
  const own = deriveKeywords(question);
  const plain: FollowUp = { question, previousPapers: [], keywords: own, resolved: question };
  const previous = users.at(-2)?.content.trim();
  if (!previous) return plain;
  const lastIndex = messages.lastIndexOf(users.at(-1) as ChatMessage);
  const answer = messages
    .slice(0, lastIndex)
    .reverse()
    .find((message) => message.role === 'assistant' && message.content.trim().length > 0);
  const previousPapers = answer ? papersOf(answer.content) : [];
  const pointsBack = anaphora.test(question) || contentTerms(question).length <= 2;
  if (!pointsBack) return { ...plain, previousPapers };
  const ordinal = /\bthe (first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\b/i.exec(question)?.[1];
  const position =
    ordinal?.toLowerCase() === 'last' ? previousPapers.length : ordinals[ordinal?.toLowerCase() ?? ''];
  const referred = position ? previousPapers[position - 1] : undefined;
  const context = referred ? referred.title : previous;
  // "the second one" names a paper; its ordinal is no search term.
  const keywords = referred
    ? own.filter((word) => !(word.toLowerCase() in ordinals) && word.toLowerCase() !== 'last')
    : [...own];
  for (const word of deriveKeywords(context)) {
    if (keywords.length >= 6) break;
    if (!keywords.some((kept) => kept.toLowerCase() === word.toLowerCase())) keywords.push(word);
  }
  return {
    question,
    previousQuestion: previous,
    previousPapers,
    ...(referred ? { referred } : {}),
    keywords,
    resolved: `${question} (${context})`,
  };
}

/**
 * The papers an answer cited: its references list ("1. [label](url) — Title."), else its links in
 * order of first appearance.
 */
export function papersOf(answer: string): EarlierPaper[] {
  const papers: EarlierPaper[] = [];
  const seen = new Set<string>();
  for (const match of answer.matchAll(
    /^\s*\d+\.\s+\[([^\]\n]+)\]\(([^)\s]+)\)\s+—\s+(.+?)\.?(?:\s+\*|\s+Full text:|$)/gm,
  )) {
    const [, label = '', url = '', title = ''] = match;
    if (seen.has(url)) continue;
    seen.add(url);
    papers.push({ label, url, title: title.trim() });
  }
  if (papers.length > 0) return papers;
  for (const match of answer.matchAll(/(?<![!\\])\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g)) {
    const [, label = '', url = ''] = match;
    if (seen.has(url)) continue;
    seen.add(url);
    papers.push({ label, url, title: label });
  }
  return papers;
}

/** The conversation as it fits a model's context: what was cut, if anything. */
export interface FittedHistory {
  messages: ChatMessage[];
  /** Earlier turns (user and assistant messages) left out. */
  dropped: number;
  /** Earlier assistant answers shortened to their opening and their references. */
  shortened: number;
}

/** Characters of an earlier answer kept before its references list. */
const answerOpening = 600;

/**
 * Fits a conversation into `maxTokens` (estimated at four characters a token): the opening system
 * messages and the last question always stay; earlier answers are shortened to their opening and
 * references list (the papers a follow-up may refer to); then the oldest turns (a question and the
 * answers after it) are dropped, newest kept first, and replaced by one system note listing the questions that were asked in them.
 */
export function fitHistory(messages: ChatMessage[], maxTokens: number): FittedHistory {
  const lead: ChatMessage[] = [];
  let start = 0;
  while (messages[start]?.role === 'system') lead.push(messages[start++] as ChatMessage);
  const rest = messages.slice(start);
  const lastUser = rest.map((message) => message.role).lastIndexOf('user');
  if (lastUser < 0) return { messages, dropped: 0, shortened: 0 };
  const earlier = rest.slice(0, lastUser);
  const tail = rest.slice(lastUser);
  let shortened = 0;
  const compact = earlier.map((message) => {
    if (message.role !== 'assistant' || message.content.length <= answerOpening * 1.5) return message;
    shortened += 1;
    return { ...message, content: shortenAnswer(message.content) };
  });
  const size = (list: ChatMessage[]) =>
    list.reduce((sum, message) => sum + estimateTokens(message.content) + 4, 0);
  // Whole turns (a question and what followed it), newest first: an answer never stays without its question.
  const turns: ChatMessage[][] = [];
  for (const message of compact) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns.at(-1)?.push(message);
  }
  let budget = maxTokens - size(lead) - size(tail);
  let keptFrom = turns.length;
  while (keptFrom > 0) {
    const cost = size(turns[keptFrom - 1] as ChatMessage[]);
    if (cost > budget) break;
    budget -= cost;
    keptFrom -= 1;
  }
  const kept = turns.slice(keptFrom).flat();
  const cut = turns.slice(0, keptFrom).flat();
  if (cut.length === 0) return { messages: [...lead, ...kept, ...tail], dropped: 0, shortened };
  const asked = cut
    .filter((message) => message.role === 'user')
    .map((message) => `"${message.content.trim().replace(/\s+/g, ' ').slice(0, 160)}"`);
  const note: ChatMessage = {
    role: 'system',
    content: `${cut.length} earlier message(s) of this conversation were left out to fit the context.${asked.length ? ` In them the user asked: ${asked.join('; ')}.` : ''}`,
  };
  return { messages: [...lead, note, ...kept, ...tail], dropped: cut.length, shortened };
}

/** An earlier answer's opening and its references list. */
function shortenAnswer(answer: string): string {
  const references = answer.lastIndexOf('**References**');
  const body = references >= 0 ? answer.slice(0, references) : answer;
  const list = references >= 0 ? `\n\n${answer.slice(references).trim()}` : '';
  const opening = body.slice(0, answerOpening);
  const space = opening.lastIndexOf(' ');
  return `${space > answerOpening * 0.8 ? opening.slice(0, space) : opening} … (shortened)${list}`;
}

/**
 * The line a follow-up adds for the model: what "them"/"it" points at, so that a small model
 * searches for it instead of the bare pronoun.
 */
export function followUpNote(followUp: FollowUp): string | undefined {
  if (!followUp.previousQuestion) return undefined;
  const papers = followUp.previousPapers
    .slice(0, 5)
    .map((paper, index) => `${index + 1}. ${paper.label}: ${paper.title}`)
    .join('\n');
  return [
    `The next question follows up the previous one ("${followUp.previousQuestion.slice(0, 300)}"): words like "them" or "it" refer to its subject${followUp.referred ? `, and it names the paper "${followUp.referred.title}"` : ''}. Search with keywords such as: ${followUp.keywords.join(', ')}.`,
    papers ? `Papers of the previous answer:\n${papers}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
