import { z } from 'zod';

const dateParts = z
  .object({ 'date-parts': z.array(z.array(z.number().int().nullable())).nullish() })
  .nullish();

const crossrefPersonSchema = z.object({
  given: z.string().nullish(),
  family: z.string().nullish(),
  name: z.string().nullish(),
});

/** The parts of a Crossref REST work we read (https://api.crossref.org/swagger-ui/index.html). */
export const crossrefWorkSchema = z.object({
  DOI: z.string(),
  title: z.array(z.string()).nullish(),
  author: z.array(crossrefPersonSchema).nullish(),
  editor: z.array(crossrefPersonSchema).nullish(),
  volume: z.string().nullish(),
  issue: z.string().nullish(),
  page: z.string().nullish(),
  'article-number': z.string().nullish(),
  publisher: z.string().nullish(),
  'publisher-location': z.string().nullish(),
  ISSN: z.array(z.string()).nullish(),
  ISBN: z.array(z.string()).nullish(),
  'edition-number': z.string().nullish(),
  abstract: z.string().nullish(),
  issued: dateParts,
  published: dateParts,
  'container-title': z.array(z.string()).nullish(),
  type: z.string().nullish(),
  'is-referenced-by-count': z.number().int().nullish(),
  URL: z.string().nullish(),
  resource: z.object({ primary: z.object({ URL: z.string().nullish() }).nullish() }).nullish(),
});

export type CrossrefWork = z.infer<typeof crossrefWorkSchema>;

export const crossrefWorkResponseSchema = z.object({ message: crossrefWorkSchema });

export const crossrefListResponseSchema = z.object({
  message: z.object({
    'total-results': z.number().int().nullish(),
    items: z.array(crossrefWorkSchema),
  }),
});

export const crossrefSelect = [
  'DOI',
  'title',
  'author',
  'abstract',
  'issued',
  'container-title',
  'type',
  'is-referenced-by-count',
  'URL',
  'resource',
  'editor',
  'volume',
  'issue',
  'page',
  'article-number',
  'publisher',
  'publisher-location',
  'ISSN',
  'ISBN',
  'edition-number',
].join(',');
