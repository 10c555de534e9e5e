import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { readPubmedXml } from './pubmed-xml.js';
import { fileInput, papersOf, readAll, testFixtures } from './test-support.js';

const responses = join(testFixtures, 'upstream/pubmed_eutils/responses/biopython');

describe('PubMed XML', () => {
  it('reads a structured abstract with labels, ids, journal and date', async () => {
    const [paper] = papersOf(await readAll(readPubmedXml, fileInput(join(responses, 'pubmed4.xml'))));
    expect(paper).toMatchObject({
      title: expect.stringMatching(
        /^Leucocyte telomere length, genetic variants at the TERT gene region and risk of /,
      ),
      doi: '10.1136/gutjnl-2016-312510',
      venue: 'Gut',
      publication_date: '2017-06',
      year: 2017,
      type: 'journal-article',
      url: 'https://pubmed.ncbi.nlm.nih.gov/27797938/',
      identifiers: { pmid: '27797938', pmcid: 'PMC5442267' },
      source: 'pubmed',
    });
    expect(paper?.authors.slice(0, 2)).toEqual(['Ying Bao', 'Jennifer Prescott']);
    expect(paper?.abstract).toMatch(
      /^OBJECTIVE: Telomere shortening occurs as an early event in pancreatic tumorigenes/,
    );
    expect(paper?.abstract).toContain(' DESIGN: We measured prediagnostic leucocyte telomere length');
  });

  it('reads several articles of one file, with and without abstract or DOI', async () => {
    const papers = papersOf(await readAll(readPubmedXml, fileInput(join(responses, 'pubmed1.xml'))));
    expect(papers.map((paper) => [paper.identifiers?.pmid, paper.doi, paper.publication_date])).toEqual([
      ['12091962', null, '1990'],
      ['9997', '10.1016/0005-2795(76)90109-4', '1976-09-28'],
    ]);
    expect(papers[0]?.abstract).toBeNull();
    expect(papers[0]?.authors).toEqual(['J Michael Olivero']);
  });

  it('completes a year-only issue date with the electronic date', async () => {
    const [paper] = papersOf(await readAll(readPubmedXml, fileInput(join(responses, 'pubmed6.xml'))));
    expect(paper).toMatchObject({
      publication_date: '2018-07-31',
      venue: 'Frontiers in physiology',
      identifiers: { pmcid: 'PMC6079548' },
    });
  });

  it('reads every recorded efetch file', async () => {
    let count = 0;
    for (const name of [
      'pubmed1.xml',
      'pubmed2.xml',
      'pubmed4.xml',
      'pubmed5.xml',
      'pubmed6.xml',
      'pubmed7.xml',
    ]) {
      count += papersOf(await readAll(readPubmedXml, fileInput(join(responses, name)))).length;
    }
    expect(count).toBe(8);
  });

  it('rejects an unclosed and a malformed article with their byte offsets, and keeps going', async () => {
    const good =
      '<PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>Good <i>one</i></ArticleTitle></Article></MedlineCitation></PubmedArticle>';
    const items = await readAll(
      readPubmedXml,
      textInput(
        '<PubmedArticleSet>\n<PubmedArticle><MedlineCitation>\n',
        good,
        '\n<PubmedArticle><a></b></PubmedArticle>',
        good,
        '</PubmedArticleSet>',
      ),
    );
    expect(items.map((item) => (item.ok ? item.paper.title : item.reason))).toEqual([
      '<PubmedArticle> is not closed before the next record',
      'Good one',
      expect.stringMatching(/^malformed XML/),
      'Good one',
    ]);
    expect(items[0]?.location).toBe('record 1 (byte 19)');
  });
});
