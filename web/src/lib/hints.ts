/**
 * The service's `hint` texts are written for agents ("Read chunk 2 of 21 next with chunk=2.",
 * "/api/fulltext?pdf_id=…", "read_full_text(…)"). People get only the sentences that are about the
 * document, with no parameter, endpoint, tool call or document id in them; the page's own buttons
 * are how people act.
 */
const forAgents = [
  /\b[a-z]+=/i, // a parameter: chunk=2, offset=10
  /\/api\//, // an endpoint
  /\b(?:PDF_URL|PROJ):/i, // a document id
  /\b[a-z]+_[a-z_]+\b/, // a field or tool name: img_mds, pdf_id, read_full_text
  /\b[a-z_]+\(/, // a call
];

/** A hint's text in parts, where the odd ones were in `backticks` (commands, settings): shown as code. */
export function codeSpans(hint: string): Array<{ text: string; code: boolean }> {
  return hint.split('`').map((text, index) => ({ text, code: index % 2 === 1 }));
}

const wordsOnly = 'vectors of this document are still being built';

/** The part of a hint meant for people, or '' when none is. */
export function peopleHint(hint: string | null | undefined): string {
  if (!hint) return '';
  if (hint.includes(wordsOnly)) {
    return 'Found by its words only: this paper is still being indexed for meaning, so later questions on it will be answered better.';
  }
  const sentences = hint.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g) ?? [];
  return sentences
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence && !forAgents.some((pattern) => pattern.test(sentence)))
    .join(' ');
}
