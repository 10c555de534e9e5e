import { z } from 'zod';
import { pageBoxSchema } from './page-anchors.js';

/** The best passage of a chunk for a question, and where it is printed. */
export const passageSchema = z
  .object({
    text: z.string().describe('The passage (a few sentences of the chunk; a section heading may lead it).'),
    pages: z.array(z.number().int()).describe('Pages the passage is printed on.'),
    boxes: z
      .array(pageBoxSchema)
      .describe('Where the passage is printed: boxes in fractions of the page (empty when unknown).'),
  })
  .meta({ id: 'Passage' });

/** One numbered chunk of a document's full text (spec 2.2). */
export const chunkSchema = z
  .object({
    chunk_num: z.number().int().min(1).describe('Number of this chunk, from 1.'),
    chunk: z.string().describe('Text of the chunk (markdown; section headings start with #).'),
    img_mds: z
      .array(z.string())
      .describe(
        'Markdown image references of the figures in this chunk: ![Figure 6, page 8: caption](url), named by the label the caption prints ("Fig. S2", "Table 3"); an image without a caption is "Image n" (its place among the images).',
      ),
    pdf_url: z.string().describe('The document reference this chunk came from (PDF_URL:… or PROJ:…).'),
    pages: z
      .array(z.number().int())
      .optional()
      .describe('Pages the chunk is printed on (PDFs; absent for text from a full-text source).'),
    boxes: z
      .array(pageBoxSchema)
      .optional()
      .describe(
        'Where the chunk is printed, one box per paragraph and column, in fractions of the page (origin top left). Render a page with /api/page_image.',
      ),
    passage: passageSchema
      .optional()
      .describe('`/api/question` only: the passage of this chunk that best answers the question.'),
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
