import { z } from 'zod';

/** The parts of a Europe PMC REST search result we read (resultType lite or core). */
export const europePmcResultSchema = z.object({
  id: z.string().nullish(),
  source: z.string().nullish(),
  pmid: z.string().nullish(),
  pmcid: z.string().nullish(),
  doi: z.string().nullish(),
  title: z.string().nullish(),
  authorString: z.string().nullish(),
  authorList: z.object({ author: z.array(z.object({ fullName: z.string().nullish() })).nullish() }).nullish(),
  journalTitle: z.string().nullish(),
  journalInfo: z.object({ journal: z.object({ title: z.string().nullish() }).nullish() }).nullish(),
  pubYear: z.string().nullish(),
  journalVolume: z.string().nullish(),
  issue: z.string().nullish(),
  pageInfo: z.string().nullish(),
  /** "0140-6736; 1474-547x; ": print ISSN first. */
  journalIssn: z.string().nullish(),
  firstPublicationDate: z.string().nullish(),
  abstractText: z.string().nullish(),
  citedByCount: z.number().int().nullish(),
  pubType: z.string().nullish(),
  pubTypeList: z.object({ pubType: z.array(z.string()).nullish() }).nullish(),
  fullTextUrlList: z
    .object({
      fullTextUrl: z
        .array(
          z.object({
            availabilityCode: z.string().nullish(),
            documentStyle: z.string().nullish(),
            url: z.string().nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
});

export type EuropePmcResult = z.infer<typeof europePmcResultSchema>;

export const europePmcSearchSchema = z.object({
  hitCount: z.number().int().nullish(),
  resultList: z.object({ result: z.array(europePmcResultSchema).nullish() }).nullish(),
});
