import { z } from 'zod';

/** The parts of the Semantic Scholar Graph API paper object we read (api.semanticscholar.org/api-docs). */
export const s2PaperSchema = z.object({
  paperId: z.string().nullish(),
  externalIds: z.record(z.string(), z.union([z.string(), z.number()]).nullish()).nullish(),
  url: z.string().nullish(),
  title: z.string().nullish(),
  abstract: z.string().nullish(),
  venue: z.string().nullish(),
  year: z.number().int().nullish(),
  publicationDate: z.string().nullish(),
  citationCount: z.number().int().nullish(),
  openAccessPdf: z.object({ url: z.string().nullish() }).nullish(),
  publicationTypes: z.array(z.string()).nullish(),
  journal: z
    .object({ name: z.string().nullish(), volume: z.string().nullish(), pages: z.string().nullish() })
    .nullish(),
  authors: z.array(z.object({ name: z.string().nullish() })).nullish(),
});

export type S2Paper = z.infer<typeof s2PaperSchema>;

/** `/paper/search`, `/paper/search/bulk` and `/paper/search/match`. */
export const s2SearchSchema = z.object({
  total: z.number().int().nullish(),
  data: z.array(s2PaperSchema).nullish(),
});

export const s2ReferencesSchema = z.object({
  data: z.array(z.object({ citedPaper: s2PaperSchema.nullish() })).nullish(),
});

export const s2CitationsSchema = z.object({
  data: z.array(z.object({ citingPaper: s2PaperSchema.nullish() })).nullish(),
});

export const s2RecommendationsSchema = z.object({
  recommendedPapers: z.array(s2PaperSchema).nullish(),
});

export const s2Fields = [
  'paperId',
  'externalIds',
  'url',
  'title',
  'abstract',
  'venue',
  'year',
  'publicationDate',
  'citationCount',
  'openAccessPdf',
  'publicationTypes',
  'journal',
  'authors',
].join(',');
