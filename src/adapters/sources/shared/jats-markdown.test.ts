import { describe, expect, it } from 'vitest';
import { jatsToMarkdown } from './jats-markdown.js';

describe('jatsToMarkdown', () => {
  it('keeps mixed content in order and nests section headings', () => {
    // A minimal JATS article in the shape PMC serves (title, abstract, nested sections, list, figure).
    const xml = `<?xml version="1.0"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<title-group><article-title>Gene <italic>editing</italic> at scale</article-title></title-group>
<abstract><p>Gene editing<xref ref-type="bibr">1</xref> is <bold>fast</bold>.</p></abstract>
</article-meta></front>
<body><sec><title>Introduction</title><p>First   paragraph.</p>
<sec><title>Background</title><p>Nested <sup>2</sup> text.</p>
<list><list-item><p>one</p></list-item><list-item><p>two</p></list-item></list></sec></sec>
<sec><title>Results</title><fig><label>Figure 1</label><caption><p>Editing rates.</p></caption></fig></sec></body>
<back><ref-list><ref><mixed-citation>Not part of the text.</mixed-citation></ref></ref-list></back></article>`;
    const { markdown, title } = jatsToMarkdown(xml);
    expect(title).toBe('Gene editing at scale');
    expect(markdown).toBe(
      [
        '# Gene editing at scale',
        '## Abstract',
        'Gene editing1 is fast.',
        '## Introduction',
        'First paragraph.',
        '### Background',
        'Nested 2 text.',
        '- one\n- two',
        '## Results',
        '*Figure 1 Editing rates.*',
      ].join('\n\n'),
    );
  });

  it('rejects text that is not XML', () => {
    expect(() => jatsToMarkdown('<article><p>unclosed')).toThrow(/invalid JATS XML/);
  });
});
