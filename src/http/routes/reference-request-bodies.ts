// What the reference routes read from a request: the input of a check, the text to parse.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, invalid } from '../../domain/errors.js';
import { citationFormats } from '../../services/export/citation-service.js';
import type { VerifyInput } from '../../services/references/reference-service.js';
import { referenceTextLimits } from '../../services/references/reference-text.js';

/** A document reference in a query or body: PROJ:<project>/<document>, PDF_URL:<url> or a URL. */
export const documentRef = z.string().trim().max(4000, 'must be at most 4000 characters');

/** What a check reads as text: a bibliography file's format, or `text`, a plain reference list. */
export const verifyFormats = [...citationFormats, 'text'] as const;
export const verifyFormatError = 'format must be one of bibtex, ris, csl, text';

/** The JSON body of a check: a bibliography's text (and its format when known), or a PDF's pdf_id. */
const verifyBodySchema = z
  .object({
    text: z.string().min(1, 'must not be empty').optional(),
    format: z.enum(verifyFormats, { error: verifyFormatError }).optional(),
    pdf_id: documentRef.min(1, 'must not be empty').optional(),
    pdf_url: documentRef.min(1, 'must not be empty').optional(),
  })
  .strict();

/** Body types read as the bibliography's text. */
export const textContentTypes = [
  'application/x-bibtex',
  'text/x-bibtex',
  'application/x-research-info-systems',
  'application/x-ris',
];

/** Multipart fields whose file is what is checked. */
const fileFields = new Set(['file', 'pdf', 'upload']);

const sendHint =
  'send {"text": "<BibTeX or RIS>"}, {"pdf_id": "PROJ:…"}, a multipart "file" (a bibliography or a PDF), or a PDF body';

/** Whether bytes are a PDF: its magic in the first KiB, as PDF readers allow. */
function isPdfBytes(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

/**
 * What a check reads: `{text, format}` or `{pdf_id}` JSON, `pdf_id` in the query, a multipart
 * `file` (a PDF when it says so — content type, `.pdf` name or `%PDF-` magic — else a bibliography),
 * a PDF body, or the bibliography as the body. Exactly one of them.
 */
export async function checkInputOf(
  request: FastifyRequest,
  query: { pdf_id?: string | undefined; pdf_url?: string | undefined },
  limits: { bibliography: number; pdf: number },
): Promise<VerifyInput> {
  const inputs: Array<{ param: string; input: VerifyInput }> = [];
  if (query.pdf_id)
    inputs.push({ param: 'pdf_id', input: { kind: 'document', pdfRef: query.pdf_id, param: 'pdf_id' } });
  if (query.pdf_url)
    inputs.push({ param: 'pdf_url', input: { kind: 'document', pdfRef: query.pdf_url, param: 'pdf_url' } });
  const body = request.body;
  const type = request.headers['content-type'] ?? '';
  if (request.isMultipart()) {
    for await (const part of request.parts()) {
      if (part.type !== 'file') {
        if (part.fieldname === 'pdf_id' && typeof part.value === 'string' && part.value.trim()) {
          inputs.push({
            param: 'pdf_id',
            input: { kind: 'document', pdfRef: part.value.trim(), param: 'pdf_id' },
          });
        }
        continue;
      }
      if (!fileFields.has(part.fieldname)) {
        part.file.resume();
        throw invalid(part.fieldname, `Unexpected file field "${part.fieldname}": send the file as "file"`);
      }
      const bytes = await part.toBuffer().catch((error: { code?: string }) => {
        if (error.code !== 'FST_REQ_FILE_TOO_LARGE') throw error;
        throw tooLarge(limits.pdf);
      });
      const pdf =
        part.mimetype === 'application/pdf' || /\.pdf$/i.test(part.filename ?? '') || isPdfBytes(bytes);
      if (pdf) {
        if (bytes.byteLength > limits.pdf) throw tooLarge(limits.pdf);
        inputs.push({
          param: 'file',
          input: { kind: 'upload', bytes: new Uint8Array(bytes), param: 'file' },
        });
      } else {
        if (bytes.byteLength > limits.bibliography) throw tooLarge(limits.bibliography);
        inputs.push({ param: 'file', input: { kind: 'bibliography', text: bytes.toString('utf8') } });
      }
    }
  } else if (Buffer.isBuffer(body)) {
    inputs.push({ param: 'file', input: { kind: 'upload', bytes: new Uint8Array(body), param: 'file' } });
  } else if (typeof body === 'string' && /^application\/json/i.test(type)) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw invalid('text', `The body is not valid JSON: ${sendHint}`);
    }
    const parsed = verifyBodySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path[0];
      const param = typeof key === 'string' ? key : 'text';
      throw invalid(param, `${param}: ${issue?.message ?? 'invalid'} (${sendHint})`);
    }
    const { text, format, pdf_id, pdf_url } = parsed.data;
    if (text !== undefined) {
      inputs.push({
        param: 'text',
        input:
          format === 'text' ? { kind: 'text', text, param: 'text' } : { kind: 'bibliography', text, format },
      });
    }
    if (pdf_id)
      inputs.push({ param: 'pdf_id', input: { kind: 'document', pdfRef: pdf_id, param: 'pdf_id' } });
    if (pdf_url)
      inputs.push({ param: 'pdf_url', input: { kind: 'document', pdfRef: pdf_url, param: 'pdf_url' } });
    if (format && text === undefined)
      throw invalid('format', 'format applies to a bibliography given as text');
  } else if (typeof body === 'string' && body.trim()) {
    inputs.push({ param: 'file', input: { kind: 'bibliography', text: body } });
  }
  const [first, second] = inputs;
  if (!first) throw invalid('text', `Nothing to check: ${sendHint}`);
  if (second) {
    throw invalid(
      second.param,
      `One thing is checked per request, and this one has ${second.param} beside ${first.param}; send one`,
    );
  }
  return first.input;
}

/** The body `parse_references` reads: the text's characters at up to 4 bytes each, and JSON around them. */
export const parseReferencesBodyLimit = referenceTextLimits.maxChars * 4 + 64 * 1024;

const parseReferencesBodySchema = z
  .object({
    text: z
      .string({ error: 'text must be a string: the reference list' })
      .min(1, 'must not be empty')
      .max(referenceTextLimits.maxChars, `must be at most ${referenceTextLimits.maxChars} characters`),
    format: z.enum(['text'], { error: 'format must be text (BibTeX and RIS are read by import)' }).optional(),
  })
  .strict();

/** The text of a `parse_references` body: `{"text", "format": "text"}` JSON, or the body as text. */
export function parseReferencesText(body: unknown, type: string | undefined): string {
  if (typeof body !== 'string' || body.trim() === '') {
    throw invalid(
      'text',
      'Nothing to parse: send {"text": "<references>", "format": "text"} or a text/plain body',
    );
  }
  if (!/^application\/json/i.test(type ?? '')) {
    if (body.length > referenceTextLimits.maxChars) {
      throw invalid('text', `text must be at most ${referenceTextLimits.maxChars} characters`);
    }
    return body;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw invalid('text', 'The body is not valid JSON: send {"text": "<references>", "format": "text"}');
  }
  const parsed = parseReferencesBodySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path[0];
    const param = typeof key === 'string' ? key : 'text';
    throw invalid(param, `${param}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data.text;
}

function tooLarge(limit: number): AppError {
  return new AppError(
    'payload_too_large',
    `file is larger than the limit (${Math.round(limit / 1024 / 1024)} MB)`,
    {
      param: 'file',
    },
  );
}
