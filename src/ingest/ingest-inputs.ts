import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** One input of an ingest run: a file, or standard input. */
export interface IngestInput {
  /** Path as given (or `-` for stdin); what reports and format detection see. */
  name: string;
  /** Size in bytes on disk (compressed size for .gz), when known: progress and ETA use it. */
  size: number | undefined;
  /** Opens the raw bytes (still compressed when the file is gzip). */
  open(): Readable;
}

/** What `decompressed` hands on: the text bytes, and a counter of raw bytes read so far. */
export interface OpenedInput {
  chunks: AsyncIterable<Uint8Array>;
  /** Raw (on-disk) bytes consumed so far, for progress against `IngestInput.size`. */
  rawBytes(): number;
}

/**
 * The inputs named by a command line argument: `-` is standard input; a folder yields every regular
 * file below it (recursively, sorted, hidden files skipped); anything else is one file.
 */
export async function resolveInputs(target: string, stdin: Readable): Promise<IngestInput[]> {
  if (target === '-') return [{ name: '-', size: undefined, open: () => stdin }];
  const info = await stat(target);
  if (!info.isDirectory()) return [fileInput(target, info.size)];
  const inputs: IngestInput[] = [];
  for (const path of await listFiles(target)) inputs.push(fileInput(path, (await stat(path)).size));
  return inputs;
}

/** A file on disk as an input. */
export function fileInput(path: string, size: number): IngestInput {
  return { name: path, size, open: () => createReadStream(path, { highWaterMark: 256 * 1024 }) };
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/**
 * The input's text bytes: gzip is recognised by its magic bytes (not the file name) and inflated as
 * a stream, so memory stays constant whatever the file size.
 */
export function decompressed(input: IngestInput): OpenedInput {
  let raw = 0;
  const source = input.open();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    // Bytes are counted as they are read (a 'data' listener would start the stream flowing before
    // anyone reads it, and an input read later would lose its first chunks).
    const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await iterator.next();
    if (first.done) return;
    const head = first.value;
    raw += head.length;
    const rest = (async function* () {
      yield head;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        raw += next.value.length;
        yield next.value;
      }
    })();
    if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
      const gunzip = createGunzip();
      const pump = (async () => {
        try {
          for await (const chunk of rest) {
            if (!gunzip.write(chunk)) await new Promise((resolve) => gunzip.once('drain', resolve));
          }
          gunzip.end();
        } catch (error) {
          gunzip.destroy(error as Error);
        }
      })();
      yield* gunzip as AsyncIterable<Buffer>;
      await pump;
    } else {
      yield* rest;
    }
  }
  return { chunks: chunks(), rawBytes: () => raw };
}

/** A display name for reports: the file name, or "stdin". */
export function displayName(input: IngestInput): string {
  return input.name === '-' ? 'stdin' : basename(input.name);
}

/**
 * Splits inputs into PDFs and record dumps, so one folder can hold both (`alexandria ingest`
 * files the PDFs in a project and streams the records into the index). A PDF is recognised by
 * `%PDF-` within its first KiB (as PDF readers allow), whatever its name; a file named `.pdf`
 * without it counts as a PDF too, so it is reported as a bad PDF rather than as an unknown dump.
 * Standard input is always a dump.
 */
export async function separatePdfs(
  inputs: readonly IngestInput[],
): Promise<{ pdfs: IngestInput[]; records: IngestInput[] }> {
  const pdfs: IngestInput[] = [];
  const records: IngestInput[] = [];
  for (const input of inputs) {
    const pdf = input.name !== '-' && (/\.pdf$/i.test(input.name) || (await startsLikePdf(input.name)));
    (pdf ? pdfs : records).push(input);
  }
  return { pdfs, records };
}

/** True when the file holds `%PDF-` within its first KiB. */
export async function startsLikePdf(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await handle.close();
  }
}
