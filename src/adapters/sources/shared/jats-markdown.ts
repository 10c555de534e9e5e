import { childrenOf, parseXmlRecord, textOf, type XmlElement } from '../../../text/xml-tree.js';

/**
 * JATS XML (Europe PMC `fullTextXML`, PMC efetch) as markdown: `# title`, `## Abstract`, one
 * heading per section (nested sections go one level deeper), paragraphs separated by blank lines,
 * lists as `-` items, figure and table captions kept as text. JATS paragraphs are mixed content
 * (`text<xref>1</xref> more`): the ordered tree of `text/xml-tree.ts` keeps their order.
 */
export function jatsToMarkdown(xml: string): { markdown: string; title: string | null } {
  let root: XmlElement;
  try {
    root = parseXmlRecord(xml);
  } catch (error) {
    throw new Error(`invalid JATS XML: ${(error as Error).message}`);
  }
  const article = root.name === 'article' ? root : (first(root, 'article') ?? root);
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

function renderChildren(parent: XmlElement, level: number, blocks: string[]): void {
  for (const child of elements(parent)) render(child, level, blocks);
}

function render(element: XmlElement, level: number, blocks: string[]): void {
  switch (element.name) {
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
          .filter((item) => item.name === 'list-item')
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
      if (elements(element).some((child) => child.name === 'p')) renderChildren(element, level, blocks);
  }
}

/** Text content with whitespace collapsed (mixed content stays in document order). */
function inline(element: XmlElement): string {
  return textOf(element).replace(/\s+/g, ' ').trim();
}

function elements(parent: XmlElement | null | undefined): XmlElement[] {
  return childrenOf(parent ?? undefined);
}

function directChild(parent: XmlElement, name: string): XmlElement | null {
  return elements(parent).find((child) => child.name === name) ?? null;
}

/** First descendant element with that local name (depth-first). */
function first(parent: XmlElement | null | undefined, name: string): XmlElement | null {
  for (const child of elements(parent)) {
    if (child.name === name) return child;
    const found = first(child, name);
    if (found) return found;
  }
  return null;
}
