import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { needsSharedData } from '../../../test/helpers/requirements.js';
import { detectFormat, extensionOf, findFormat, ingestFormats } from './index.js';
import { fixtures, headOf, recordedBodies, sharedData, testFixtures } from './test-support.js';

describe('format registry', () => {
  it('has unique names and finds formats by name', () => {
    const names = ingestFormats.map((format) => format.name);
    expect(new Set(names).size).toBe(names.length);
    expect(findFormat('JSONL')?.name).toBe('jsonl');
    expect(findFormat('nope')).toBeUndefined();
  });

  it('ignores .gz in extensions', () => {
    expect(extensionOf('/x/works.JSONL.gz')).toBe('.jsonl');
    expect(extensionOf('refs.csl.json')).toBe('.csl.json');
    expect(extensionOf('dir.v2/README')).toBe('');
  });

  it.each([
    ['corpus/acl_anthology_sample_500.jsonl', 'jsonl'],
    ['upstream/pubmed_eutils/responses/biopython/pubmed4.xml', 'pubmed'],
    ['upstream/pubmed_eutils/responses/biopython/pubmed1.xml', 'pubmed'],
    ['upstream/semantic_scholar/responses/danielnsilva_semanticscholar/Paper.json', 'semantic-scholar'],
    ['upstream/arxiv/responses/arxiv.py_2016/id_list=1111.2011v2.xml', 'arxiv-atom'],
    ['patents/uspto_xml/pap/US20010000044A1.xml', 'uspto'],
    ['patents/uspto_xml/pap/US20010009014A1.xml', 'uspto'],
    ['patents/uspto_xml/sgml/US06336130.xml', 'uspto'],
    ['patents/uspto_xml/xml2004/US06859910.xml', 'uspto'],
    ['patents/uspto_xml/xml2006/US07272630B2.xml', 'uspto'],
    ['patents/uspto_xml/xml2014/US08926509.xml', 'uspto'],
    ['patents/uspto_xml/xmlApp2004/US20050004974A1.xml', 'uspto'],
  ])('detects %s as %s', async (file, name) => {
    const path = join(testFixtures, file);
    expect(detectFormat(path, await headOf(path))?.name).toBe(name);
  });

  const large = [
    ['corpus/acl_anthology_2016_2022.jsonl.gz', 'jsonl'],
    ['corpus/mlanthology_2024.jsonl.gz', 'jsonl'],
    ['eval/scifact/corpus.jsonl.gz', 'beir'],
  ];
  it.skipIf(needsSharedData(...large.map(([file]) => file ?? '')))(
    'detects the gzip corpora of the shared data',
    async () => {
      for (const [file, name] of large) {
        const path = join(sharedData, file ?? '');
        expect(detectFormat(path, await headOf(path))?.name, file).toBe(name);
      }
    },
  );

  it('detects recorded API bodies: OpenAlex and Semantic Scholar', () => {
    const [openAlex] = recordedBodies('openalex', /pnas.1414271111$/);
    expect(detectFormat('-', openAlex ?? '')?.name).toBe('openalex');
    const [s2] = recordedBodies('semantic_scholar', /paper\/DOI:10.1038/);
    expect(detectFormat('paper.json', s2 ?? '')?.name).toBe('semantic-scholar');
    for (const body of recordedBodies('crossref', /api\.crossref\.org\/works/).filter(
      (text) => text.startsWith('{') && !text.includes('"work-agency"'),
    )) {
      expect(detectFormat('-', body)?.name).toBe('crossref');
    }
  });

  it.each([
    ['s2-papers-dataset.jsonl', 'semantic-scholar'],
    ['s2-abstracts-dataset.jsonl', 'semantic-scholar'],
    ['arxiv-metadata-snapshot.jsonl', 'arxiv'],
    ['references.csl.json', 'csl-json'],
    ['references.bib', 'bibtex'],
    ['references.ris', 'ris'],
    ['patentsview/g_patent.tsv', 'patentsview'],
    ['patentsview/g_inventor_disambiguated.tsv', 'patentsview'],
    ['patentsview/g_assignee_disambiguated.tsv', 'patentsview'],
    ['acl-anthology-2022.acl.xml', 'acl-xml'],
    ['acl-anthology-P19.xml', 'acl-xml'],
  ])('detects the fixture %s as %s', async (file, name) => {
    const path = join(fixtures, file);
    expect(detectFormat(path, await headOf(path))?.name).toBe(name);
  });

  it('detects BibTeX and RIS by content when the name says nothing', () => {
    expect(detectFormat('-', ' @article{Frank_1970, title={The Structure of Ordinary Water}}')?.name).toBe(
      'bibtex',
    );
    expect(detectFormat('export.txt', 'TY  - JOUR\nTI  - x\nER  - \n')?.name).toBe('ris');
  });

  it('detects nothing in unknown text', () => {
    expect(detectFormat('notes.txt', 'hello world')).toBeUndefined();
  });
});
