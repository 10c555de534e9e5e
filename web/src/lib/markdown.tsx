import type { ComponentChild } from 'preact';
import { href } from './router';

/**
 * A small markdown renderer that builds elements (never HTML strings), so text from papers and from
 * the agent cannot inject markup: headings, paragraphs, lists, tables, quotes, code, links, images,
 * bold, italic. Links to a document (`/api/fulltext?pdf_id=…`, `PDF_URL:…`, `PROJ:…`) open in the
 * reader; other http(s) links open in a new tab; any other scheme stays plain text.
 */
export interface MarkdownOptions {
  /** Words to mark (the question being answered). */
  highlight?: string[];
}

/** The reader route for a document link, or null when the link is not to a document. */
export function readerLink(target: string): string | null {
  if (/^(PDF_URL|PROJ):/i.test(target)) return href('read', { pdf: target });
  try {
    const url = new URL(target, location.origin);
    if (url.pathname.endsWith('/api/fulltext') && url.searchParams.get('pdf_id')) {
      const chunk = url.searchParams.get('chunk') ?? undefined;
      return href('read', { pdf: url.searchParams.get('pdf_id') ?? '', chunk });
    }
  } catch {
    return null;
  }
  return null;
}

function safeUrl(target: string): string | null {
  if (/^https?:\/\//i.test(target) || target.startsWith('/')) return target;
  return null;
}

function markWords(text: string, options: MarkdownOptions, key: string): ComponentChild[] {
  const words = (options.highlight ?? []).filter((word) => word.length > 2);
  if (words.length === 0) return [text];
  // Whole words that start with a question word ("support" marks "supported"), never parts of words.
  const alternatives = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])((?:${alternatives})[\\p{L}\\p{N}]*)`, 'giu');
  return text
    .split(pattern)
    .map((part, index) => (index % 2 === 1 ? <mark key={`${key}m${index}`}>{part}</mark> : part));
}

const inlinePattern =
  /!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|`([^`]+)`|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_/g;

export function inline(text: string, options: MarkdownOptions = {}, keyPrefix = 'i'): ComponentChild[] {
  const nodes: ComponentChild[] = [];
  let last = 0;
  let index = 0;
  for (const match of text.matchAll(inlinePattern)) {
    const key = `${keyPrefix}-${index++}`;
    if (match.index > last) nodes.push(...markWords(text.slice(last, match.index), options, key));
    last = match.index + match[0].length;
    const [, alt, source, label, target, bold, code, italic, italicUnderscore] = match;
    if (source !== undefined) {
      const url = safeUrl(source);
      nodes.push(
        url ? (
          <figure key={key} class="figure">
            <img src={url} alt={alt || 'Figure'} loading="lazy" />
            {alt ? <figcaption>{alt}</figcaption> : null}
          </figure>
        ) : (
          (alt ?? '')
        ),
      );
    } else if (label !== undefined && target !== undefined) {
      const reader = readerLink(target);
      const url = reader ?? safeUrl(target);
      if (!url) nodes.push(label);
      else if (reader)
        nodes.push(
          <a key={key} href={reader} class="citation">
            {inline(label, options, key)}
          </a>,
        );
      else
        nodes.push(
          <a key={key} href={url} target="_blank" rel="noopener noreferrer" class="citation">
            {inline(label, options, key)}
          </a>,
        );
    } else if (bold !== undefined) nodes.push(<strong key={key}>{inline(bold, options, key)}</strong>);
    else if (code !== undefined) {
      // A document reference (`PROJ:…`, `PDF_URL:…`) in an answer opens the reader.
      const reader = /^(PDF_URL|PROJ):/i.test(code) ? readerLink(code) : null;
      nodes.push(
        reader ? (
          <a key={key} href={reader} class="citation">
            <code>{code}</code>
          </a>
        ) : (
          <code key={key}>{code}</code>
        ),
      );
    } else nodes.push(<em key={key}>{inline(italic ?? italicUnderscore ?? '', options, key)}</em>);
  }
  if (last < text.length) nodes.push(...markWords(text.slice(last), options, `${keyPrefix}-end`));
  return nodes;
}

function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** Renders a markdown document as elements. */
export function Markdown({ text, options = {} }: { text: string; options?: MarkdownOptions }) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: ComponentChild[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const key = `b${index}`;
    if (line.trim() === '') {
      index++;
      continue;
    }
    if (line.startsWith('```')) {
      const body: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] ?? '').startsWith('```')) body.push(lines[index++] ?? '');
      index++;
      blocks.push(
        <pre key={key}>
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1]?.length ?? 1) + 2);
      const Tag = `h${level}` as 'h3';
      blocks.push(<Tag key={key}>{inline(heading[2] ?? '', options, key)}</Tag>);
      index++;
      continue;
    }
    if (line.trim().startsWith('|') && /^\s*\|?\s*:?-{3,}/.test(lines[index + 1] ?? '')) {
      const header = tableCells(line);
      const rows: string[][] = [];
      index += 2;
      while (index < lines.length && (lines[index] ?? '').trim().startsWith('|'))
        rows.push(tableCells(lines[index++] ?? ''));
      blocks.push(
        <div key={key} class="table-wrap">
          <table>
            <thead>
              <tr>
                {header.map((cell, column) => (
                  <th key={column} scope="col">
                    {inline(cell, options, `${key}h${column}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, column) => (
                    <td key={column}>{inline(cell, options, `${key}r${rowIndex}c${column}`)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
      continue;
    }
    if (/^!\[[^\]]*\]\([^)\s]+\)\s*$/.test(line)) {
      blocks.push(...inline(line.trim(), options, key));
      index++;
      continue;
    }
    const listItem = /^\s*([-*+]|\d+[.)])\s+/;
    if (listItem.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      while (index < lines.length && listItem.test(lines[index] ?? ''))
        items.push((lines[index++] ?? '').replace(listItem, ''));
      const children = items.map((item, itemIndex) => (
        <li key={itemIndex}>{inline(item, options, `${key}l${itemIndex}`)}</li>
      ));
      blocks.push(
        ordered ? (
          <ol key={key}>{children}</ol>
        ) : (
          <ul key={key} class="md-bullets">
            {children}
          </ul>
        ),
      );
      continue;
    }
    if (line.startsWith('>')) {
      const quoted: string[] = [];
      while (index < lines.length && (lines[index] ?? '').startsWith('>'))
        quoted.push((lines[index++] ?? '').replace(/^>\s?/, ''));
      blocks.push(<blockquote key={key}>{inline(quoted.join(' '), options, key)}</blockquote>);
      continue;
    }
    const paragraph: string[] = [];
    while (
      index < lines.length &&
      (lines[index] ?? '').trim() !== '' &&
      !/^(#{1,6}\s|```|>|\s*([-*+]|\d+[.)])\s)/.test(lines[index] ?? '')
    ) {
      paragraph.push(lines[index++] ?? '');
    }
    // Always consume a line, whatever it looked like, so the loop ends.
    if (paragraph.length === 0) paragraph.push(lines[index++] ?? '');
    blocks.push(<p key={key}>{inline(paragraph.join(' '), options, key)}</p>);
  }
  return <>{blocks}</>;
}
