import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../domain/paper.js';
import {
  arxivInVenue,
  fieldsOfPaper,
  isPreprint,
  isPreprintDoi,
  isPreprintVenue,
  isPublished,
  publishedVersionOf,
} from './preprints.js';

/** Records as the ACL Anthology, OpenAlex and Semantic Scholar give them (titles and ids real). */
const bartAcl: Paper = {
  ...emptyPaper(
    'BART: Denoising Sequence-to-Sequence Pre-training for Natural Language Generation, Translation, and Comprehension',
  ),
  authors: ['Mike Lewis', 'Yinhan Liu', 'Naman Goyal'],
  year: 2020,
  venue: 'Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics',
  doi: '10.18653/v1/2020.acl-main.703',
};
const chemCrowArxiv: Paper = {
  ...emptyPaper('ChemCrow: Augmenting large-language models with chemistry tools'),
  authors: ['Andres M Bran', 'Sam Cox', 'Andrew Dickson White'],
  year: 2023,
  venue: 'arXiv (Cornell University)',
  type: 'preprint',
  doi: '10.48550/arxiv.2304.05376',
};
const chemToolsNature: Paper = {
  ...emptyPaper('Augmenting large language models with chemistry tools'),
  authors: ['Andres M. Bran', 'Sam Cox', 'Oliver Schilter'],
  year: 2024,
  venue: 'Nature Machine Intelligence',
  type: 'journal-article',
  doi: '10.1038/s42256-024-00832-8',
};
/** Semantic Scholar's record of "Attention is all you need": an arXiv id and a conference venue. */
const attention: Paper = {
  ...emptyPaper('Attention is All you Need'),
  authors: ['Ashish Vaswani'],
  year: 2017,
  venue: 'Neural Information Processing Systems',
  identifiers: { arxiv: '1706.03762' },
};

describe('preprints', () => {
  it('tells preprint servers’ DOIs and venues from publishers’', () => {
    expect(isPreprintDoi('10.48550/arXiv.2304.05376')).toBe(true);
    expect(isPreprintDoi('10.1101/2024.02.13.580051')).toBe(true);
    expect(isPreprintDoi('10.1101/gr.123456.111')).toBe(false);
    expect(isPreprintDoi('10.1038/s42256-024-00832-8')).toBe(false);
    expect(isPreprintVenue('arXiv preprint arXiv:1910.13461, 2019')).toBe(true);
    expect(isPreprintVenue('CoRR')).toBe(true);
    expect(isPreprintVenue('bioRxiv')).toBe(true);
    // A proceedings venue printed with its arXiv url is the proceedings.
    expect(
      isPreprintVenue(
        'Proceedings of the 2nd Workshop on New Frontiers in Summarization. URL http://arxiv.org/abs/1910.00523',
      ),
    ).toBe(false);
    expect(arxivInVenue('arXiv preprint arXiv:1910.13461')).toBe('1910.13461');
    expect(arxivInVenue('CoRR abs/1908.10084')).toBe('1908.10084');
    expect(arxivInVenue('Nature Machine Intelligence')).toBeNull();
  });

  it('says which records are preprints and which are published', () => {
    expect(isPreprint(fieldsOfPaper(chemCrowArxiv))).toBe(true);
    expect(isPublished(chemCrowArxiv)).toBe(false);
    expect(isPreprint(fieldsOfPaper(chemToolsNature))).toBe(false);
    expect(isPublished(chemToolsNature)).toBe(true);
    // An arXiv id beside a conference venue is the conference paper.
    expect(isPreprint(fieldsOfPaper(attention))).toBe(false);
    expect(isPublished(attention)).toBe(true);
    // A bare arXiv citation (id, no venue, no DOI).
    expect(
      isPreprint({ title: 'x', authors: [], year: 2019, venue: null, doi: null, arxiv: '1910.13461' }),
    ).toBe(true);
  });

  it('finds the published version: same work, same first author, not earlier than the preprint', () => {
    expect(publishedVersionOf(fieldsOfPaper(chemCrowArxiv), [chemCrowArxiv, chemToolsNature])).toBe(
      chemToolsNature,
    );
    const bartPreprint = {
      ...fieldsOfPaper(bartAcl),
      year: 2019,
      venue: 'arXiv',
      doi: null,
      arxiv: '1910.13461',
    };
    expect(publishedVersionOf(bartPreprint, [bartAcl])).toBe(bartAcl);
    // Another first author: not the same work's version.
    expect(publishedVersionOf(bartPreprint, [{ ...bartAcl, authors: ['Someone Else'] }])).toBeNull();
    // Published years before the preprint: not its later version.
    expect(publishedVersionOf({ ...bartPreprint, year: 2023 }, [bartAcl])).toBeNull();
    // A different title.
    expect(publishedVersionOf(fieldsOfPaper(chemCrowArxiv), [attention])).toBeNull();
  });
});
