import { z } from 'zod';
import { AppError, invalid } from '../../domain/errors.js';
import { fullTextResultSchema } from '../../domain/fulltext.js';
import { principalOf } from '../auth.js';
import { queryInt } from '../query.js';
import { errorEnvelopeSchema, errorResponses, parseErrorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const documentRefText = z.string().trim().max(4000, 'must be at most 4000 characters');

const documentQuery = {
  pdf_url: documentRefText
    .optional()
    .describe(
      'The document: `PDF_URL:<url>`, `PROJ:<project>/<document>` (see add_to_project) or an http(s) URL.',
    ),
  pdf_id: documentRefText.optional().describe('Same as pdf_url (ScholarAI name); either may be used.'),
};

const documentErrors = {
  ...errorResponses,
  ...parseErrorResponses,
  413: errorEnvelopeSchema.describe('The remote PDF is larger than the configured limit.'),
  415: errorEnvelopeSchema.describe('The url does not point to a PDF.'),
  422: errorEnvelopeSchema.describe('The PDF is broken, encrypted or could not be parsed within its limits.'),
  502: errorEnvelopeSchema.describe('The remote PDF could not be fetched.'),
  504: errorEnvelopeSchema.describe('Fetching or parsing the PDF took too long.'),
};

/** Which of the two names carried the reference; the error then names that parameter. */
function documentOf(query: { pdf_url?: string | undefined; pdf_id?: string | undefined }): {
  ref: string;
  param: string;
} {
  if (query.pdf_url) return { ref: query.pdf_url, param: 'pdf_url' };
  if (query.pdf_id) return { ref: query.pdf_id, param: 'pdf_id' };
  throw invalid(
    'pdf_url',
    'pdf_url (or pdf_id) is required: PDF_URL:<url>, PROJ:<project>/<document> or a URL',
  );
}

/**
 * Aborts the service call when the client goes away, so an abandoned read stops fetching. The
 * response's `close` (not the request's, which fires once the request is read) tells that.
 */
function abortOnClose(raw: { on(event: 'close', listener: () => void): unknown }, done: () => boolean) {
  const controller = new AbortController();
  raw.on('close', () => {
    if (!done()) controller.abort(new AppError('timeout', 'The client closed the request'));
  });
  return controller.signal;
}

/** `/api/fulltext` and `/api/question`: numbered chunks of a PDF, and the chunk that answers a question. */
export const fullTextRoutes: RouteModule = (app, { services }) => {
  app.get(
    '/api/fulltext',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Read the full text of a PDF in chunks',
        description:
          'Returns chunk `chunk` (1-based; 0 reads 1) of the document with the total number of chunks, its figures as markdown image links (signed URLs) and a hint on what to read next. A scanned PDF without a text layer returns one empty chunk with its page images and a hint that says so.',
        tags: ['full text'],
        querystring: z.object({
          ...documentQuery,
          chunk: queryInt({ min: 0 }).optional().describe('Chunk number, from 1 (default 1; 0 reads 1).'),
        }),
        response: { 200: fullTextResultSchema, ...documentErrors },
      },
    },
    async (request, reply) => {
      const { ref, param } = documentOf(request.query);
      let finished = false;
      const signal = abortOnClose(reply.raw, () => finished);
      try {
        return await services.fullText.readChunk(
          principalOf(request).tenantId,
          ref,
          request.query.chunk ?? 1,
          {
            signal,
            param,
          },
        );
      } finally {
        finished = true;
      }
    },
  );

  app.get(
    '/api/question',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Ask a question to a PDF',
        description:
          'Finds the passage of the document most relevant to `question` (embeddings + BM25 over short passages) and returns the chunk that holds it, with a hint naming the neighbouring chunks. `top_k` returns the k best chunks, best first.',
        tags: ['full text'],
        querystring: z.object({
          ...documentQuery,
          question: z
            .string()
            .max(2000, 'must be at most 2000 characters')
            .optional()
            .describe('The question.'),
          top_k: queryInt({ min: 1, max: 10 })
            .optional()
            .describe('How many chunks to return, best first (default 1).'),
        }),
        response: { 200: fullTextResultSchema, ...documentErrors },
      },
    },
    async (request, reply) => {
      const question = request.query.question?.trim() ?? '';
      if (question.length === 0) throw invalid('question', 'question is required and must not be empty');
      const { ref, param } = documentOf(request.query);
      let finished = false;
      const signal = abortOnClose(reply.raw, () => finished);
      try {
        return await services.fullText.ask(principalOf(request).tenantId, ref, question, {
          signal,
          param,
          ...(request.query.top_k === undefined ? {} : { topK: request.query.top_k }),
        });
      } finally {
        finished = true;
      }
    },
  );
};
