import type { ComponentChild } from 'preact';
import { remoteHostOf } from './paper-registry';
import { href } from './router';
import { TexFormula } from './tex';

/**
 * A small markdown renderer that builds elements (never HTML strings), so text from papers and from
 * the agent cannot inject markup: headings, paragraphs, lists, tables, quotes, code, links, images,
 * bold, italic, backslash escapes and TeX formulas (`\(…\)`, `\[…\]`, `$$…$$`). Links to a
 * document (`/api/fulltext?pdf_id=…`, `PDF_URL:…`, `PROJ:…`) open in the reader, and a bare document
 * reference is shown as a readable "full text" link, never as the reference itself; other http(s)
 * links open in a new tab; any other scheme stays plain text.
 */
export interface MarkdownOptions {
  /** Words to mark (the question being answered). */
  highlight?: string[];
  /** The page reader links return to ("chat"): the reader then offers a way back. */
  from?: string;
}

/** The reader route for a document link, or null when the link is not to a document. */
export function readerLink(target: string, from?: string): string | null {
  if (/^(PDF_URL|PROJ):/i.test(target)) return href('read', { pdf: target, from });
  try {
    const url = new URL(target, location.origin);
    const pdf = url.searchParams.get('pdf_id') ?? url.searchParams.get('pdf_url');
    if (url.pathname.endsWith('/api/fulltext') && pdf) {
      const chunk = url.searchParams.get('chunk') ?? undefined;
      return href('read', { pdf, chunk, from });
    }
  } catch {
    return null;
  }
  return null;
}

/** What people see for a document reference: where its text comes from, not its id. */
export function documentLabel(ref: string): string {
  const host = remoteHostOf(ref);
  return host ? `PDF (${host})` : 'stored PDF';
}

function safeUrl(target: string): string | null {
  if (/^https?:\/\//i.test(target) || target.startsWith('/')) return target;
  return null;
}

/**
 * Backslash escapes (`\*`, `\[`, `\(`…) become private-use characters while the inline syntax is
 * parsed, so an escaped character never starts a link or emphasis, and are shown as the plain
 * character. (The service escapes quoted paper text this way: `\(Smith, 2020)`.)
 */
const escapedPattern = /\\([!-/:-@[-`{-~])/g;
const hiddenBase = 0xe000;
const hideEscapes = (text: string) =>
  text.replace(escapedPattern, (_, char: string) => String.fromCharCode(hiddenBase + char.charCodeAt(0)));
const showEscapes = (text: string, keepBackslash = false) =>
  text.replace(/[\ue021-\ue07e]/g, (char) => {
    const plain = String.fromCharCode(char.charCodeAt(0) - hiddenBase);
    return keepBackslash ? `\\${plain}` : plain;
  });

/**
 * Formulas: `\(…\)` inline, `\[…\]` and `$$…$$` on their own line. A `\[…\]` is a formula only
 * when it holds TeX (a command, `^` or `_`): quoted paper text escapes its brackets (`\[12\]`).
 */
const mathPattern = /\\\(((?:(?!\\\().){1,400}?)\\\)|\\\[((?:(?!\\\[).){1,2000}?)\\\]|\$\$(.{1,2000}?)\$\$/gs;
const looksLikeTex = (text: string) => /\\[A-Za-z]|[\^_]/.test(text.replace(/\\[^A-Za-z]/g, ''));

function markWords(text: string, options: MarkdownOptions, key: string): ComponentChild[] {
  const shown = showEscapes(text);
  const words = (options.highlight ?? []).filter((word) => word.length > 2);
  if (words.length === 0) return [shown];
  // Whole words that start with a question word ("support" marks "supported"), never parts of words.
  const alternatives = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])((?:${alternatives})[\\p{L}\\p{N}]*)`, 'giu');
  return shown
    .split(pattern)
    .map((part, index) => (index % 2 === 1 ? <mark key={`${key}m${index}`}>{part}</mark> : part));
}

const inlinePattern =
  /!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|`([^`]+)`|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\b((?:PDF_URL|PROJ):[^\s)\]>`'"]+)/g;

/** A readable link to the reader for a document reference; its id stays in `data-ref` only. */
function documentLink(ref: string, options: MarkdownOptions, key: string, inLink: boolean): ComponentChild {
  const reader = readerLink(ref, options.from);
  if (!reader || inLink) return documentLabel(ref);
  return (
    <a key={key} href={reader} class="citation" data-ref={ref}>
      {documentLabel(ref)}
    </a>
  );
}

/** Inline markdown (with formulas and escapes) as elements. */
export function inline(text: string, options: MarkdownOptions = {}, keyPrefix = 'i'): ComponentChild[] {
  const nodes: ComponentChild[] = [];
  let last = 0;
  let index = 0;
  for (const match of text.matchAll(mathPattern)) {
    const [whole, inlineTex, displayTex, dollarTex] = match;
    if (displayTex !== undefined && !looksLikeTex(displayTex)) continue;
    const key = `${keyPrefix}-x${index++}`;
    if (match.index > last)
      nodes.push(...inlineSyntax(hideEscapes(text.slice(last, match.index)), options, key));
    nodes.push(
      <TexFormula
        key={`${key}f`}
        tex={inlineTex ?? displayTex ?? dollarTex ?? ''}
        display={inlineTex === undefined}
      />,
    );
    last = match.index + whole.length;
  }
  if (last < text.length)
    nodes.push(...inlineSyntax(hideEscapes(text.slice(last)), options, `${keyPrefix}-x${index}`));
  return nodes;
}

function inlineSyntax(
  text: string,
  options: MarkdownOptions,
  keyPrefix: string,
  inLink = false,
): ComponentChild[] {
  const nodes: ComponentChild[] = [];
  let last = 0;
  let index = 0;
  for (const match of text.matchAll(inlinePattern)) {
    const key = `${keyPrefix}-${index++}`;
    if (match.index > last) nodes.push(...markWords(text.slice(last, match.index), options, key));
    last = match.index + match[0].length;
    const [, alt, source, label, target, bold, code, italic, italicUnderscore, bareRef] = match;
    if (source !== undefined) {
      const url = safeUrl(showEscapes(source));
      nodes.push(
        url ? (
          <figure key={key} class="figure">
            <img src={url} alt={showEscapes(alt ?? '') || 'Figure'} loading="lazy" />
            {alt ? <figcaption>{showEscapes(alt)}</figcaption> : null}
          </figure>
        ) : (
          showEscapes(alt ?? '')
        ),
      );
    } else if (label !== undefined && target !== undefined) {
      const plainTarget = showEscapes(target);
      const reader = readerLink(plainTarget, options.from);
      const url = reader ?? safeUrl(plainTarget);
      const children = inlineSyntax(label, options, key, true);
      if (!url || inLink) nodes.push(...children);
      else if (reader)
        nodes.push(
          <a key={key} href={reader} class="citation">
            {children}
          </a>,
        );
      else
        nodes.push(
          <a key={key} href={url} target="_blank" rel="noopener noreferrer" class="citation">
            {children}
          </a>,
        );
    } else if (bold !== undefined)
      nodes.push(<strong key={key}>{inlineSyntax(bold, options, key, inLink)}</strong>);
    else if (code !== undefined) {
      // Code spans keep their backslashes; a document reference in one becomes a readable link.
      const literal = showEscapes(code, true);
      nodes.push(
        /^(PDF_URL|PROJ):/i.test(literal) ? (
          documentLink(literal, options, key, inLink)
        ) : (
          <code key={key}>{literal}</code>
        ),
      );
    } else if (bareRef !== undefined) {
      const ref = showEscapes(bareRef).replace(/[.,;:]+$/, '');
      nodes.push(documentLink(ref, options, key, inLink));
      // Sentence punctuation after the reference is text again.
      last = match.index + ref.length;
    } else
      nodes.push(<em key={key}>{inlineSyntax(italic ?? italicUnderscore ?? '', options, key, inLink)}</em>);
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
