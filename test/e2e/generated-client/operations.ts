import type { Client } from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from './openapi-paths.js';

/**
 * Every operation of /openapi.json called through a client typed by the generated `paths`, as a
 * user of a generated client writes it: typed parameters and bodies, `parseAs` for the non-JSON
 * answers, a `bodySerializer` for the multipart uploads. The test typechecks this file against the
 * types generated at test time (a renamed parameter or field fails there), then runs the steps in
 * order against a listening server.
 */
export type GeneratedClient = Client<paths>;

export interface Fixtures {
  /** A real PDF with figures, uploaded as multipart `file`. */
  figurePdf: Uint8Array<ArrayBuffer>;
  /** An arXiv id the local index knows, whose open PDF a loopback server serves. */
  openArxivId: string;
  /** A BibTeX file of two entries (DoTAT, doi 10.18653/v1/2022.acl-demo.1; Hartman, 10.1128/msphere.00109-24). */
  bibtex: string;
  zotero: { userId: string; apiKey: string; itemsSaved: () => number };
  /** The document's server url: figure links must name it. */
  serverUrl: string;
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a 2xx answer; fails with the error body otherwise. */
function ok<T>(result: Result<T>): NonNullable<T> {
  expect(result.response.status, JSON.stringify(result.error)).toBeLessThan(300);
  if (result.data === undefined || result.data === null) throw new Error('no body in a 2xx answer');
  return result.data as NonNullable<T>;
}

/** A multipart form of the typed fields plus the binary `file`: formats the generator types as string. */
function formOf(
  fields: Record<string, unknown>,
  file: { bytes: Uint8Array<ArrayBuffer> | string; name: string; type: string },
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined) form.append(name, String(value));
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  return form;
}

const figureLinkPattern = /\]\(([^)]+)\)$/;

export function operationSteps(client: GeneratedClient, fixtures: Fixtures) {
  let projectId = '';
  let uploadedPdf = '';
  let fetchedEntry = '';
  let fetchedPdf = '';

  return {
    async system() {
      expect(ok(await client.GET('/livez', {})).status).toBe('ok');
      expect(ok(await client.GET('/healthz', {})).status).toBe('ok');
      expect(ok(await client.GET('/readyz', {})).status).toBe('ready');
      const metrics = ok(await client.GET('/metrics', { parseAs: 'text' }));
      expect(metrics).toContain('alexandria_http_requests_total');
    },

    async models() {
      const models = ok(await client.GET('/api/models', {}));
      expect(models.data.map((model: { id: string }) => model.id)).toEqual(['alexandria-research']);
      const model = ok(
        await client.GET('/api/models/{model}', { params: { path: { model: 'alexandria-research' } } }),
      );
      expect(model).toMatchObject({ id: 'alexandria-research', object: 'model' });
    },

    async projects() {
      const created = ok(
        await client.POST('/api/create_project', { params: { query: { project_name: 'Generated client' } } }),
      );
      expect(created.name).toBe('Generated client');
      projectId = created.id;
      const listed = ok(await client.GET('/api/projects', {}));
      expect(listed.map((project: { id: string }) => project.id)).toContain(projectId);
      const read = ok(await client.GET('/api/projects/{id}', { params: { path: { id: projectId } } }));
      expect(read).toMatchObject({ id: projectId, name: 'Generated client', papers: [] });
    },

    async upload() {
      const added = ok(
        await client.POST('/api/add_to_project', {
          body: { project_id: projectId },
          bodySerializer: (fields) =>
            formOf(fields as Record<string, unknown>, {
              bytes: fixtures.figurePdf,
              name: 'deltas.pdf',
              type: 'application/pdf',
            }),
        }),
      );
      expect(added[0]?.title).toBe('Sediment budgets of three small river deltas');
      uploadedPdf = added[0]?.pdf_id ?? '';
      expect(uploadedPdf).toMatch(/^PROJ:/);
    },

    async addByIdentifier() {
      const added = ok(
        await client.GET('/api/add_to_project', {
          params: { query: { paper_id: `ARXIV:${fixtures.openArxivId}`, project_id: projectId } },
        }),
      );
      expect(added[0]?.title).toMatch(/^Vaccination and treatment of COVID-19/);
      expect(added[0]?.pdf_id).toMatch(/^PROJ:/);
      fetchedEntry = added[0]?.entry_id ?? '';
      fetchedPdf = added[0]?.pdf_id ?? '';
    },

    async readAskAndFigure() {
      const first = ok(
        await client.GET('/api/fulltext', { params: { query: { pdf_id: uploadedPdf, chunk: 1 } } }),
      );
      expect(first.total_chunk_num).toBeGreaterThan(1);
      expect(first.chunks[0]?.chunk).toMatch(/river delta/);
      let figureLink = '';
      for (let chunk = 1; chunk <= first.total_chunk_num && !figureLink; chunk++) {
        const read = ok(
          await client.GET('/api/fulltext', { params: { query: { pdf_id: uploadedPdf, chunk } } }),
        );
        figureLink = figureLinkPattern.exec(read.chunks[0]?.img_mds[0] ?? '')?.[1] ?? '';
      }
      const answer = ok(
        await client.GET('/api/question', {
          params: {
            query: { pdf_id: uploadedPdf, question: 'How fast did the delta below the reservoir retreat?' },
          },
        }),
      );
      expect(answer.chunks[0]?.chunk).toMatch(/retreated by three metres a year/);
      // The figure link names the server the client uses, and the generated client opens it.
      expect(figureLink.startsWith(`${fixtures.serverUrl}/files/figures/`)).toBe(true);
      const link = new URL(figureLink);
      const [, , , sha256 = '', file = ''] = link.pathname.split('/');
      const figure = await client.GET('/files/figures/{sha256}/{file}', {
        params: {
          path: { sha256, file },
          query: {
            exp: link.searchParams.get('exp') ?? undefined,
            sig: link.searchParams.get('sig') ?? undefined,
          },
        },
        parseAs: 'arrayBuffer',
      });
      expect(figure.response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(ok(figure)).subarray(1, 4).toString('latin1')).toBe('PNG');
      // The page of the answer, drawn as an image (boxes are fractions of it).
      const page = await client.GET('/api/page_image', {
        params: { query: { pdf_id: uploadedPdf, page: 1, width: 300 } },
        parseAs: 'arrayBuffer',
      });
      expect(page.response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(ok(page)).subarray(1, 4).toString('latin1')).toBe('PNG');
    },

    async references() {
      const listed = ok(await client.GET('/api/references', { params: { query: { pdf_id: uploadedPdf } } }));
      expect(listed.style).toBe('author-year');
      expect(listed.references.length).toBeGreaterThan(20);
      expect(
        listed.references.some((reference: { contexts: unknown[] }) => reference.contexts.length > 0),
      ).toBe(true);
      const contexts = ok(
        await client.GET('/api/citation_contexts', {
          params: { query: { paper_id: 'ACL:2022.acl-demo.1' } },
        }),
      );
      expect(contexts.paper?.title).toMatch(/^DoTAT/);
      expect(Array.isArray(contexts.contexts)).toBe(true);
      const checked = ok(
        await client.POST('/api/verify_references', { body: { text: fixtures.bibtex, format: 'bibtex' } }),
      );
      expect(checked.results.map((result: { status: string }) => result.status)).toEqual([
        'exists',
        'not_found',
      ]);
      const pasted = ok(
        await client.POST('/api/parse_references', {
          body: {
            text: '[1] Yupian Lin and Tong Ruan. 2022. DoTAT: A Domain-oriented Text Annotation Tool. In Proceedings of ACL 2022: System Demonstrations, pages 1–8.\n[2] Vaswani, A. (2017). Attention is all you need. NeurIPS, 30, 5998–6008.',
            format: 'text',
          },
        }),
      );
      expect(pasted.entries.map((entry: { title?: string }) => entry.title)).toEqual([
        'DoTAT: A Domain-oriented Text Annotation Tool',
        'Attention is all you need',
      ]);
    },

    async projectGraph() {
      const graph = ok(
        await client.GET('/api/project_graph', {
          params: { query: { project_id: projectId, min_citing: 1 } },
        }),
      );
      expect(
        graph.nodes.some((node: { paper: { pdf_id?: string | null } }) => node.paper.pdf_id === uploadedPdf),
      ).toBe(true);
      expect(graph.missing.length).toBeGreaterThan(0);
      expect(Array.isArray(graph.edges)).toBe(true);
    },

    async search() {
      const papers = ok(
        await client.GET('/api/fast_paper_search', {
          params: { query: { keywords: 'text annotation tool' } },
        }),
      );
      expect(JSON.stringify(papers)).toContain('DoTAT');
      const abstracts = ok(
        await client.GET('/api/abstracts', { params: { query: { query: 'annotation tool' } } }),
      );
      expect(JSON.stringify(abstracts)).toMatch(/annotation/i);
      const patents = ok(
        await client.GET('/api/patents', {
          params: { query: { keywords: 'wireless physiological sensor' } },
        }),
      );
      expect(JSON.stringify(patents)).toContain('Wireless physiological sensor patches');
      const paperId = `ARXIV:${fixtures.openArxivId}`;
      const paper = ok(await client.GET('/api/paper', { params: { query: { paper_id: paperId } } }));
      expect(paper.title).toMatch(/^Vaccination and treatment of COVID-19/);
      const map = ok(await client.GET('/api/literature_map', { params: { query: { paper_id: paperId } } }));
      expect(map.paper.title).toMatch(/^Vaccination and treatment of COVID-19/);
      expect(Array.isArray(map.related)).toBe(true);
    },

    async importAndExport() {
      const imported = ok(
        await client.POST('/api/projects/{id}/import', {
          params: { path: { id: projectId } },
          // The generated multipart body types the file as a string: its content.
          body: { file: fixtures.bibtex },
          bodySerializer: (body) =>
            formOf(
              {},
              {
                bytes: (body as { file: string }).file,
                name: 'references.bib',
                type: 'application/x-bibtex',
              },
            ),
        }),
      );
      expect(imported).toMatchObject({ imported: 2, skipped: [] });
      const bibtex = await client.GET('/api/projects/{id}/export', {
        params: { path: { id: projectId }, query: { format: 'bibtex' } },
        parseAs: 'text',
      });
      expect(bibtex.response.headers.get('content-type')).toMatch(/^application\/x-bibtex/);
      const bib = ok(bibtex);
      expect(bib, bib).toContain('doi = {10.18653/v1/2022.acl-demo.1}');
      expect(bib).toContain('title = {Sediment budgets of three small river deltas}');
      const ris = await client.GET('/api/projects/{id}/export', {
        params: { path: { id: projectId }, query: { format: 'ris' } },
        parseAs: 'text',
      });
      expect(ris.response.headers.get('content-type')).toMatch(/^application\/x-research-info-systems/);
      expect(ok(ris)).toContain('TI  - Differential development of antibiotic resistance');
    },

    async analyze() {
      const question = 'What task does the system address?';
      const analysis = ok(
        await client.GET('/api/analyze_project', { params: { query: { project_id: projectId, question } } }),
      );
      expect(analysis.papers.length).toBeGreaterThanOrEqual(4);
      expect(analysis.markdown).toContain(question);
    },

    async zotero() {
      const { userId, apiKey } = fixtures.zotero;
      const saved = ok(
        await client.GET('/api/save-citation', {
          params: { query: { doi: '10.1128/msphere.00109-24' } },
          headers: { 'x-zotero-user-id': userId, 'x-zotero-api-key': apiKey },
        }),
      );
      expect(saved).toMatchObject({ saved: true, doi: '10.1128/msphere.00109-24' });
      expect(fixtures.zotero.itemsSaved()).toBe(1);
      const stored = ok(
        await client.PUT('/api/zotero/credentials', { body: { user_id: userId, api_key: apiKey } }),
      );
      expect(stored).toMatchObject({ configured: true, user_id: userId });
      const read = ok(await client.GET('/api/zotero/credentials', {}));
      expect(read).toMatchObject({ configured: true, api_key_hint: `…${apiKey.slice(-4)}` });
      expect(ok(await client.DELETE('/api/zotero/credentials', {})).configured).toBe(false);
    },

    async chatStream() {
      const chat = await client.POST('/api/chat/completions', {
        body: {
          model: 'alexandria-research',
          stream: true,
          messages: [
            { role: 'user', content: 'How do dams upstream change the shorelines of river deltas?' },
          ],
        },
        parseAs: 'stream',
      });
      expect(chat.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      // `parseAs: 'stream'` hands over the body stream; openapi-fetch's types keep the JSON type here.
      const text = await new Response(ok(chat) as unknown as ReadableStream<Uint8Array>).text();
      const frames = text
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: '))
        .map((frame) => frame.slice('data: '.length));
      expect(frames.at(-1)).toBe('[DONE]');
      const chunks = frames.slice(0, -1).map(
        (frame) =>
          JSON.parse(frame) as {
            object: string;
            choices: Array<{ delta?: { content?: string }; finish_reason?: string | null }>;
          },
      );
      expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
      const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
      expect(content.length).toBeGreaterThan(50);
      expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(true);
    },

    async removeAndDelete() {
      // Stored PDFs deleted (path and query form): their entries stay, without a PDF.
      const documentId = uploadedPdf.split('/')[1];
      const byPath = ok(
        await client.DELETE('/api/documents/{pdf_id}', { params: { path: { pdf_id: uploadedPdf } } }),
      );
      expect(byPath).toEqual({ deleted: true, document_id: documentId, detached_entries: 1 });
      const byQuery = ok(
        await client.DELETE('/api/documents', { params: { query: { pdf_id: fetchedPdf } } }),
      );
      expect(byQuery).toMatchObject({ deleted: true, detached_entries: 1 });
      const project = ok(await client.GET('/api/projects/{id}', { params: { path: { id: projectId } } }));
      const pdfIds = project.papers.map((paper: { pdf_id?: string }) => paper.pdf_id);
      expect(pdfIds).not.toContain(uploadedPdf);
      expect(pdfIds).not.toContain(fetchedPdf);
      expect(project.papers.map((paper: { entry_id?: string }) => paper.entry_id)).toContain(fetchedEntry);
      const byEntry = ok(
        await client.DELETE('/api/projects/{id}/papers/{paper}', {
          params: { path: { id: projectId, paper: fetchedEntry } },
        }),
      );
      expect(byEntry.deleted).toBe(true);
      const byIdentifier = ok(
        await client.DELETE('/api/projects/{id}/papers', {
          params: { path: { id: projectId }, query: { paper_id: 'DOI:10.1128/msphere.00109-24' } },
        }),
      );
      expect(byIdentifier.deleted).toBe(true);
      const deleted = ok(await client.DELETE('/api/projects/{id}', { params: { path: { id: projectId } } }));
      expect(deleted).toMatchObject({ deleted: true, id: projectId });
    },
  };
}
