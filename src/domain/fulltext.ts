import { z } from 'zod';

/** One numbered chunk of a document's full text (spec 2.2). */
export const chunkSchema = z
  .object({
    chunk_num: z.number().int().min(1).describe('Number of this chunk, from 1.'),
    chunk: z.string().describe('Text of the chunk (markdown; section headings start with #).'),
    img_mds: z
      .array(z.string())
      .describe('Markdown image references of the figures in this chunk: ![Figure n, page p](url).'),
    pdf_url: z.string().describe('The document reference this chunk came from (PDF_URL:… or PROJ:…).'),
  })
  .meta({ id: 'Chunk' });

export type Chunk = z.infer<typeof chunkSchema>;

/** The full-text result returned by `/api/fulltext` and `/api/question` (spec 2.2). */
export const fullTextResultSchema = z
  .object({
    chunks: z.array(chunkSchema),
    total_chunk_num: z.number().int().min(0).describe('Total number of chunks of the document.'),
    hint: z.string().describe('What an agent can do next (next chunk, scan without text, …).'),
  })
  .meta({ id: 'FullTextResult' });

export type FullTextResult = z.infer<typeof fullTextResultSchema>;
