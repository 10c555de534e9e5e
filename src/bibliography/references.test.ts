import { describe, expect, it } from 'vitest';
import { findCitationContexts } from './citation-markers.js';
import { readReferenceFields, surnameOf } from './reference-fields.js';
import { parseReferenceList } from './references.js';

// Paragraphs as the chunker writes them for real shared PDFs (papermage, NAR, Okasaki), including
// the layout's splits: an author list cut from its year, a title cut at its colon.
const authorYear = [
  '## 1 Introduction',
  'Cleaned text has been the first step in pretraining language models of science (Beltagy et al., 2019; Lo et al., 2020), and S2ORC (Lo et al., 2020) is one such corpus. Detection models (Tan et al., 2020) segment pages.',
  '## References',
  'Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciB-ERT: A pretrained language model for scientific text. In Proceedings of EMNLP-IJCNLP, pages 3615–3620, Hong Kong, China.',
  'Tal August, Lucy Lu Wang, Jonathan Bragg, Marti A.',
  'Hearst, Andrew Head, and Kyle Lo. 2023. Paper plain: Making medical research papers approachable to healthcare consumers with natural language processing. ACM Trans. Comput.-Hum. Interact., 30(5).',
  'Kyle Lo, Lucy Lu Wang, Mark Neumann, Rodney Kinney, and Daniel Weld. 2020. S2ORC: The semantic scholar open research corpus. In Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics, pages 4969–4983, Online.',
  'M. Tan, R. Pang, and Q. V. Le. 2020. Efficientdet:',
  'Scalable and efficient object detection. In 2020 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR), pages 10778–10787.',
  '### A Appendix',
  'Not a reference (Lo et al., 2020).',
].join('\n\n');

describe('parseReferenceList', () => {
  it('reads an author–year list, repairing entries the layout split', () => {
    const list = parseReferenceList([{ text: authorYear }]);
    expect(list?.style).toBe('author-year');
    expect(list?.entries.map((entry) => entry.authors[0])).toEqual([
      'Iz Beltagy',
      'Tal August',
      'Kyle Lo',
      'M. Tan',
    ]);
    expect(list?.entries[1]).toMatchObject({
      year: 2023,
      title: expect.stringMatching(/^Paper plain: Making/),
    });
    expect(list?.entries[2]).toMatchObject({
      year: 2020,
      title: 'S2ORC: The semantic scholar open research corpus',
      venue: expect.stringMatching(/^Proceedings of the 58th Annual Meeting/),
    });
    expect(list?.entries[3]?.title).toBe('Efficientdet: Scalable and efficient object detection');
  });

  it('links author–year citations to entries by surname and year, in the body only', () => {
    const chunks = [{ text: authorYear }];
    const list = parseReferenceList(chunks);
    if (!list) throw new Error('no list');
    const contexts = findCitationContexts(chunks, list);
    const cited = (surname: string) =>
      contexts.filter((context) => list.entries[context.entry]?.authors[0]?.endsWith(surname));
    expect(cited('Lo').map((context) => context.marker)).toEqual(['Lo et al., 2020', 'Lo et al., 2020']);
    expect(cited('Tan')[0]?.sentence).toMatch(/^Detection models/);
    // The appendix's sentence is body text too; the list's own paragraphs are not.
    expect(contexts.every((context) => !/Proceedings/.test(context.sentence))).toBe(true);
  });

  it('cuts a numbered list at the next number only (a wrapped page range is not an entry)', () => {
    const text = [
      'NAPs such as HU (2), IHF (3) and Fis (4) bind DNA (1). Dps protects it (1,2).',
      '## References',
      '1. Dorman,C.J. (2014) Function of nucleoid-associated proteins in chromosome structuring and transcriptional regulation. J. Mol. Microbiol. Biotechnol., 24, 316–331.',
      '2. Hoege C, Pfander B, Moldovan GL, Pyrowolakis G, Jentsch S. RAD6-dependent DNA repair is linked to modification of PCNA by ubiquitin and SUMO. Nature. 2002;419(6903):135-',
      '41. doi: 10.1038/nature00991. PubMed PMID: 12226657.',
      '3. Stella,S., Cascio,D. and Johnson,R.C. (2010) The shape of the DNA minor groove directs binding by the DNA-bending protein Fis. Genes Dev., 24, 814–826.',
      '4. Liu,Y. and Yan,J. (2010) A divalent switch drives H-NS/DNA-binding conformations. Genes Dev., 24, 339–344.',
    ];
    const chunks = [{ text: text.join('\n\n') }];
    const list = parseReferenceList(chunks);
    expect(list?.entries.map((entry) => entry.number)).toEqual([1, 2, 3, 4]);
    expect(list?.entries[0]).toMatchObject({ authors: ['Dorman, C.J.'], year: 2014 });
    expect(list?.entries[1]).toMatchObject({
      authors: ['Hoege C', 'Pfander B', 'Moldovan GL', 'Pyrowolakis G', 'Jentsch S'],
      title: 'RAD6-dependent DNA repair is linked to modification of PCNA by ubiquitin and SUMO',
      year: 2002,
      doi: '10.1038/nature00991',
    });
    const contexts = findCitationContexts(chunks, list ?? (null as never));
    expect(contexts.filter((context) => context.entry === 0).length).toBe(2);
    expect(contexts.filter((context) => context.entry === 3)[0]?.marker).toBe('(4)');
  });

  it('reads a labelled bibliography and its [Label] citations', () => {
    const text = [
      'This caching is known as memoization [Mic68]. Lazy rebuilding [Ove83] is simpler.',
      '## Bibliography',
      '[Mic68] Donald Michie. “Memo” functions and machine learning. Nature, 218:19–22, April 1968.',
      '(p. 3) [Ove83] Mark H. Overmars. The Design of Dynamic Data Structures, volume 156 of LNCS. Springer-Verlag, 1983.',
      '[Wad71] Christopher P. Wadsworth. Semantics and Pragmatics of the Lambda-Calculus. PhD thesis, University of Oxford, September 1971.',
    ];
    const chunks = [{ text: text.join('\n\n') }];
    const list = parseReferenceList(chunks);
    expect(list?.style).toBe('label');
    expect(list?.entries.map((entry) => [entry.label, entry.year])).toEqual([
      ['Mic68', 1968],
      ['Ove83', 1983],
      ['Wad71', 1971],
    ]);
    const contexts = findCitationContexts(chunks, list ?? (null as never));
    expect(contexts.map((context) => list?.entries[context.entry]?.label)).toEqual(['Mic68', 'Ove83']);
  });

  it('finds no list without a references heading', () => {
    expect(parseReferenceList([{ text: 'Text (1). More text [2].' }])).toBeNull();
  });
});

describe('readReferenceFields', () => {
  it('does not take an arXiv id or a page range for the year', () => {
    const fields = readReferenceFields(
      'Iz Beltagy, Matthew E Peters, and Arman Cohan. Longformer: The long-document transformer. arXiv preprint arXiv:2004.05150, 2020.',
    );
    expect(fields).toMatchObject({
      year: 2020,
      arxiv: '2004.05150',
      title: 'Longformer: The long-document transformer',
    });
    expect(
      readReferenceFields(
        'Tom Brown and Dario Amodei. 2020. Language models are few-shot learners. In NeurIPS, pages 1877–1901.',
      ).year,
    ).toBe(2020);
  });

  it('reads surnames of every printed form', () => {
    expect(['Smith, J.', 'Jane van Smith', 'Blair JMA', 'Dorman, C.J.', 'K. Gero'].map(surnameOf)).toEqual([
      'smith',
      'van smith',
      'blair',
      'dorman',
      'gero',
    ]);
  });
});
