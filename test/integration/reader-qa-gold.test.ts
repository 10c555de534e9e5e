import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerEvidence } from '../../eval/lib/answer-evidence.js';
import { normalizedWords } from '../../eval/lib/evidence.js';
import { writePaperPdf } from '../../eval/lib/paper-pdf.js';
import { loadPubMedGroups, loadReaderPapers } from '../../eval/lib/reader-papers.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

const evalData = join(sharedData, 'eval');

describe('reader-qa gold: the best chunk for a reference answer', () => {
  const chunks = [
    '## 1 Introduction\n\nWe detect fake news accounts on Twitter from their tweets.',
    '## 2 Method\n\nThe model is an LSTM with relu, selu, tanh activations tried in turn.',
    '## 3 Data\n\nWe collected 171 accounts and 522967 tweets from public Twitter lists.',
    '## 4 Results\n\nThe LSTM beats the baselines on Twitter accounts.',
  ];

  it('does not score yes/no answers', () => {
    expect(answerEvidence('Yes', chunks)).toMatchObject({ scored: false, reason: 'yes/no' });
    expect(answerEvidence('Unanswerable', chunks)).toMatchObject({ scored: false, reason: 'yes/no' });
  });

  it('takes the chunk holding the answer verbatim', () => {
    expect(answerEvidence('relu, selu, tanh', chunks)).toEqual({
      scored: true,
      rule: 'verbatim',
      chunks: [1],
      coverage: 1,
    });
  });

  it('takes the chunk covering most of a free-text answer, and skips answers not in the text', () => {
    expect(answerEvidence('522967 tweets of 171 accounts collected', chunks)).toMatchObject({
      scored: true,
      rule: 'overlap',
      chunks: [2],
    });
    // "Total dataset size: 171 account (522967 tweets)": 4 of its 7 content terms, below 60%.
    expect(answerEvidence('Total dataset size: 171 account (522967 tweets)', chunks)).toMatchObject({
      scored: false,
      reason: 'absent',
    });
    expect(answerEvidence('A transformer pre-trained on Wikipedia', chunks)).toMatchObject({
      scored: false,
      reason: 'absent',
    });
  });

  it('does not score an answer found in most chunks', () => {
    expect(answerEvidence('Twitter', chunks)).toMatchObject({ scored: false, reason: 'spread' });
  });
});

// The evaluation sets' papers and questions are the point here (shared data, opt-in).
describe.skipIf(
  needsSharedData('eval/leval_scientific_qa/leval_scientific_qa.jsonl', 'eval/pubmedqa/pubmedqa_pqal.jsonl'),
)('reader-qa documents: written by pdfkit, read back by our parser', () => {
  const extractor = new WorkerPdfExtractor({
    threads: 1,
    timeoutMs: 60_000,
    memoryMb: 512,
    maxPages: 200,
    maxBytes: 50 * 1024 * 1024,
    figurePixels: 0,
  });
  afterAll(() => extractor.close());

  it('a QASPER paper keeps its text, its numbered section headings and its answers', async () => {
    const [paper] = loadReaderPapers(join(evalData, 'leval_scientific_qa', 'leval_scientific_qa.jsonl'));
    if (!paper) throw new Error('no paper');
    const bytes = await writePaperPdf(paper.layout);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const parsed = await extractor.extract(bytes, { images: false });
    const texts = parsed.chunks.map((chunk) => chunk.text);
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.join('\n')).toMatch(/^## 2 Methodology$/m);
    // Every paragraph of the source comes back (normalised words), none lost at page breaks.
    const whole = ` ${normalizedWords(texts.join(' ')).join(' ')} `;
    for (const section of paper.layout.sections)
      for (const paragraph of section.paragraphs)
        expect(whole).toContain(` ${normalizedWords(paragraph.text).slice(0, 12).join(' ')} `);
    const evidence = answerEvidence('relu, selu, tanh', texts);
    expect(evidence).toMatchObject({ scored: true, rule: 'verbatim' });
    if (evidence.scored) expect(texts[evidence.chunks[0] as number]).toMatch(/selu/);
  }, 120_000);

  it('a PubMedQA group keeps one heading per abstract, never the question (its title)', async () => {
    const [group] = loadPubMedGroups(join(evalData, 'pubmedqa', 'pubmedqa_pqal.jsonl'), 12, 12);
    if (!group) throw new Error('no group');
    const parsed = await extractor.extract(await writePaperPdf(group.layout), { images: false });
    const text = parsed.chunks.map((chunk) => chunk.text).join('\n');
    expect(text.match(/^#+ \d+ Abstract \w+$/gm)).toHaveLength(12);
    for (const item of group.items) expect(text).not.toContain(item.question);
  }, 120_000);
});
