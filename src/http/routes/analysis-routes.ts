import { z } from 'zod';
import { analysisModes, splitQuestions } from '../../services/analysis-service.js';
import { principalOf } from '../auth.js';
import { errorEnvelopeSchema, errorResponses, heavyErrorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const cellSchema = z.object({
  answer: z
    .string()
    .describe('The answering sentence(s), verbatim; empty when the paper does not address the question.'),
  source: z.enum(['fulltext', 'abstract', 'none']),
  chunk: z.number().int().nullable(),
  link: z.string().nullable(),
  note: z.string().optional(),
});

const analysisSchema = z
  .object({
    project: z.object({ id: z.string(), name: z.string() }),
    analysis_mode: z.enum(analysisModes),
    questions: z.array(z.string()),
    papers: z.array(
      z.object({
        title: z.string(),
        year: z.number().int().nullable(),
        doi: z.string().nullable(),
        url: z.string().nullable(),
        pdf_id: z.string().nullable(),
      }),
    ),
    cells: z.array(z.array(cellSchema)).describe('cells[paper][question].'),
    markdown: z.string().describe('The markdown table (tabular) or synthesis (comprehensive).'),
    hint: z.string(),
  })
  .meta({ id: 'ProjectAnalysis' });

export const analyzeQuerySchema = z.object({
  project_name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Project name (or id); the default project "gpt" when absent.'),
  project_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Project id; an alternative to project_name.'),
  question: z
    .union([z.string().trim().min(1, 'must not be empty').max(2000), z.array(z.string().max(2000)).max(20)], {
      error: 'question is required',
    })
    .describe('One question, or several separated by commas (as ScholarAI clients send them) or repeated.'),
  analysis_mode: z
    .enum(analysisModes, { error: 'analysis_mode must be tabular or comprehensive' })
    .default('tabular')
    .describe(
      'tabular (default): a paper × question markdown table; comprehensive: a synthesis per question.',
    ),
});

/** ScholarAI's analyze_project: every question asked of every paper of a project. */
export const analysisRoutes: RouteModule = (app, { services }) => {
  app.get(
    '/api/analyze_project',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Ask questions of every paper in a project',
        description:
          'Asks each question of each paper (its stored PDF through the question endpoint, else its abstract) and answers as a markdown table — paper × question, each cell quoting the answering sentence and citing its chunk — or, with analysis_mode=comprehensive, as a synthesis per question.',
        tags: ['projects'],
        querystring: analyzeQuerySchema,
        response: {
          200: analysisSchema,
          ...errorResponses,
          ...heavyErrorResponses,
          422: errorEnvelopeSchema.describe('The project has no papers to analyze.'),
        },
      },
    },
    async (request, reply) => {
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const { project_name, project_id, question, analysis_mode } = request.query;
      return services.analysis.analyze(
        principalOf(request).tenantId,
        { project: project_id ?? project_name, questions: splitQuestions(question), mode: analysis_mode },
        { signal: controller.signal },
      );
    },
  );
};
