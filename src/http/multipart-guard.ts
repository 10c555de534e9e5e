import type { FastifyInstance } from 'fastify';
import { AppError, invalid } from '../domain/errors.js';

/**
 * A multipart boundary as RFC 2046 allows it: 1–70 characters of `bchars`, not ending in a space.
 * Busboy itself only requires *some* string and fails later, deep in the body stream.
 */
const boundaryPattern = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary parameter of a Content-Type header (quoted or not), or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  if (!match) return undefined;
  return match[1] ?? match[2];
}

function isFormData(contentType: string | undefined): contentType is string {
  return typeof contentType === 'string' && /^\s*multipart\/form-data\s*(;|$)/i.test(contentType);
}

/**
 * Refuses a multipart request whose Content-Type has no usable boundary before any route reads it.
 * Runs in `preValidation`, i.e. only for routes that registered a multipart parser (any other route
 * has already answered 415), so every upload route gets the same 400 without code of its own.
 */
export function installMultipartGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const contentType = request.headers['content-type'];
    if (!isFormData(contentType)) {
      done();
      return;
    }
    const boundary = boundaryOf(contentType);
    if (boundary === undefined || !boundaryPattern.test(boundary)) {
      done(
        invalid(
          'file',
          boundary === undefined
            ? 'Content-Type multipart/form-data needs a boundary parameter (multipart/form-data; boundary=…)'
            : 'The multipart boundary must be 1–70 characters (RFC 2046)',
        ),
      );
      return;
    }
    done();
  });
}

/**
 * What busboy (behind @fastify/multipart) throws for a body that is not a well-formed form: no
 * boundary, or a body that ends inside a part. They are plain `Error`s, recognised by their text;
 * `test/integration/http-hardening.test.ts` pins them so an upgrade that rewords them fails a test,
 * not a user.
 */
const malformedMultipartMessages = [
  /^Multipart: Boundary not found$/,
  /^Unexpected end of multipart data$/,
  /^Part terminated early due to unexpected end of multipart data$/,
  /^The needle cannot (be an empty String\/Buffer|have a length bigger than 256)\.$/,
];

/** A 400 naming `file` when `error` is busboy refusing a malformed multipart body, else undefined. */
export function malformedMultipartError(error: unknown): AppError | undefined {
  if (!(error instanceof Error) || error instanceof AppError) return undefined;
  if (!malformedMultipartMessages.some((pattern) => pattern.test(error.message))) return undefined;
  return new AppError(
    'invalid_request',
    `Malformed multipart body (${error.message.toLowerCase()}): send a complete multipart/form-data form with the file as "file"`,
    { param: 'file', cause: error },
  );
}
