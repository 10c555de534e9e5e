import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import type { ParsedDocument } from '../../src/ports/pdf-extractor.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

/**
 * Every PDF of the shared data through the real extractor (worker pool), with assertions on real
 * content: known sentences intact and de-hyphenated, two-column pages read column by column,
 * running headers gone, figures, metadata and page counts as in the manifest.
 */
interface ManifestEntry {
  file: string;
  pages: number;
  has_text_layer: boolean;
  doi?: string;
  arxiv?: string;
  year?: number | null;
}

interface Expectation {
  /** Sentences that must appear verbatim in one chunk (whitespace-normalised). */
  sentences?: string[];
  /** Text that must not appear anywhere (running headers, margin stamps). */
  absent?: string[];
  /** Text allowed at most once in the whole document (a header kept only on page 1). */
  once?: string[];
  minFigures?: number;
  maxFigures?: number;
  /** The manifest's DOI is printed in the PDF (not only known from Crossref). */
  doiInPdf?: boolean;
  /** The manifest's year is printed in the PDF (true), or the PDF prints no year at all (false). */
  yearFromPdf?: boolean;
}

const expectations: Record<string, Expectation> = {
  'US10510317B2_patent.pdf': {
    // Damaged xref, CCITT page images and an invisible OCR layer: the text still comes out.
    sentences: [
      'Embodiments described herein provide for a display system to generate and display data on a display device',
    ],
    absent: ['Sheet 1 of 18'],
    maxFigures: 0,
  },
  'beyond_summarization_2304.02623v1.pdf': {
    sentences: [
      'Often, supporting such real-world tasks also allows us to draw upon existing rich repositories of example data and established evaluation protocols, which can further the development of future AI augmented writing systems.',
    ],
    absent: ['arXiv:2304.02623v1 [cs.CL]', 'Shen, et al.'],
    yearFromPdf: true,
  },
  'citesee_2302.07302v1.pdf': {
    sentences: [
      'HCI researchers have designed numerous standalone interactive paper discovery tools to support exploration of large corpora of papers',
    ],
    absent: ['Chang et al.\n'],
    once: ['CHI ’23, April 23–28, 2023, Hamburg, Germany'],
    minFigures: 5,
    doiInPdf: true,
    yearFromPdf: true,
  },
  'immunology_editorial_imm13445.pdf': {
    sentences: [
      'As the COVID-19 pandemic continues to roll on, it has been an interesting time to be an immunologist.',
    ],
    doiInPdf: true,
    yearFromPdf: true,
  },
  'korean_nars_issue_1695_2020.pdf': {
    // Korean through CID fonts and cMaps.
    sentences: ['코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제', '사망자는 158명으로 나타났다.'],
    yearFromPdf: true,
  },
  'lisp_ii_garbage_collector_ai_memo19_SCANNED.pdf': {},
  'litqa_biorxiv_2024.02.13.580051.pdf': {
    sentences: [
      'TLS polymerases are recruited to sites of damage in at least two different ways. In budding yeast, RPA-coated ssDNA accumulates at stalled forks and signals for Rad6 and Rad18 to monoubiquitylate PCNA at lysine 164 [9, 37, 38]. Monoubiquitylated PCNA then recruits TLS polymerases to DNA lesions',
    ],
    absent: ['bioRxiv preprint doi: https://doi.org/10.1101/2024.02.13.580051; this version posted'],
    minFigures: 3,
    doiInPdf: true,
    yearFromPdf: true,
  },
  'litqa_genome_biol_s13059-023-02935-8.pdf': {
    sentences: [
      'GCK regulates glucose levels by catalyzing the first step of glycolysis — the phosphorylation of glucose to form glucose-6-phosphate.',
    ],
    absent: ['Page 3 of 23', 'Page 17 of 23'],
    minFigures: 2,
    doiInPdf: true,
    yearFromPdf: true,
  },
  'litqa_msphere_00109-24.pdf': {
    sentences: ['Reference strains of A. baumannii AYE and A. lwoffii NCTC 5867 were used.'],
    absent: ['May 2024 Volume 9'],
    minFigures: 2,
    doiInPdf: true,
    yearFromPdf: true,
  },
  'litqa_nar_gkae223.pdf': {
    sentences: [
      // Runs from the bottom of column 1 to the top of column 2 on page 1.
      'For example, under favorable conditions H-NS can form stiffening filaments on linear DNA instead of forming bridging contacts (5).',
      // Column 2 only: must not be interleaved with column 1.
      'Similarly, ParB can bind at a specific site and form linear filaments before crosslinking DNA strands with bridging contacts (6).',
      // "bac-|teria" at a line end.
      'Nucleoid-associated proteins (NAPs) play a central role in compacting, organizing, and protecting the genomes of bacteria (1).',
    ],
    absent: ['Nucleic Acids Research, 2024, Vol. 52, No. 8'],
    minFigures: 6,
    doiInPdf: true,
    yearFromPdf: true,
  },
  'molecular_prediction_explanations_perspective.pdf': {
    sentences: [
      'In this work, we aim to assemble a common taxonomy for the landscape of XAI while providing our perspectives.',
    ],
    minFigures: 1,
    // The preprint prints no date; the manifest's year is the journal's (decision 0050).
    yearFromPdf: false,
  },
  'multi_lexsum_2206.10883v3.pdf': {
    sentences: [
      'We conduct a series of experiments on Multi-LexSum, and find that existing summarization models perform poorly.',
    ],
    yearFromPdf: true,
  },
  'novelty_controlled_paraphrase_aaai2022.pdf': {
    sentences: [
      // Bottom of column 1 → top of column 2 on page 2.
      'Similar to Hu et al. (2021), we only apply LoRA to the query transformation and value transformation matrices in the multi-head attention sublayers.',
      'Large-scale pre-trained language models can already contain substantial implicit knowledge for several natural language tasks before further fine tuning.',
    ],
    maxFigures: 0,
    yearFromPdf: true,
  },
  'okasaki_purely_functional_data_structures_thesis_1996.pdf': {
    sentences: [
      'Efficient data structures have been studied extensively for over thirty years, resulting in a vast literature from which the knowledgeable programmer can extract efficient solutions to a stunning variety of problems.',
    ],
    absent: ['Lazy Evaluation and $-Notation\n\nhowever'],
    maxFigures: 0,
    yearFromPdf: true,
  },
  'papermage_emnlp2023_demo.pdf': {
    sentences: [
      'Despite growing interest in applying natural language processing (NLP) and computer vision (CV) models to the scholarly domain, scientific documents remain challenging to work with.',
    ],
    minFigures: 3,
    // The preprint prints no date of its own (decision 0050).
    yearFromPdf: false,
  },
  'pasa_2501.10120.pdf': {
    sentences: ['The system consists of two LLM agents, Crawler and Selector.'],
    absent: ['arXiv:2501.10120v1 [cs.IR]'],
    yearFromPdf: true,
  },
  'quantum_criticality_bethe_lattice_1111.2011v2.pdf': {
    sentences: [
      // Page 1: column 1 → column 2.
      'A simplification occurs, however, when the sites reside on a Bethe lattice, in which case the self-consistent equations can be solved in closed form and analytical progress can be made more readily.',
      // Page 2: column 1 → column 2, "ac-|tion" across the break.
      'In Section II we introduce our model of coupled quantum rotor nodes and self-consistently derive an effective action for a single node in the limit of large connectivity.',
    ],
    maxFigures: 0,
    yearFromPdf: true,
  },
  'shannon_1948_mathematical_theory_of_communication.pdf': {
    sentences: [
      'The fundamental problem of communication is that of reproducing at one point either exactly or approximately a message selected at another point.',
    ],
    maxFigures: 0,
    yearFromPdf: true,
  },
};

const folder = join(sharedData, 'pdfs');
const skip = needsSharedData('pdfs');
const manifest: ManifestEntry[] = (skip ? '' : readFileSync(join(folder, 'pdfs_manifest.jsonl'), 'utf8'))
  .split('\n')
  .filter((line) => line.trim().length > 0)
  .map((line) => JSON.parse(line) as ManifestEntry);
const squash = (text: string) => text.replace(/\s+/g, ' ');

// The real PDFs are the point here: the file runs where the shared data is (decision 0043).
describe.skipIf(skip)('every shared PDF through the pdf.js extractor', () => {
  const extractor = new WorkerPdfExtractor({
    threads: 2,
    timeoutMs: 240_000,
    memoryMb: 1024,
    maxPages: 2000,
    maxBytes: 100 * 1024 * 1024,
    figurePixels: 40_000_000,
  });
  const parsed = new Map<string, ParsedDocument>();

  beforeAll(async () => {
    await Promise.all(
      manifest.map(async (entry) => {
        parsed.set(
          entry.file,
          await extractor.extract(new Uint8Array(readFileSync(join(folder, entry.file)))),
        );
      }),
    );
  }, 900_000);
  afterAll(async () => {
    await extractor.close();
  });

  it('covers every PDF of the manifest', () => {
    expect(Object.keys(expectations).sort()).toEqual(manifest.map((entry) => entry.file).sort());
  });

  for (const entry of manifest) {
    const expected = expectations[entry.file] ?? {};
    it(`${entry.file}: pages, text layer, chunk bounds, content, figures, metadata`, () => {
      const document = parsed.get(entry.file) as ParsedDocument;
      expect(document.pageCount).toBe(entry.pages);
      expect(document.hasTextLayer).toBe(entry.has_text_layer);
      if (!entry.has_text_layer) {
        expect(document.chunks).toEqual([]);
        return;
      }
      const chunks = document.chunks;
      expect(chunks.length).toBeGreaterThan(0);
      // Word counts of the whole document: a chunk cut inside a word ("struc" | "ture") leaves two
      // fragments that occur nowhere else, whose join is a word of the document.
      const counts = new Map<string, number>();
      for (const chunk of chunks) {
        for (const word of chunk.text.toLowerCase().match(/\p{L}+/gu) ?? []) {
          counts.set(word, (counts.get(word) ?? 0) + 1);
        }
      }
      let previousFirstPage = 1;
      for (const [index, chunk] of chunks.entries()) {
        expect(chunk.text.length).toBeGreaterThan(0);
        expect(chunk.text.length).toBeLessThanOrEqual(6000);
        expect(chunk.pages.length).toBeGreaterThan(0);
        expect(chunk.pages.every((page) => page >= 1 && page <= entry.pages)).toBe(true);
        expect(chunk.pages[0] ?? 0).toBeGreaterThanOrEqual(previousFirstPage);
        previousFirstPage = chunk.pages[0] ?? previousFirstPage;
        const next = chunks[index + 1];
        const last = /(\p{L}+)$/u.exec(chunk.text)?.[1]?.toLowerCase();
        const first = next ? /^(\p{L}+)/u.exec(next.text)?.[1]?.toLowerCase() : undefined;
        if (last && first && counts.has(last + first)) {
          const fragments = (counts.get(last) ?? 0) <= 1 && (counts.get(first) ?? 0) <= 1;
          expect(fragments, `chunk ${index + 1} | ${index + 2} cut "${last}|${first}"`).toBe(false);
        }
      }
      // A few thousand characters each, on average.
      const average = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0) / chunks.length;
      if (chunks.length > 2) expect(average).toBeGreaterThan(1500);

      const all = squash(chunks.map((chunk) => chunk.text).join('\n\n'));
      for (const sentence of expected.sentences ?? []) {
        expect(
          chunks.some((chunk) => squash(chunk.text).includes(sentence)),
          sentence,
        ).toBe(true);
      }
      const raw = chunks.map((chunk) => chunk.text).join('\n\n');
      for (const text of expected.absent ?? []) expect(raw, text).not.toContain(text);
      for (const text of expected.once ?? []) expect(all.split(text).length - 1, text).toBeLessThanOrEqual(1);

      const figureIds = new Set(document.figures.map((figure) => figure.id));
      expect(new Set(chunks.flatMap((chunk) => chunk.figureIds))).toEqual(figureIds);
      if (expected.minFigures !== undefined) {
        expect(document.figures.length).toBeGreaterThanOrEqual(expected.minFigures);
      }
      if (expected.maxFigures !== undefined) {
        expect(document.figures.length).toBeLessThanOrEqual(expected.maxFigures);
      }

      if (expected.doiInPdf) expect(document.metadata.doi).toBe(entry.doi);
      if (entry.arxiv) expect(document.metadata.arxivId).toBe(entry.arxiv);
      if (expected.yearFromPdf) expect(document.metadata.year).toBe(entry.year);
      if (expected.yearFromPdf === false) expect(document.metadata.year).toBeUndefined();
    });
  }

  it('captions the figures of a paper that has them', () => {
    const nar = parsed.get('litqa_nar_gkae223.pdf') as ParsedDocument;
    const captions = nar.figures.map((figure) => figure.caption ?? '');
    for (const number of [1, 2, 5, 6, 7]) {
      expect(captions.some((caption) => caption.startsWith(`Figure ${number}.`))).toBe(true);
    }
    const figureTwo = nar.figures.find((figure) => figure.caption?.startsWith('Figure 2.'));
    expect(figureTwo?.page).toBe(5);
    expect(figureTwo?.width).toBeGreaterThan(500);
  });

  it('gives the same chunks for the same two-column paper twice', async () => {
    const again = await extractor.extract(
      new Uint8Array(readFileSync(join(folder, 'litqa_nar_gkae223.pdf'))),
    );
    expect(again.chunks).toEqual(parsed.get('litqa_nar_gkae223.pdf')?.chunks);
  }, 240_000);
});
