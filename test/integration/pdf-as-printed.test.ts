import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReferenceList } from '../../src/bibliography/references.js';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';
import type { ParsedDocument } from '../../src/ports/pdf-extractor.js';
import { type PrintedLine, type PrintedPage, paragraph, printedPdf } from '../helpers/printed-pdf.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * A paper reads as printed (decision 0050), on PDFs written here by pdfkit: figures keep the
 * labels their captions print, the abstract comes from the front matter, the year from what the
 * page prints (never the file's creation date), the DOI from the front matter (never the
 * references), words broken at a line end join only into words, and a printed title is never
 * replaced by the file's name.
 */

const parse = async (pdf: Buffer) => parseDocument(new Uint8Array(pdf), defaultParseOptions);

const body = (y: number) =>
  paragraph(
    [
      'We describe how the documents in this test were made and what a reader expects to find in',
      'them. Each page places its lines where the test says, so the layout is known exactly, and',
      'each picture is a striped image that no other page repeats. The text is plain prose.',
    ],
    y,
  );

const abstractText =
  'Readers of a paper expect its figures, abstract and dates as printed. We test that the pipeline reads them from the page, not from the order of extraction or the file itself.';

/** Title, byline and a labelled abstract (and keywords); `extra` lines follow on page 1. */
function frontPage(title: string, extra: PrintedLine[], header: PrintedLine[] = []): PrintedLine[] {
  return [
    ...header,
    { text: title, y: 90, size: 18, font: 'Helvetica-Bold' },
    { text: 'Ada Lovelace, Charles Babbage', y: 120 },
    { text: 'Abstract', y: 150, size: 11, font: 'Helvetica-Bold' },
    ...paragraph(
      [
        'Readers of a paper expect its figures, abstract and dates as printed. We test that the',
        'pipeline reads them from the page, not from the order of extraction or the file itself.',
      ],
      166,
    ),
    { text: 'Keywords: printing, reading', y: 200 },
    ...extra,
  ];
}

const figurePages: PrintedPage[] = [
  {
    lines: frontPage('Figure Labels As Printed In Generated Papers', [
      { text: 'Graphical abstract', y: 226 },
      { text: '1 Introduction', y: 480, size: 11, font: 'Helvetica-Bold' },
      ...body(496),
    ]),
    // A graphical abstract: a picture without a caption.
    pictures: [{ x: 150, y: 240, width: 300, height: 200, seed: 1 }],
  },
  {
    lines: [
      { text: 'Figure 6. Binding of DNA plasmid to preformed assemblies.', y: 330 },
      ...body(350),
      { text: 'Fig. S2 | Robustness of the fit to the choice of priors.', y: 600 },
    ],
    pictures: [
      { x: 100, y: 80, width: 400, height: 240, seed: 2 },
      { x: 150, y: 430, width: 300, height: 160, seed: 3 },
    ],
  },
  {
    // A table printed as a picture, its caption above it.
    lines: [{ text: 'Table 3: Scores of every system on every test set.', y: 80 }, ...body(300)],
    pictures: [{ x: 100, y: 100, width: 400, height: 180, seed: 4 }],
  },
];

/**
 * A paper that prints when it was published, cites a DOI (only in its references), breaks
 * "SciBERT" at a line end in its references and cites software by a range of years.
 */
function referencesPages(header: PrintedLine[]): PrintedPage[] {
  return [
    {
      lines: frontPage(
        'Reading Papers As Their Authors Printed Them',
        [
          { text: '1 Introduction', y: 240, size: 11, font: 'Helvetica-Bold' },
          ...paragraph(
            [
              'Models such as SciBERT (Beltagy et al., 2019) read scientific text, and GROBID (Grobid,',
              '2008–2023) turns PDFs into structured documents (Roe, 2018). Both are widely used.',
            ],
            256,
          ),
          { text: 'References', y: 320, size: 11, font: 'Helvetica-Bold' },
          // Entries a gap apart, continuation lines indented, as reference lists are set.
          { text: 'Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciB-', y: 340 },
          { text: 'ERT: A pretrained language model for scientific text. In EMNLP.', y: 352, x: 82 },
          { text: 'Grobid. 2008–2023. Grobid. https://github.com/kermitt2/grobid.', y: 376 },
          { text: 'Jane Roe. 2018. A cited work on reading. Journal of Citing, 4:1–9.', y: 400 },
          { text: 'https://doi.org/10.5555/cited.2018.1', y: 412, x: 82 },
        ],
        header,
      ),
    },
  ];
}

const receivedLine: PrintedLine = {
  text: 'Received 3 June 2019; accepted 2 January 2020; published 12 March 2020',
  y: 40,
  size: 8,
};
/** The file was written long before the paper was published: its date says nothing. */
const writtenLongBefore = {
  CreationDate: new Date('2017-05-05T10:00:00Z'),
  ModDate: new Date('2017-05-06T10:00:00Z'),
};

/** An arXiv preprint's first page: the title set only a little larger than its body text. */
const preprint = (titleLine: PrintedLine, upright: PrintedLine[] = []): PrintedPage[] => [
  {
    stamp: 'arXiv:2306.12345v1 [cs.CL] 5 Jun 2023',
    lines: [
      ...upright,
      titleLine,
      { text: 'Ada Lovelace and Charles Babbage', y: 130 },
      { text: 'Abstract', y: 160, font: 'Helvetica-Bold' },
      ...paragraph(
        [
          'We read the title of a preprint from its first page. The page sets its title in the body',
          'font, only a little larger than the text, so size alone does not tell it apart.',
        ],
        176,
      ),
      { text: '1 Introduction', y: 230, font: 'Helvetica-Bold' },
      ...body(246),
      ...body(300),
      ...body(354),
    ],
  },
];
const preprintTitle = 'Learning To Read Preprints As Printed';

describe('figures keep the labels their captions print', () => {
  let parsed: ParsedDocument;
  beforeAll(async () => {
    parsed = await parse(await printedPdf(figurePages));
  });

  // Regression: NAR's graphical abstract took "Figure 1", so its Figure 6 was labelled "Figure 7".
  it('labels "Figure 6" after an unlabelled graphical abstract, then "Fig. S2" and "Table 3"', () => {
    expect(parsed.figures.map((figure) => [figure.id, figure.label ?? null])).toEqual([
      ['p1-1', null],
      ['p2-1', 'Figure 6'],
      ['p2-2', 'Fig. S2'],
      ['p3-1', 'Table 3'],
    ]);
    // The order of extraction stays, as the figure's place among the images.
    expect(parsed.figures.map((figure) => figure.number)).toEqual([1, 2, 3, 4]);
  });
});

describe('metadata as printed', () => {
  it('reads the abstract under its heading on page 1, up to the keywords', async () => {
    const parsed = await parse(await printedPdf(referencesPages([])));
    expect(parsed.metadata.abstract).toBe(abstractText);
  });

  // Regression: an upload's year came from the file's creation date (a 2019 patent read 2017).
  it('takes the year the page prints over the file creation date', async () => {
    const parsed = await parse(await printedPdf(referencesPages([receivedLine]), writtenLongBefore));
    expect(parsed.metadata.year).toBe(2020);
  });

  // Regression: a patent granted in 2019 was dated 2017, the date of its prior publication.
  it("dates a patent by its '(45) Date of Patent', not an earlier publication or the file", async () => {
    const left = [
      '(12) United States Patent',
      'Spence et al.',
      '(54) CONTROLLING DISPLAY PERFORMANCE',
      'WITH TARGET PRESENTATION TIMES',
      '(71) Applicant: Apple Inc., Cupertino, CA (US)',
      '(72) Inventors: Arthur L. Spence, San Jose, CA (US)',
      '(22) Filed: Sep. 23, 2016',
      '(65) Prior Publication Data',
      'US 2017/0352322 A1 Dec. 7, 2017',
    ];
    const right = [
      '(10) Patent No.: US 10,510,317 B2',
      '(45) Date of Patent: Dec. 17, 2019',
      '(58) Field of Classification Search',
      'None',
      '(57) ABSTRACT',
      'Embodiments described herein provide for a display system',
      'to generate and display data on a display device.',
    ];
    const patent = await parse(
      await printedPdf(
        [
          {
            lines: [
              ...paragraph(left, 60, { leading: 16 }),
              ...paragraph(right, 60, { x: 330, leading: 16 }),
            ],
          },
        ],
        {
          CreationDate: new Date('2019-11-25T21:42:29Z'),
        },
      ),
    );
    expect(patent.metadata.title).toBe('Controlling display performance with target presentation times');
    expect(patent.metadata.year).toBe(2019);
  });

  // Regression: a 1960s memo scanned in 1998 was dated 1998.
  it('gives no year when nothing is printed, whatever the file says', async () => {
    const scan = await parse(
      await printedPdf([{ lines: [], pictures: [{ x: 0, y: 0, width: 612, height: 792, seed: 5 }] }], {
        CreationDate: new Date('1998-03-05T09:57:51Z'),
      }),
    );
    expect(scan.hasTextLayer).toBe(false);
    expect(scan.metadata.year).toBeUndefined();
    const undated = await parse(await printedPdf(referencesPages([]), writtenLongBefore));
    expect(undated.metadata.year).toBeUndefined();
  });

  // Regression: a PDF citing one DOI was recorded under that DOI.
  it('never takes a DOI from the references; takes the one the front matter prints', async () => {
    const citing = await parse(await printedPdf(referencesPages([receivedLine])));
    expect(citing.metadata.doi).toBeUndefined();
    const own = await parse(
      await printedPdf(
        referencesPages([{ text: 'https://doi.org/10.5555/own.2020.7', y: 52, size: 8 }, receivedLine]),
      ),
    );
    expect(own.metadata.doi).toBe('10.5555/own.2020.7');
  });

  it('nor from a footnote at the foot of page 1', async () => {
    const footnote: PrintedLine[] = [
      { text: '1 The data and code are available at', y: 712, size: 8 },
      { text: 'https://doi.org/10.5281/zenodo.42', y: 722, size: 8 },
    ];
    // No reference list here: the footnote alone must keep its DOI from being taken.
    const page = frontPage('A Paper With A Footnote', [
      { text: '1 Introduction', y: 240, size: 11, font: 'Helvetica-Bold' },
      ...body(256),
      ...footnote,
    ]);
    const parsed = await parse(await printedPdf([{ lines: page }]));
    expect(parsed.metadata.doi).toBeUndefined();
  });
});

describe('reference text as printed', () => {
  let parsed: ParsedDocument;
  beforeAll(async () => {
    parsed = await parse(await printedPdf(referencesPages([receivedLine])));
  });

  // Regression: "SciB-ERT" kept its line-end hyphen and never linked to SciBERT in the index.
  it('joins "SciB-" and "ERT" because the paper writes SciBERT elsewhere', () => {
    const text = parsed.chunks.map((chunk) => chunk.text).join('\n');
    expect(text).toContain('SciBERT: A pretrained language model for scientific text');
    expect(text).not.toContain('SciB-ERT');
    const entries = parseReferenceList(parsed.chunks)?.entries ?? [];
    expect(entries.map((entry) => entry.title)).toContain(
      'SciBERT: A pretrained language model for scientific text',
    );
  });

  // Regression: a software citation's "2008–2023" became the entry's title.
  it('reads "Grobid. 2008–2023. Grobid." as software titled Grobid', () => {
    const entries = parseReferenceList(parsed.chunks)?.entries ?? [];
    const grobid = entries.find((entry) => entry.raw.startsWith('Grobid.'));
    expect(grobid?.title).toBe('Grobid');
    expect(grobid?.year).toBe(2008);
  });
});

describe('a printed title is never replaced by the file name', () => {
  it('reads a title set a little larger than the body in the body font', async () => {
    const parsed = await parse(await printedPdf(preprint({ text: preprintTitle, y: 96, size: 11 })));
    expect(parsed.metadata.title).toBe(preprintTitle);
    expect(parsed.metadata.arxivId).toBe('2306.12345v1');
    expect(parsed.metadata.year).toBe(2023);
  });

  it('passes over an arXiv stamp set upright in large type', async () => {
    const stamp: PrintedLine = { text: 'arXiv:2306.12345v1 [cs.CL] 5 Jun 2023', y: 40, size: 20 };
    const parsed = await parse(
      await printedPdf(preprint({ text: preprintTitle, y: 96, size: 16, font: 'Helvetica-Bold' }, [stamp])),
    );
    expect(parsed.metadata.title).toBe(preprintTitle);
  });
});

describe('an uploaded PDF through the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  // Regression: uploads were recorded with abstract null, the file's year and a cited DOI.
  it('is recorded with its printed abstract and year, and no DOI it only cites', async () => {
    const pdf = await printedPdf(referencesPages([receivedLine]), writtenLongBefore);
    const response = await uploadPdf(t, t.key, 'reading.pdf', pdf);
    expect(response.statusCode).toBe(200);
    const paper = response.json()[0];
    expect(paper.title).toBe('Reading Papers As Their Authors Printed Them');
    expect(paper.abstract).toBe(abstractText);
    expect(paper.year).toBe(2020);
    expect(paper.doi).toBeNull();
  });

  it('titles an arXiv preprint from its first page, never from its file name', async () => {
    const pdf = await printedPdf(preprint({ text: preprintTitle, y: 96, size: 11 }));
    const response = await uploadPdf(t, t.key, '2306.12345v1.pdf', pdf);
    expect(response.statusCode).toBe(200);
    expect(response.json()[0].title).toBe(preprintTitle);
  });

  it('names each figure in img_mds by its printed label, an uncaptioned image by its place', async () => {
    const response = await uploadPdf(t, t.key, 'labels.pdf', await printedPdf(figurePages));
    expect(response.statusCode).toBe(200);
    const pdfId = response.json()[0].pdf_id as string;
    const read = (chunk: number) =>
      t.app.inject({
        method: 'GET',
        url: `/api/fulltext?pdf_id=${encodeURIComponent(pdfId)}&chunk=${chunk}`,
        headers: withKey(t.key),
      });
    const first = (await read(1)).json();
    const images: string[] = [];
    for (let chunk = 1; chunk <= first.total_chunk_num; chunk++)
      images.push(...(await read(chunk)).json().chunks[0].img_mds);
    expect(images.map((image) => /^!\[([^\]]*)\]/.exec(image)?.[1])).toEqual([
      'Image 1, page 1',
      'Figure 6, page 2: Binding of DNA plasmid to preformed assemblies.',
      'Fig. S2, page 2: Robustness of the fit to the choice of priors.',
      'Table 3, page 3: Scores of every system on every test set.',
    ]);
  });
});
