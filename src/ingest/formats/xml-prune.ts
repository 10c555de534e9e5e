/**
 * Removes every element of the given names (start tag to matching end tag, or self-closing) from a
 * record's XML text before it is parsed. Readers use it to skip the parts they never read (PubMed
 * affiliations and MeSH lists, USPTO citation lists): the parser's time is proportional to its input.
 * Elements of a pruned name must not nest inside each other (true of the names readers pass).
 */
const startPatterns = new Map<string, RegExp>();

export function pruneElements(xml: string, names: readonly string[]): string {
  let text = xml;
  for (const name of names) {
    if (!text.includes(`<${name}`)) continue;
    let start = startPatterns.get(name);
    if (!start) {
      start = new RegExp(`<${name}(?=[\\s>/])`, 'g');
      startPatterns.set(name, start);
    }
    start.lastIndex = 0;
    const endTag = `</${name}>`;
    const pieces: string[] = [];
    let position = 0;
    for (let match = start.exec(text); match; match = start.exec(text)) {
      const open = match.index;
      const close = text.indexOf('>', open);
      if (close === -1) break;
      const end = text[close - 1] === '/' ? close + 1 : text.indexOf(endTag, close);
      if (end === -1) break;
      const stop = text[close - 1] === '/' ? end : end + endTag.length;
      pieces.push(text.slice(position, open));
      position = stop;
      start.lastIndex = stop;
    }
    pieces.push(text.slice(position));
    text = pieces.join('');
  }
  return text;
}
