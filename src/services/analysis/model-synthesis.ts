import type { ChatModel } from '../../ports/chat-model.js';
import { PromptFence } from '../../text/fence.js';

/** One paper's evidence for a question: where it is, and the quoted sentences. */
export interface SynthesisEvidence {
  /** "Title (year)". */
  label: string;
  /** Link to the answering chunk or the paper. */
  link: string | null;
  /** What the paper says (already quoted, markdown-inert). */
  text: string;
}

export interface SynthesisOptions {
  signal?: AbortSignal;
  maxTokens?: number;
  timeoutMs?: number;
}

/**
 * Writes the comprehensive-mode synthesis of one question with a chat model: the evidence goes in
 * fenced and numbered, the model answers citing `[n]`, and every `[n]` is then turned into a link to
 * that evidence — a number that names no evidence is removed. So the synthesis can only cite papers of
 * the project, whatever the model writes.
 */
export async function synthesizeWithModel(
  model: ChatModel,
  question: string,
  evidence: SynthesisEvidence[],
  options: SynthesisOptions = {},
): Promise<string> {
  const fence = new PromptFence();
  const sources = evidence
    .map((item, index) => `[${index + 1}] ${item.label}\n${fence.wrap(item.text)}`)
    .join('\n\n');
  const messages = [
    {
      role: 'system' as const,
      content: [
        'You compare research papers for a researcher. Answer the question in 3 to 6 sentences of plain English,',
        'using only the numbered evidence. Cite every claim with its evidence number in square brackets, like [2] or [1][3].',
        'Say where papers agree or differ. If the evidence does not answer the question, say so. No headings, no reference list.',
        fence.rule(),
      ].join(' '),
    },
    { role: 'user' as const, content: `Question: ${question}\n\nEvidence:\n\n${sources}` },
  ];
  let text = '';
  for await (const event of model.stream({
    messages,
    maxTokens: options.maxTokens ?? 600,
    temperature: 0.2,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  })) {
    if (event.type === 'text') text += event.text;
  }
  return linkCitations(text, evidence);
}

/** `[n]` → `[n](link)` for evidence n; unknown numbers and stray links are removed. */
export function linkCitations(text: string, evidence: SynthesisEvidence[]): string {
  return (
    text
      // The model may not link anywhere itself: [2](url) becomes [2], [label](url) its label.
      .replace(/\[([^\]]*)\]\([^)]*\)/g, (_match, label: string) =>
        /^\d{1,3}$/.test(label) ? `[${label}]` : label,
      )
      .replace(/\[(\d{1,3})\]/g, (_match, digits: string) => {
        const item = evidence[Number(digits) - 1];
        if (!item) return '';
        return item.link ? `[${digits}](${item.link})` : `[${digits}]`;
      })
      .replace(/[ \t]+([.,;:])/g, '$1')
      .replace(/[ \t]{2,}/g, ' ')
      .trim()
  );
}
