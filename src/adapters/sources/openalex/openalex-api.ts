import { z } from 'zod';

/** The parts of the OpenAlex wire format we read (https://docs.openalex.org, Work object). */
const location = z.object({
  is_oa: z.boolean().nullish(),
  landing_page_url: z.string().nullish(),
  pdf_url: z.string().nullish(),
  source: z
    .object({
      display_name: z.string().nullish(),
      issn_l: z.string().nullish(),
      host_organization_name: z.string().nullish(),
    })
    .nullish(),
});

export const openAlexWorkSchema = z.object({
  id: z.string().nullish(),
  doi: z.string().nullish(),
  title: z.string().nullish(),
  display_name: z.string().nullish(),
  publication_year: z.number().int().nullish(),
  publication_date: z.string().nullish(),
  ids: z
    .object({
      openalex: z.string().nullish(),
      doi: z.string().nullish(),
      mag: z.union([z.string(), z.number()]).nullish(),
      pmid: z.string().nullish(),
      pmcid: z.string().nullish(),
    })
    .nullish(),
  primary_location: location.nullish(),
  best_oa_location: location.nullish(),
  open_access: z.object({ is_oa: z.boolean().nullish(), oa_url: z.string().nullish() }).nullish(),
  type: z.string().nullish(),
  type_crossref: z.string().nullish(),
  authorships: z
    .array(z.object({ author: z.object({ display_name: z.string().nullish() }).nullish() }))
    .nullish(),
  cited_by_count: z.number().int().nullish(),
  biblio: z
    .object({
      volume: z.string().nullish(),
      issue: z.string().nullish(),
      first_page: z.string().nullish(),
      last_page: z.string().nullish(),
    })
    .nullish(),
  abstract_inverted_index: z.record(z.string(), z.array(z.number().int())).nullish(),
});

export type OpenAlexWork = z.infer<typeof openAlexWorkSchema>;

export const openAlexListSchema = z.object({
  meta: z.object({ count: z.number().int().nullish() }).nullish(),
  results: z.array(openAlexWorkSchema),
});

/** Fields requested with `select=` so lists stay small. */
export const openAlexFields = [
  'id',
  'doi',
  'title',
  'display_name',
  'publication_year',
  'publication_date',
  'ids',
  'primary_location',
  'best_oa_location',
  'open_access',
  'type',
  'type_crossref',
  'authorships',
  'cited_by_count',
  'biblio',
  'abstract_inverted_index',
].join(',');
