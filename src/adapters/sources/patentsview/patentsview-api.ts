import { z } from 'zod';

/** The parts of a PatentsView PatentSearch API `/api/v1/patent/` answer we read. */
export const patentsViewPatentSchema = z.object({
  patent_id: z.string(),
  patent_title: z.string().nullish(),
  patent_abstract: z.string().nullish(),
  patent_date: z.string().nullish(),
  patent_type: z.string().nullish(),
  patent_num_times_cited_by_us_patents: z.number().int().nullish(),
  inventors: z
    .array(z.object({ inventor_name_first: z.string().nullish(), inventor_name_last: z.string().nullish() }))
    .nullish(),
  assignees: z.array(z.object({ assignee_organization: z.string().nullish() })).nullish(),
});

export type PatentsViewPatent = z.infer<typeof patentsViewPatentSchema>;

export const patentsViewSearchSchema = z.object({
  error: z.boolean().nullish(),
  count: z.number().int().nullish(),
  total_hits: z.number().int().nullish(),
  patents: z.array(patentsViewPatentSchema).nullish(),
});

export const patentsViewFields = [
  'patent_id',
  'patent_title',
  'patent_abstract',
  'patent_date',
  'patent_type',
  'patent_num_times_cited_by_us_patents',
  'inventors.inventor_name_first',
  'inventors.inventor_name_last',
  'assignees.assignee_organization',
];
