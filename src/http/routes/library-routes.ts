import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, invalid } from '../../domain/errors.js';
import { parsePaperIdentifier } from '../../domain/identifiers.js';
import { paperSchema } from '../../domain/paper.js';
import type { AddPaperInput } from '../../services/services.js';
import { principalOf } from '../auth.js';
import { errorEnvelopeSchema, errorResponses, paperIdPattern, parseErrorResponses } from '../schemas.js';
import { abortOnClientClose } from './client-abort.js';
import { type RouteModule, typed } from './route-context.js';

/** The parameters of add_to_project, from the query, a JSON body or multipart form fields. */
const addFields = z.object({
  project_id: z.string().trim().max(200).optional().describe('Project to add to (default "gpt").'),
  project_name: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe('Project name, instead of project_id; created when the paper is filed.'),
  paper_id: z
    .string()
    .trim()
    .max(500)
    // A blank value is "not given"; else what parsePaperIdentifier accepts (decision 0052).
    .meta({ pattern: `^\\s*$|${paperIdPattern.source}` })
    .optional()
    .describe('A typed identifier `<TYPE>:<value>`, TYPE one of DOI, PMID, SS_ID, ARXIV, MAG, ACL, PMCID.'),
  pdf_url: z.string().trim().max(4000).optional().describe('Url of a PDF to fetch and store.'),
  url: z.string().trim().max(4000).optional().describe('Same as pdf_url.'),
});
type AddFields = z.infer<typeof addFields>;

const addedPaperSchema = paperSchema
  .extend({ hint: z.string().optional().describe('What was done, and how to read the paper next.') })
  .meta({ id: 'AddedPaper' });

/** Multipart parts whose file we take as the PDF. */
const fileFields = new Set(['file', 'files', 'pdf', 'upload']);

/**
 * `POST|GET /api/add_to_project`: adds papers to a project from a multipart upload (field `file`),
 * a raw `application/pdf` body, a PDF url or a typed identifier. ScholarAI's SDK sends every
 * parameter in the query string, even on POST, so the query is read on both methods.
 */
export const libraryRoutes: RouteModule = async (root, { services, config }) => {
  const uploadLimit = config.documents.uploadMaxMb * 1024 * 1024;
  // Own scope: the multipart parser and the raw-PDF body limit apply to this route only.
  await root.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: true,
      limits: { fileSize: uploadLimit, files: 10, fields: 20, fieldSize: 8 * 1024, parts: 40 },
    });
    scope.addContentTypeParser(
      'application/pdf',
      { parseAs: 'buffer', bodyLimit: uploadLimit },
      (_request, body, done) => done(null, body),
    );
    typed(scope).route({
      method: ['GET', 'POST'],
      url: '/api/add_to_project',
      config: { access: 'key' },
      bodyLimit: uploadLimit + 1024 * 1024,
      schema: {
        summary: 'Add papers to a project',
        description:
          'Files one paper in a project (`project_id`, default "gpt", or `project_name`) from an uploaded PDF (multipart `file` or an application/pdf body), `pdf_url` or `paper_id`; parameters in the query, form fields or a JSON body. Idempotent. The returned `pdf_id` reads it with /api/fulltext.',
        tags: ['projects'],
        querystring: addFields,
        response: {
          200: z.array(addedPaperSchema),
          ...errorResponses,
          ...parseErrorResponses,
          413: errorEnvelopeSchema.describe('The PDF is larger than the configured limit.'),
          415: errorEnvelopeSchema.describe('The file or url is not a PDF.'),
          422: errorEnvelopeSchema.describe('The PDF could not be parsed.'),
          502: errorEnvelopeSchema.describe('The PDF url could not be fetched.'),
        },
      },
      handler: async (request, reply) => {
        // Made first, so a client gone while its upload was read is seen too.
        const signal = abortOnClientClose(reply);
        const { fields, uploads } = await readBody(request, config.documents.uploadMaxMb);
        const merged = mergeFields(fields, stripEmpty(request.query));
        const input = onePaper(uploads, merged);
        const tenantId = principalOf(request).tenantId;
        const selector = { projectId: merged.project_id, projectName: merged.project_name };
        return services.library.add(tenantId, selector, input, { signal });
      },
    });
  });
};

/** Form fields and uploaded PDFs of a multipart, JSON or raw-PDF body. */
async function readBody(
  request: FastifyRequest,
  limitMb: number,
): Promise<{ fields: AddFields; uploads: AddPaperInput[] }> {
  const uploads: AddPaperInput[] = [];
  if (request.isMultipart()) {
    const form: Record<string, string> = {};
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (!fileFields.has(part.fieldname)) {
          // A file we would not read is refused rather than ignored beside another input.
          part.file.resume();
          throw invalid(part.fieldname, `Unexpected file field "${part.fieldname}": send the PDF as "file"`);
        }
        const bytes = await part.toBuffer().catch((error: { code?: string }) => {
          if (error.code !== 'FST_REQ_FILE_TOO_LARGE') throw error;
          throw new AppError('payload_too_large', `file is larger than the upload limit (${limitMb} MB)`, {
            param: 'file',
          });
        });
        // A browser's empty file input sends an empty part without a name; that is no upload.
        if (bytes.byteLength > 0 || part.filename) {
          uploads.push({ kind: 'upload', bytes, filename: part.filename });
        }
      } else if (typeof part.value === 'string' && part.value.trim() !== '') {
        const earlier = form[part.fieldname];
        if (earlier !== undefined && earlier !== part.value) {
          throw invalid(part.fieldname, `Form field ${part.fieldname} is given twice with different values`);
        }
        form[part.fieldname] = part.value;
      }
    }
    return { fields: parseFields(form, 'form field'), uploads };
  }
  const body = request.body;
  if (Buffer.isBuffer(body)) {
    uploads.push({ kind: 'upload', bytes: new Uint8Array(body) });
    return { fields: {}, uploads };
  }
  if (body && typeof body === 'object') return { fields: parseFields(body, 'body field'), uploads };
  return { fields: {}, uploads };
}

/**
 * Body fields with the query's (ScholarAI clients send everything in the query); a parameter given
 * in both with different values is ambiguous and refused, naming it.
 */
function mergeFields(body: AddFields, query: Partial<AddFields>): AddFields {
  for (const [name, value] of Object.entries(query)) {
    const other = body[name as keyof AddFields];
    if (other !== undefined && value !== undefined && other !== value) {
      throw invalid(name, `${name} is given in the query and the body with different values; give it once`);
    }
  }
  return { ...body, ...query };
}

/**
 * The one paper a request adds. Two sources (a second file, a file with paper_id or pdf_url, pdf_url
 * with paper_id) are refused with a 400 naming the extra parameter, rather than filing one or both.
 */
function onePaper(uploads: AddPaperInput[], fields: AddFields): AddPaperInput {
  if (fields.pdf_url && fields.url && fields.pdf_url !== fields.url) {
    throw invalid('url', 'pdf_url and url are the same parameter; give one of them');
  }
  const pdfUrl = fields.pdf_url || fields.url;
  const sources: Array<{ param: string; input: () => AddPaperInput }> = uploads.map((upload) => ({
    param: 'file',
    input: () => upload,
  }));
  if (pdfUrl) {
    const url = pdfUrl.replace(/^PDF_URL:/i, '').trim();
    sources.push({ param: fields.pdf_url ? 'pdf_url' : 'url', input: () => ({ kind: 'url', url }) });
  }
  const paperId = fields.paper_id;
  if (paperId) {
    sources.push({
      param: 'paper_id',
      input: () => ({ kind: 'identifier', identifier: parsePaperIdentifier(paperId, 'paper_id') }),
    });
  }
  const [first, second] = sources;
  if (!first) {
    throw invalid(
      'paper_id',
      'Nothing to add: send a PDF (multipart field "file"), pdf_url, or paper_id=<TYPE>:<value>',
    );
  }
  if (second) {
    const what =
      first.param === second.param ? `a second ${second.param}` : `${second.param} beside ${first.param}`;
    throw invalid(
      second.param,
      `add_to_project files one paper per request, and this one has ${what}; send one of file, pdf_url or paper_id`,
    );
  }
  return first.input();
}

function parseFields(raw: object, where: string): AddFields {
  const parsed = addFields.safeParse(stripEmpty(raw));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.join('.') || undefined;
  throw new AppError(
    'invalid_request',
    `Invalid ${where} ${param ?? ''}: ${issue?.message ?? 'invalid value'}`,
    {
      ...(param ? { param } : {}),
    },
  );
}

function stripEmpty<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => !(typeof value === 'string' && value.trim() === '')),
  ) as Partial<T>;
}
