import { z } from 'zod';

const dateParts = z
  .object({ 'date-parts': z.array(z.array(z.number().int().nullable())).nullish() })
  .nullish();

/** The parts of a Crossref REST work we read (https://api.crossref.org/swagger-ui/index.html). */
export const crossrefWorkSchema = z.object({
  DOI: z.string(),
  title: z.array(z.string()).nullish(),
  author: z
    .array(
      z.object({ given: z.string().nullish(), family: z.string().nullish(), name: z.string().nullish() }),
    )
    .nullish(),
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
].join(',');
