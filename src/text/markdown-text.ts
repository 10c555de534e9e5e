/**
 * Paper text quoted into a markdown answer is data: it must not be able to add links, images, HTML
 * or formatting of its own. Links keep their visible words, bare URLs are dropped (an ellipsis
 * marks the gap), and the characters markdown would act on are escaped (CommonMark renders `\(` as
 * `(`, so the reader sees the text as written).
 */
export function quotePaperText(text: string): string {
  return (
    text
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<\/?[a-zA-Z][^>]*>/g, '')
      .replace(/\b(?:https?|ftp|javascript|data):\/*[^\s)\]>"']*/gi, '…')
      .replace(/\bwww\.[^\s)\]>"']+/gi, '…')
      .replace(/([\\`*_[\]<>|])/g, '\\$1')
      // The paper's own author–year citations are part of the quote, not citations of the answer:
      // escaped, the citation check leaves them as written.
      .replace(/\((?=[^()]{0,160}\b(?:1[5-9]|20)\d{2}[a-z]?\))/g, '\\(')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A title or venue for a references list: one line, no markdown of its own. */
export function plainLine(text: string, max = 300): string {
  const line = quotePaperText(text);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
