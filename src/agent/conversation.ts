import type { ChatMessage } from '../domain/chat.js';
import { estimateTokens } from '../ports/chat-model.js';
import { agentTerm, contentTerms, deriveKeywords } from '../text/keywords.js';

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
  /** The previous user question, when there is one and the last question stands alone. */
  standalone?: string;
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

/**
 * Words that talk about studies and the conversation rather than name a subject: "How many patients
 * were included?", "What were the side effects?", "Summarise the methods." name no topic of their own.
 */
const studyTalk = new Set(
  `abstract advantage analysis approach approaches author authors benefit best better cause cite cited
  choose chosen claim code compare compared comparison conclude concluded conclusion conclusions control controls
  cost data dataset datasets design detail details differ difference differences disadvantage dose doses
  drawback drawbacks example examples exclude follow excluded experiment experiments fund funded guideline
  guidelines idea include included journal key large larger largest last latest limitation limitations
  long main measure measured measurement method methods model models more new newer number open
  outcome outcomes overview patient patients people participant participants point problem
  published recent recommend recommended reliable replicated report reported review reviews sample samples
  select selected setting side simple simply size source step strong summarise summarize summary
  term trial trials type types work works worse year years`
    .split(/\s+/)
    .filter((word) => word.length > 0)
    .map(agentTerm),
);

/** Terms of a message that name its subject: content words that are not study or conversation talk. */
export function topicTerms(text: string): string[] {
  return contentTerms(text).filter((term) => !studyTalk.has(term) && !/^\d+$/.test(term));
}

/** A pointer at the previous answer's items: "the second one", "these papers", "which of them". */
const pointsAtAnswer =
  /\b(?:the (?:first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last|latter|former|other)\b|(?:these|those|both|either|each|all|any|some|one|which|none|most) of (?:them|these|those|the above)\b|which (?:one|ones|is|are|was|were)\b|(?:these|those|this|that|the above) (?:papers?|stud(?:y|ies)|articles?|trials?|results?|findings?|samples?|tools?|methods?|approaches|models?|records?|works?|sources?|ones?|evidence)\b)/i;

/** An opening that continues the previous question: "and in mice?", "what about…", "same for…". */
const ellipticOpening =
  /^(?:(?:and|but|or|also|even|only|so|then|same|what about|how about|any|more|again|really|what else|tell me more|go on|how so)\b|why(?: not)?\s*[?.!]*$)/i;

/** A bare pronoun that stands for something named earlier. */
const pronoun = /\b(?:it|its|they|them|their|this|that|these|those|he|she|him|her|his)\b/i;

/** "it" that stands for nothing: "is it safe to …", "it is known that …". */
const expletiveIt = /^it\s+(?:is\s+|was\s+)?(?:\S+\s+){0,3}?(?:to|that|whether)\b/i;

/** A comparative that ends the message without saying what it compares with: "Is bottled water worse?" */
const openComparison =
  /\b(?:better|worse|safer|faster|slower|cheaper|larger|smaller|higher|lower|stronger|weaker)\s*[?.!]*$/i;

/** An opening preposition: "In which cancers?", "For how long?" */
const prepositionOpening = /^(?:in|for|at|on|with|among|during|after|before|from|by|under)\b/i;

/**
 * Pronouns that stand for a noun phrase, "that" only where it is one ("is that true?", not "evidence
 * that …") and "those" not where its own words say who ("those with diabetes"); possessives apart, since they may point at the subject of their own clause.
 */
const referring =
  /\b(?:(it|they|them|this|these|he|she|him|those(?!\s+(?:with|without|who|whose|in|of|from|on|at|under|treated|receiving|given|taking)\b))|(its|their|his|her)|(that)(?=\s+(?:is|was|also|still|holds?|true|means?|works?|applies|apply|the case)\b|\s*[?.!]*$))\b/i;

/** Where a clause begins: punctuation, or a conjunction that opens a clause. */
const clauseBoundary =
  /[,;:.?!()—–]|--|\s-\s|\b(?:and|but|or|because|if|when|whether|that|which|who|where|while|think|thinks|believe)\b/gi;

/**
 * Whether the message's first pronoun has nothing in the message it can stand for, so that it points
 * at the previous turn ("Which mutations did they carry?", "Can they export to CoNLL format?"). A
 * pronoun stands for a topic term of an earlier clause ("X: is it Y?", "What tools exist for …, and
 * how do they differ?") — not of its own clause, whose nouns it cannot repeat — and a possessive for
 * one anywhere before it; expletive "it" ("is it safe to …") stands for nothing.
 */
function pronounBeforeTopic(text: string): boolean {
  const match = referring.exec(text);
  if (!match) return false;
  if (/^it$/i.test(match[0]) && expletiveIt.test(text.slice(match.index))) return false;
  if (match[2]) return topicTerms(text.slice(0, match.index)).length === 0;
  let clauseStart = 0;
  for (const boundary of text.slice(0, match.index).matchAll(clauseBoundary)) clauseStart = boundary.index;
  return topicTerms(text.slice(0, clauseStart)).length === 0;
}

/** How a message relates to the turn before it, and why. */
export interface Reading {
  followUp: boolean;
  reason: string;
}

/**
 * Whether `message` can only be understood against the previous turn. A message that points at the
 * previous answer's items ("the second one", "which of them") or opens by continuing it ("and in
 * mice?", "what about…", "why?") is a follow-up. Otherwise a message that names its own subject — two
 * or more topic terms, content words that are not study talk — stands alone, pronouns or not ("What
 * tools exist for collaborative text annotation, and how do they differ?"). A message with fewer is a
 * follow-up when it has a pronoun or no topic term at all ("Is it safe?", "How many patients were
 * included?"); a single topic term without a pronoun ("What is CRISPR?") stands alone.
 */
export function readAgainstPrevious(message: string): Reading {
  const text = message.trim();
  if (pointsAtAnswer.test(text)) return { followUp: true, reason: 'points at the previous answer' };
  if (ellipticOpening.test(text)) return { followUp: true, reason: 'continues the previous question' };
  const topic = new Set(topicTerms(text));
  if (pronounBeforeTopic(text)) return { followUp: true, reason: 'refers back with a pronoun' };
  if (openComparison.test(text) && !/\b(?:than|compared|versus|vs)\b/i.test(text))
    return { followUp: true, reason: 'compares with something not named' };
  if (prepositionOpening.test(text) && topic.size < 2)
    return { followUp: true, reason: 'continues the previous question' };
  if (topic.size >= 2) return { followUp: false, reason: 'names its own subject' };
  if (topic.size === 0) return { followUp: true, reason: 'names no subject of its own' };
  if (pronoun.test(text)) return { followUp: true, reason: 'refers back with a pronoun' };
  return { followUp: false, reason: 'names its own subject' };
}

/**
 * Reads the last question as a possible follow-up: when it cannot stand alone (`readAgainstPrevious`)
 * and an earlier question exists,
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
  if (!readAgainstPrevious(question).followUp) return { ...plain, previousPapers, standalone: previous };
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
 * The line a conversation adds for the model before its last question: for a follow-up, what
 * "them"/"it" points at, so that a small model searches for it instead of the bare pronoun; for a
 * new question after earlier turns, that it does not refer to them (a small model otherwise reads
 * its "they" as the previous subject).
 */
export function followUpNote(followUp: FollowUp): string | undefined {
  if (followUp.standalone)
    return `The next question is a new question: it names its own subject and does not refer to the previous one ("${followUp.standalone.slice(0, 300)}") or to the papers found for it. Search for it and answer it on its own.`;
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

/** The progress line that says how the last question was read, when there was an earlier one. */
export function readingLine(followUp: FollowUp): string | undefined {
  const quote = (text: string) => `"${text.replace(/\s+/g, ' ').slice(0, 200)}"`;
  if (followUp.previousQuestion) {
    const about = followUp.referred
      ? `${quote(followUp.previousQuestion)}, the paper ${quote(followUp.referred.title)}`
      : quote(followUp.previousQuestion);
    return `Read as a follow-up to: ${about}\n`;
  }
  if (followUp.standalone)
    return `Read as a new question, not as a follow-up to: ${quote(followUp.standalone)}\n`;
  return undefined;
}
