import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a field, or a file when `filename` is set. */
export interface FormPart {
  name: string;
  data: string | Uint8Array;
  filename?: string;
  contentType?: string;
}

/** Builds a multipart/form-data body for `app.inject` (as curl -F sends it). */
export function multipartBody(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----alexandria${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType ? `\r\nContent-Type: ${part.contentType}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data) : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
