import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { fixtures } from './requirements.js';

/** Real ACL Anthology records (2022 system demonstrations first), as paper records. */
export function aclPapers(count: number): Paper[] {
  return readFileSync(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, count)
    .map(
      (line) =>
        JSON.parse(line) as {
          title: string;
          authors: string[];
          abstract: string;
          year: number;
          url: string;
          venue: string;
        },
    )
    .map((record) => ({
      ...emptyPaper(record.title),
      authors: record.authors,
      abstract: record.abstract,
      year: record.year,
      publication_date: String(record.year),
      url: record.url,
      venue: record.venue,
      type: 'conference-paper',
    }));
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A loopback server of PDFs, by path (`/deltas.pdf` → bytes). */
export async function startPdfServer(
  pdfs: Record<string, Uint8Array>,
): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const pdf = pdfs[request.url ?? ''];
    response.writeHead(pdf ? 200 : 404, { 'content-type': 'application/pdf' });
    response.end(pdf);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function stopServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
