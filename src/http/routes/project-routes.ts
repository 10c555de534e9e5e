import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { paperSchema } from '../../domain/paper.js';
import { principalOf } from '../auth.js';
import { bodyErrorResponses, errorEnvelopeSchema, errorResponses } from '../schemas.js';
import type { RouteModule } from './route-context.js';

const projectSummarySchema = z
  .object({
    id: z.string().describe('Project id (the default project is "gpt").'),
    name: z.string(),
    created_at: z.string(),
    paper_count: z.number().int(),
  })
  .meta({ id: 'Project' });

const projectWithPapersSchema = projectSummarySchema
  .extend({ papers: z.array(paperSchema) })
  .meta({ id: 'ProjectWithPapers' });

const projectNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  // What the project service accepts once trimmed: no control character (decision 0052).
  .meta({ pattern: '^\\s*[^\\s\\u0000-\\u001f](?:[^\\u0000-\\u001f]*[^\\s\\u0000-\\u001f])?\\s*$' });

/** Projects of the caller's tenant: create, list, read, delete, remove a paper. */
export const projectRoutes: RouteModule = (app, { services }) => {
  app.post(
    '/api/create_project',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Create a project',
        description:
          'Creates a project (a collection of papers) for the caller. `project_name` may come in the query or a JSON body.',
        tags: ['projects'],
        querystring: z.object({ project_name: projectNameSchema.optional() }),
        body: z.object({ project_name: projectNameSchema.optional() }).nullish(),
        response: {
          200: projectSummarySchema,
          ...errorResponses,
          ...bodyErrorResponses,
          409: errorEnvelopeSchema.describe('A project of that name exists already (or the name is "gpt").'),
        },
      },
    },
    async (request) => {
      const name = request.query.project_name ?? request.body?.project_name;
      if (name === undefined) throw invalid('project_name', 'project_name is required');
      return services.projects.create(principalOf(request).tenantId, name);
    },
  );

  app.get(
    '/api/projects',
    {
      config: { access: 'key' },
      schema: {
        summary: 'List projects',
        description: 'The caller\'s projects, the default project "gpt" included, with their paper counts.',
        tags: ['projects'],
        response: { 200: z.array(projectSummarySchema), ...errorResponses },
      },
    },
    async (request) => services.projects.list(principalOf(request).tenantId),
  );

  const projectParams = z.object({ id: z.string().min(1).max(200).describe('Project id or name.') });

  app.get(
    '/api/projects/:id',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Get a project with its papers',
        tags: ['projects'],
        params: projectParams,
        response: { 200: projectWithPapersSchema, ...errorResponses },
      },
    },
    async (request) => services.projects.get(principalOf(request).tenantId, request.params.id),
  );

  app.delete(
    '/api/projects/:id',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Delete a project',
        description:
          'Deletes a named project and its entries, and the PDFs no other entry of yours holds (with their text, figures, page images and passage vectors). The default project "gpt" always exists and is not deleted: that is a 409; empty it by removing its papers (`DELETE /api/projects/gpt/papers/{entry_id}`).',
        tags: ['projects'],
        params: projectParams,
        response: {
          200: z.object({ deleted: z.literal(true), id: z.string() }),
          ...errorResponses,
          ...bodyErrorResponses,
          409: errorEnvelopeSchema.describe('The default project "gpt" cannot be deleted.'),
        },
      },
    },
    async (request) => {
      await services.projects.delete(principalOf(request).tenantId, request.params.id);
      return { deleted: true as const, id: request.params.id };
    },
  );

  app.delete(
    '/api/projects/:id/papers/:paper',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Remove a paper from a project',
        description:
          'The paper is named by its `entry_id` (see the project listing) or a typed identifier such as `DOI:10.1000/xyz` (URL-encoded). Its PDF is deleted too when no other entry of yours holds it.',
        tags: ['projects'],
        params: projectParams.extend({ paper: z.string().min(1).max(500) }),
        response: {
          200: z.object({ deleted: z.literal(true), paper: z.string() }),
          ...errorResponses,
          ...bodyErrorResponses,
        },
      },
    },
    async (request) => {
      await services.projects.removePaper(
        principalOf(request).tenantId,
        request.params.id,
        request.params.paper,
      );
      return { deleted: true as const, paper: request.params.paper };
    },
  );

  app.delete(
    '/api/projects/:id/papers',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Remove a paper from a project by identifier',
        description:
          'Same as the path form, with the paper in `paper_id` (entry id or `<TYPE>:<value>`), which suits DOIs containing slashes.',
        tags: ['projects'],
        params: projectParams,
        querystring: z.object({ paper_id: z.string().trim().min(1, 'must not be empty').max(500) }),
        response: {
          200: z.object({ deleted: z.literal(true), paper: z.string() }),
          ...errorResponses,
          ...bodyErrorResponses,
        },
      },
    },
    async (request) => {
      await services.projects.removePaper(
        principalOf(request).tenantId,
        request.params.id,
        request.query.paper_id,
      );
      return { deleted: true as const, paper: request.query.paper_id };
    },
  );
};
