// Yes/no questions: the verdict step of the tool agent, the findings it reads, its prompts and turns.
import type { ChatModel, ChatModelMessage, ChatTurnRequest, TokenUsage } from '../ports/chat-model.js';
import { rankPassages, rankSentences, splitSentences } from '../text/sentences.js';
import type { AgentBudgets } from './agent-types.js';
import { turnReply, turnText } from './model-turn.js';
import { citationMarkdown, type Evidence, type RetrievedSource, type SourceLedger } from './source-ledger.js';

/** The answer to a yes/no research question. */
export type Verdict = 'yes' | 'no' | 'maybe';

export const verdictChoices: readonly Verdict[] = ['yes', 'no', 'maybe'];

/** What the verdict step reads: the question, and the findings of the records that bear on it. */
export interface VerdictFindings {
  source: RetrievedSource;
  /** Sentences of the record, in its own order. */
  sentences: string[];
}

/**
 * The retrieved records whose title and text (what the run read of them) best match `query`
 * (BM25 over the records): the best, and a second when it scores at least 80 % of the best.
 */
function bestRecords(
  query: string,
  evidence: Evidence[],
): Array<{ source: RetrievedSource; texts: string[] }> {
  const bySource = new Map<string, { source: RetrievedSource; texts: string[] }>();
  for (const item of evidence) {
    const entry = bySource.get(item.source.id) ?? { source: item.source, texts: [] };
    entry.texts.push(item.text);
    bySource.set(item.source.id, entry);
  }
  const ranked = rankPassages(
    query,
    [...bySource.values()].map((entry) => ({
      text: `${entry.source.paper.title}\n\n${entry.texts.join('\n\n')}`,
      origin: entry,
    })),
  );
  const best = ranked[0]?.score ?? 0;
  return ranked
    .filter((entry, index) => index === 0 || entry.score >= best * 0.8)
    .slice(0, 2)
    .map((entry) => entry.origin);
}

/**
 * The findings for a verdict: the retrieved record whose text (title and what the run read of it)
 * best matches the question, its three closing sentences (where an abstract states its results and
 * conclusion) and the two that best match the question; a second record when it matches nearly as
 * well (80 % of the best score). At most 1,200 characters per record.
 */
export function verdictFindings(question: string, evidence: Evidence[]): VerdictFindings[] {
  const closing = 3;
  const matching = 2;
  const maxChars = 1200;
  return bestRecords(question, evidence).map((origin) => {
    const sentences = origin.texts.flatMap((text) => splitSentences(text));
    const keep = new Set<number>();
    for (let index = Math.max(0, sentences.length - closing); index < sentences.length; index += 1)
      keep.add(index);
    const matched = rankSentences(
      question,
      sentences.map((text, index) => ({ text, origin: index })),
    );
    for (const entry of matched.slice(0, matching + closing)) {
      if (keep.size >= closing + matching) break;
      keep.add(entry.origin);
    }
    const picked: string[] = [];
    let length = 0;
    // The closing sentences first when the record is long: they state what was found.
    const order = [...keep].sort((a, b) => a - b);
    for (const index of order) {
      const sentence = sentences[index] ?? '';
      if (length + sentence.length > maxChars && picked.length > 0) continue;
      picked.push(sentence);
      length += sentence.length + 1;
    }
    return { source: origin.source, sentences: picked };
  });
}

/**
 * The first instruction of the verdict step: the question and the findings quoted with their
 * record's citation; the model states in one sentence what they conclude, before it is asked for
 * the verdict (asked for one word at once, the 1.5B model said "yes" to every question, even where
 * its own answer then said "not necessary": docs/decisions/0035-local-chat-model.md).
 */
export function conclusionPrompt(question: string, findings: VerdictFindings[]): string {
  const quoted = findings
    .map(
      (entry) =>
        `Findings of ${citationMarkdown(entry.source)} (${entry.source.paper.title.replace(/\s+/g, ' ').trim()}):\n"${entry.sentences.join(' ')}"`,
    )
    .join('\n\n');
  return `Before writing the answer, weigh the evidence. The question: "${question}"
${quoted ? `\n${quoted}\n` : ''}
In one sentence, state what these findings show about the question, including any "no difference", "not significant" or "did not" result. Do not answer yes or no yet.`;
}

/**
 * The second instruction of the verdict step, after the model's conclusion: the three possible
 * replies, one word (a local model is held to it by a grammar: `ChatTurnRequest.choices`).
 */
export function verdictPrompt(question: string): string {
  return `Given that conclusion, what is the answer to the question "${question}"? Reply with one word: yes if the findings support it, no if they do not support it or contradict it, maybe if they are mixed or inconclusive.`;
}

/**
 * Most tokens of the verdict step's conclusion: one sentence is ~25-45 tokens. Not lowered: the
 * verdict reads the conclusion (a 60-token cap was tried and not kept: decision 0035).
 */
export const conclusionTokens = 100;

/**
 * Most tokens of the answer written after a verdict: the 2-3 sentences asked for take ~60-150; the
 * cap stops a small model that copies the quoted findings out at length (a whole answer's slowest
 * part then), at ~25 s of writing on 2 CPU cores.
 */
export const verdictAnswerTokens = 240;

/** The instruction after the verdict: write the answer, starting with it, explained and cited. */
export function afterVerdictPrompt(verdict: Verdict): string {
  const word = capitalized(verdict);
  return `The verdict is "${word}". Now write the answer: start with "${word}." and then explain it in 2-3 sentences from the findings, citing the record of each statement as instructed.`;
}

/**
 * Worked examples for the verdict's classification turn, written for this project (not taken from
 * any benchmark): findings and a question, and the word they call for. One per reading a small
 * model gets wrong: a measured benefit (yes), no difference (no), the opposite of what is asked
 * (no), a benefit in one subgroup only on a small sample (maybe).
 */
const verdictExamples: ReadonlyArray<{ findings: string; question: string; verdict: Verdict }> = [
  {
    findings:
      'Patients given the drug had fewer relapses over two years than those given placebo (18% vs 31%, p=0.004). Adverse events were similar in both arms.',
    question: 'Does the drug reduce relapses?',
    verdict: 'yes',
  },
  {
    findings:
      'Length of stay did not differ between the two groups (6.1 vs 6.4 days, p=0.52), and neither did readmission rates.',
    question: 'Does early mobilisation shorten hospital stay?',
    verdict: 'no',
  },
  {
    findings:
      'The score was associated with mortality in older patients (OR 2.1) but not in those under 65; the confidence intervals were wide and the sample small.',
    question: 'Does the score predict mortality?',
    verdict: 'maybe',
  },
  {
    findings:
      'Surgeons who trained on the simulator completed the task faster and made fewer errors than those who did not.',
    question: 'Does simulator training improve surgical skill?',
    verdict: 'yes',
  },
  {
    findings: 'Rates of infection were higher, not lower, in the screened group (4.2% vs 2.9%).',
    question: 'Does screening lower infection rates?',
    verdict: 'no',
  },
];

const classifyInstruction =
  'You judge whether the findings of a study answer a research question with yes, no or maybe. yes: the findings support it. no: the findings show no effect, no difference, no association, or the opposite. maybe: mixed, partial or inconclusive findings.';

const classifyQuestion = (findings: string, question: string) =>
  `Findings: "${findings}"\nQuestion: ${question}\nAnswer yes, no or maybe.`;

/**
 * The verdict's classification turn: a conversation of its own (`ChatTurnRequest.isolated`), the
 * instruction and the worked examples (a stable prefix the local model evaluates once), then the
 * findings and the question. Asked inside the research conversation, right after the model's own
 * conclusion, the 1.5B model answered "yes" to 17 of 17 "yes" items and 8 of 10 "no" items of the
 * PubMedQA goal sample; measured apart on 58 items outside it: docs/decisions/0035-local-chat-model.md.
 */
export function verdictClassificationMessages(
  question: string,
  findings: VerdictFindings[],
): ChatModelMessage[] {
  const text = findings
    .map((entry) => entry.sentences.join(' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [
    { role: 'system', content: classifyInstruction },
    ...verdictExamples.flatMap((example): ChatModelMessage[] => [
      { role: 'user', content: classifyQuestion(example.findings, example.question) },
      { role: 'assistant', content: example.verdict },
    ]),
    { role: 'user', content: classifyQuestion(text || 'none were found', question) },
  ];
}

/** Added to the log-probabilities of the three words before the most probable is taken. */
export type VerdictLogPriors = Record<Verdict, number>;

/**
 * The verdict from the model's probabilities of the three words: the most probable after adding
 * `logPriors` to each word's log-probability (none: the most probable as given; ties in the order
 * yes, no, maybe). The local model's priors correct its lean towards "yes", fitted on the tuning
 * split of hundreds of questions (decision 0072). Undefined without probabilities for all three.
 */
export function chooseVerdict(
  probabilities: Record<string, number> | undefined,
  logPriors?: VerdictLogPriors,
): Verdict | undefined {
  if (!probabilities) return undefined;
  let best: { verdict: Verdict; score: number } | undefined;
  for (const verdict of verdictChoices) {
    const probability = probabilities[verdict];
    if (typeof probability !== 'number' || !Number.isFinite(probability) || probability < 0) return undefined;
    const score = logPriors ? Math.log(Math.max(probability, 1e-12)) + logPriors[verdict] : probability;
    if (!best || score > best.score) best = { verdict, score };
  }
  return best?.verdict;
}

/** The verdict a reply names (its first word), or undefined. */
export function parseVerdict(text: string): Verdict | undefined {
  const first = /^[\s*_"'`]*(yes|no|maybe)\b/i.exec(text);
  return first?.[1]?.toLowerCase() as Verdict | undefined;
}

function capitalized(verdict: Verdict): string {
  return `${verdict.charAt(0).toUpperCase()}${verdict.slice(1)}`;
}

/**
 * The verdict step, after the search and before the answer: two model calls, shown the findings
 * of the best-matching records — a one-sentence conclusion in free text, then yes, no or maybe
 * (`choices`: a grammar on the local model). On success the exchange joins `messages`, so the
 * answer turn extends it. Undefined when the reply names no verdict (a remote model may ignore
 * the constraint): the answer is then written without one.
 */
export async function runVerdictStep(
  model: ChatModel,
  messages: ChatModelMessage[],
  question: string,
  ledger: SourceLedger,
  budgets: AgentBudgets,
  signal: AbortSignal,
  usage: TokenUsage,
  logPriors?: VerdictLogPriors,
): Promise<{ verdict: Verdict; probabilities?: Record<string, number> } | undefined> {
  const findings = verdictFindings(question, ledger.evidence);
  const call = async (request: ChatTurnRequest) => (await turnText(model, request, usage)).trim();
  // First what the findings show, in the model's words; then the verdict, given that.
  const weigh: ChatModelMessage[] = [{ role: 'system', content: conclusionPrompt(question, findings) }];
  const conclusion = await call({
    messages: [...messages, ...weigh],
    maxTokens: Math.min(conclusionTokens, budgets.maxTokensPerCall),
    signal,
  });
  if (conclusion) weigh.push({ role: 'assistant', content: conclusion });
  weigh.push({ role: 'system', content: verdictPrompt(question) });
  // The word itself from a classification turn of its own, with worked examples: inside the
  // conversation the 1.5B model said "yes" after its own "no difference" conclusion.
  const reply = await turnReply(
    model,
    {
      messages: verdictClassificationMessages(question, findings),
      choices: [...verdictChoices],
      maxTokens: Math.min(8, budgets.maxTokensPerCall),
      isolated: true,
      signal,
    },
    usage,
  );
  // With the model's probabilities (the local adapter), the most probable word after the model's
  // priors (decision 0072); else the word it wrote.
  const verdict = chooseVerdict(reply.choiceProbabilities, logPriors) ?? parseVerdict(reply.text.trim());
  if (verdict) messages.push(...weigh);
  return verdict
    ? { verdict, ...(reply.choiceProbabilities ? { probabilities: reply.choiceProbabilities } : {}) }
    : undefined;
}
