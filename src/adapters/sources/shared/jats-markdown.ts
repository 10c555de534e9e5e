import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

/**
 * JATS XML (Europe PMC `fullTextXML`, PMC efetch) as markdown: `# title`, `## Abstract`, one
 * heading per section (nested sections go one level deeper), paragraphs separated by blank lines,
 * lists as `-` items, figure and table captions kept as text. xmldom is used rather than
 * fast-xml-parser because JATS paragraphs are mixed content (`text<xref>1</xref> more`), whose
 * order only a DOM keeps.
 */
export function jatsToMarkdown(xml: string): { markdown: string; title: string | null } {
  const document = new DOMParser({
    onError: (level, message) => {
      if (level === 'fatalError') throw new Error(`invalid JATS XML: ${message}`);
    },
  }).parseFromString(xml, 'text/xml');
  const article = first(document.documentElement, 'article') ?? document.documentElement;
  if (!article) return { markdown: '', title: null };
  const blocks: string[] = [];
  const titleElement = first(first(article, 'front'), 'article-title');
  const title = titleElement ? inline(titleElement) : null;
  if (title) blocks.push(`# ${title}`);
  const abstract = first(first(article, 'front'), 'abstract');
  if (abstract) {
    blocks.push('## Abstract');
    renderChildren(abstract, 3, blocks);
  }
  const body = first(article, 'body');
  if (body) renderChildren(body, 2, blocks);
  return { markdown: blocks.filter((block) => block.length > 0).join('\n\n'), title };
}

function renderChildren(parent: Element, level: number, blocks: string[]): void {
  for (const child of elements(parent)) render(child, level, blocks);
}

function render(element: Element, level: number, blocks: string[]): void {
  switch (element.localName) {
    case 'sec': {
      const heading = directChild(element, 'title');
      if (heading) blocks.push(`${'#'.repeat(Math.min(level, 6))} ${inline(heading)}`);
      for (const child of elements(element)) if (child !== heading) render(child, level + 1, blocks);
      return;
    }
    case 'title':
      blocks.push(`${'#'.repeat(Math.min(level, 6))} ${inline(element)}`);
      return;
    case 'p':
      blocks.push(inline(element));
      return;
    case 'list':
      blocks.push(
        elements(element)
          .filter((item) => item.localName === 'list-item')
          .map((item) => `- ${inline(item)}`)
          .join('\n'),
      );
      return;
    case 'fig':
    case 'table-wrap': {
      const label = directChild(element, 'label');
      const caption = directChild(element, 'caption');
      const text = [label ? inline(label) : '', caption ? inline(caption) : ''].filter(Boolean).join(' ');
      if (text) blocks.push(`*${text}*`);
      return;
    }
    case 'disp-quote':
    case 'boxed-text':
      renderChildren(element, level, blocks);
      return;
    case 'disp-formula':
      blocks.push(inline(element));
      return;
    default:
      // Unknown block containers (supplementary material, notes) keep their paragraphs.
      if (elements(element).some((child) => child.localName === 'p')) renderChildren(element, level, blocks);
  }
}

/** Text content with whitespace collapsed (mixed content stays in document order). */
function inline(element: Node): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function elements(parent: Node | null | undefined): Element[] {
  const found: Element[] = [];
  if (!parent) return found;
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1) found.push(node as Element);
  }
  return found;
}

function directChild(parent: Element, name: string): Element | null {
  return elements(parent).find((child) => child.localName === name) ?? null;
}

/** First descendant element with that local name (depth-first). */
function first(parent: Node | null | undefined, name: string): Element | null {
  for (const child of elements(parent)) {
    if (child.localName === name) return child;
    const found = first(child, name);
    if (found) return found;
  }
  return null;
}
