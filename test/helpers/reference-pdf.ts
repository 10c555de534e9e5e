import { buildPdf, textContent } from './pdf-builder.js';

const words =
  'neural parsing graph corpus retrieval semantic syntax translation learning models language attention memory dialogue summarization entity relation extraction question answering knowledge transfer sparse dense embedding evaluation benchmark'.split(
    ' ',
  );

/**
 * A PDF whose reference list has `count` numbered entries ("[n] Smith J, Jones K. 1995. <five
 * words>. In Proc. of ACL."), 60 to a page, after a first page whose text cites a few of them.
 * Titles are drawn from a fixed word list by a seeded generator, so the same count gives the same
 * bytes. Parsers read numbers of at most four digits, so lists past 9,999 entries read as 9,999
 * entries and a long tail.
 */
export function referencesPdf(count: number): Buffer {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const body = [
    'We build on prior work [1] and [2], see also [3]. This sentence cites [4].',
    'More text follows here about the subject in question [5].',
  ];
  const pages = [
    {
      content: [
        textContent(['A Paper With Many References'], { size: 16, top: 740 }),
        textContent(['1 Introduction'], { size: 12, top: 700 }),
        textContent(body, { top: 680 }),
        textContent(['References'], { size: 12, top: 600 }),
      ].join('\n'),
      compress: true,
    },
  ];
  const lines: string[] = [];
  for (let number = 1; number <= count; number++) {
    const title = Array.from({ length: 5 }, () => words[Math.floor(next() * words.length)]).join(' ');
    lines.push(
      `[${number}] Smith J, Jones K. ${1990 + (number % 30)}. ${title[0]?.toUpperCase()}${title.slice(1)}. In Proc. of ACL.`,
    );
  }
  for (let at = 0; at < lines.length; at += 60) {
    pages.push({
      content: textContent(lines.slice(at, at + 60), { size: 8, x: 72, top: 760 }),
      compress: true,
    });
  }
  return buildPdf(pages);
}
