import { z } from 'zod';
import { pageBoxSchema } from './page-anchors.js';
import { paperSchema } from './paper.js';

/** A sentence of a document that cites a reference. */
export const citationContextSchema = z
  .object({
    sentence: z.string().describe('The citing sentence.'),
    marker: z.string().describe('The citation as printed: "[3, 5–7]", "(Smith et al., 2020)".'),
    chunk: z.number().int().describe('Chunk (as /api/fulltext numbers them) that holds the sentence.'),
    page: z
      .number()
      .int()
      .nullable()
      .describe(
        'Page the sentence is printed on (where it starts); when it cannot be located, the page of a one-page chunk, else null.',
      ),
    pages: z.array(z.number().int()).describe('Pages of the chunk.'),
    boxes: z
      .array(pageBoxSchema)
      .describe('Where the sentence is printed, in fractions of the page (empty when unknown).'),
  })
  .meta({ id: 'CitationContext' });

/** One parsed entry of a document's reference list, linked to an index record when one matches. */
export const referenceSchema = z
  .object({
    number: z.number().int().nullable().describe('Number in a numbered list ([12], 12.), else null.'),
    label: z.string().nullable().describe('Label in a labelled list ([Ada93]), else null.'),
    raw: z.string().describe('The entry as printed.'),
    title: z.string().nullable(),
    authors: z.array(z.string()),
    year: z.number().int().nullable(),
    venue: z.string().nullable(),
    doi: z.string().nullable(),
    arxiv: z.string().nullable(),
    paper: paperSchema.nullable().describe('The matching record of the local index, or null.'),
    paper_id: z
      .string()
      .nullable()
      .describe(
        'Typed identifier of that record (DOI:…, ACL:…, ARXIV:…) for /api/paper and /api/citation_contexts.',
      ),
    match_confidence: z
      .number()
      .nullable()
      .describe('How sure the link is (0–1): title similarity, year and first author checked.'),
    contexts: z.array(citationContextSchema).describe('Sentences of this document that cite the entry.'),
  })
  .meta({ id: 'Reference' });

export const referencesResultSchema = z
  .object({
    pdf_id: z.string(),
    style: z.enum(['numbered', 'label', 'author-year']).nullable().describe('How the list marks entries.'),
    references: z.array(referenceSchema),
    hint: z.string(),
  })
  .meta({ id: 'References' });

export const citingSentenceSchema = citationContextSchema
  .extend({
    pdf_id: z.string().describe('The stored PDF that cites the paper (PROJ:…).'),
    document_title: z.string().describe('Title of that PDF.'),
    reference: z.string().describe('The citing PDF’s reference entry, as printed.'),
  })
  .meta({ id: 'CitingSentence' });

export const citationContextsResultSchema = z
  .object({
    paper: paperSchema.nullable().describe('The cited paper as the local index knows it, or null.'),
    contexts: z.array(citingSentenceSchema),
    hint: z.string(),
  })
  .meta({ id: 'CitationContexts' });

export const checkedReferenceSchema = z
  .object({
    index: z
      .number()
      .int()
      .describe('0-based position of the entry in the file (or in the PDF’s reference list).'),
    key: z
      .string()
      .nullable()
      .describe('Citation key (BibTeX key, RIS ID); for a PDF entry its label or number.'),
    title: z.string().nullable(),
    status: z
      .enum(['exists', 'mismatch', 'not_found', 'preprint_now_published'])
      .describe(
        'exists: a record matches as written; mismatch: a record matches but `fields` differ; not_found: no record; preprint_now_published: the entry is (or matches) a preprint whose published version is known (`published`).',
      ),
    fields: z
      .array(z.enum(['year', 'authors', 'venue', 'doi']))
      .describe(
        'For mismatch: fields that differ from the record (for preprint_now_published: from the preprint record).',
      ),
    paper: paperSchema.nullable().describe('The matched record (null when not found).'),
    confidence: z.number().nullable().describe('Title similarity of the match (0–1).'),
    preprint: paperSchema
      .nullable()
      .describe(
        'For preprint_now_published: the preprint record matched; null when only the entry itself is the preprint form (an arXiv citation).',
      ),
    published: paperSchema
      .nullable()
      .describe('For preprint_now_published: the published version of the work.'),
    raw: z.string().optional().describe('The entry as printed (entries of a PDF).'),
  })
  .meta({ id: 'CheckedReference' });

export const verifyReferencesResultSchema = z
  .object({
    pdf_id: z
      .string()
      .optional()
      .describe('The checked PDF (PROJ:… for a stored one; absent for a bibliography or an uploaded PDF).'),
    results: z.array(checkedReferenceSchema),
    counts: z.object({
      exists: z.number().int(),
      mismatch: z.number().int(),
      not_found: z.number().int(),
      preprint_now_published: z.number().int(),
    }),
    hint: z.string(),
  })
  .meta({ id: 'ReferenceCheck' });

export type ReferenceView = z.infer<typeof referenceSchema>;
export type ReferencesResult = z.infer<typeof referencesResultSchema>;
export type CitationContextsResult = z.infer<typeof citationContextsResultSchema>;
export type VerifyReferencesResult = z.infer<typeof verifyReferencesResultSchema>;
export type CitingSentence = z.infer<typeof citingSentenceSchema>;
