import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';

/** Text of an element that may carry attributes (`xmlns:arxiv` on `<arxiv:doi>`): parsed as `{#text}`. */
const text = z
  .union([z.string(), z.object({ '#text': z.string().nullish() })])
  .transform((value) => (typeof value === 'string' ? value : (value['#text'] ?? '')));

/** The parts of an arXiv API Atom entry we read (https://info.arxiv.org/help/api/user-manual.html). */
export const arxivEntrySchema = z.object({
  id: text,
  title: text.nullish(),
  summary: text.nullish(),
  published: text.nullish(),
  author: z.array(z.object({ name: text.nullish() })).nullish(),
  link: z
    .array(z.object({ href: z.string(), title: z.string().nullish(), type: z.string().nullish() }))
    .nullish(),
  doi: text.nullish(),
  journal_ref: text.nullish(),
  /** `<arxiv:primary_category term="cs.CL"/>`: the paper's arXiv class. */
  primary_category: z.object({ term: z.string().nullish() }).nullish(),
});

export type ArxivEntry = z.infer<typeof arxivEntrySchema>;

export const arxivFeedSchema = z.object({
  feed: z.object({
    totalResults: text.nullish(),
    entry: z.array(arxivEntrySchema).nullish(),
  }),
});

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'entry' || name === 'author' || name === 'link',
});

/** Parses an Atom feed of the arXiv API into the wire schema (throws on a body that is not one). */
export function parseArxivFeed(xml: string): z.infer<typeof arxivFeedSchema> {
  return arxivFeedSchema.parse(parser.parse(xml));
}
