import { z } from 'zod';

const location = z.object({
  url: z.string().nullish(),
  url_for_pdf: z.string().nullish(),
  url_for_landing_page: z.string().nullish(),
  host_type: z.string().nullish(),
  version: z.string().nullish(),
});

/** The parts of an Unpaywall v2 DOI object we read (https://unpaywall.org/data-format). */
export const unpaywallWorkSchema = z.object({
  doi: z.string(),
  title: z.string().nullish(),
  genre: z.string().nullish(),
  published_date: z.string().nullish(),
  year: z.number().int().nullish(),
  journal_name: z.string().nullish(),
  is_oa: z.boolean().nullish(),
  best_oa_location: location.nullish(),
  oa_locations: z.array(location).nullish(),
  z_authors: z
    .array(
      z.object({
        given: z.string().nullish(),
        family: z.string().nullish(),
        raw_author_name: z.string().nullish(),
      }),
    )
    .nullish(),
});

export type UnpaywallWork = z.infer<typeof unpaywallWorkSchema>;
