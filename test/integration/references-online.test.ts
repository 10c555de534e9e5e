import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferencesResult } from '../../src/domain/references.js';
import { type CannedResponse, recorded } from '../fakes/recorded-fetch.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';

/**
 * Reference linking and checking online (decision 0032): with OpenAlex, Semantic Scholar and
 * Crossref enabled, entries the local index does not resolve are looked up in the sources (DOI,
 * arXiv id, then title) with the same checks. The sources are a loopback server replaying recorded
 * answers for "Augmenting large language models with chemistry tools" (cited by PaSa; its arXiv
 * preprint is ChemCrow) and the sources' recorded empty answers for every other title. Offline
 * (no source enabled) nothing is asked and nothing is linked beyond the index.
 */

const chemistry = /chemistry[+ %20]+tools/i;
const routes: Array<{ match: (url: string) => boolean; respond: CannedResponse }> = [
  // OpenAlex: the title search finds the Nature MI article and the arXiv preprint (ChemCrow).
  {
    match: (url) => url.startsWith('/openalex/works?') && chemistry.test(url),
    respond: recorded('openalex', 'title.search%3AAugmenting+large+language+models+with+chemistry+tools'),
  },
  // OpenAlex's list shape with nothing in it (no empty OpenAlex list was recorded).
  {
    match: (url) => url.startsWith('/openalex/works?'),
    respond: { status: 200, body: '{"meta":{"count":0},"results":[]}' },
  },
  {
    match: (url) => url.startsWith('/openalex/works/'),
    respond: recorded('openalex', '10.1046%2Fj.1365-2699', 404),
  },
  // Semantic Scholar: its record of the Nature MI article (it also answers for the arXiv id).
  {
    match: (url) => url.startsWith('/s2/graph/v1/paper/search?') && chemistry.test(url),
    respond: recorded(
      'semantic_scholar',
      'search/match?query=Augmenting+large+language+models+with+chemistry+tools&fields=authors%2CcitationCount',
    ),
  },
  {
    match: (url) => url.startsWith('/s2/graph/v1/paper/search?'),
    respond: recorded('semantic_scholar', 'n0+r3sult'),
  },
  {
    match: (url) =>
      /^\/s2\/graph\/v1\/paper\/(ARXIV:2304\.05376|DOI:10\.1038\/s42256-024-00832-8)\?/.test(url),
    respond: recorded(
      'semantic_scholar',
      'paper/DOI:10.1038/s42256-024-00832-8?fields=authors,citationCount',
    ),
  },
  {
    match: (url) => url.startsWith('/s2/graph/v1/paper/'),
    respond: recorded('semantic_scholar', 'DOI:10.1101/2024.04.01.587366', 404),
  },
  // Crossref: the bibliographic search and the DOI of the Nature MI article.
  {
    match: (url) => url.startsWith('/crossref/works?') && chemistry.test(url),
    respond: recorded('crossref', 'query.title=Augmenting+large+language+models+with+chemistry+tools&rows=1'),
  },
  {
    match: (url) => url.startsWith('/crossref/works?'),
    respond: recorded('crossref', 'query.title=abs12032jsdafn'),
  },
  {
    match: (url) => url.startsWith('/crossref/works/10.1038%2Fs42256-024-00832-8'),
    respond: recorded('crossref', 'works/10.1038%2Fs42256-024-00832-8?mailto'),
  },
  {
    match: (url) => url.startsWith('/crossref/works/'),
    respond: recorded('crossref', '10.48550%2FarXiv.2304.05376', 404),
  },
];

/** PaSa, a real paper that cites the work and its preprint (shared data: its tests skip without it). */
const pasaMissing = needsSharedData('pdfs/pasa_2501.10120.pdf');
let pasa: Buffer;

let upstream: Server;
let online: TestApp;
/** A second online app for the bibliography check: records the first one keeps in its index are not in this one's. */
let checking: TestApp;
let offline: TestApp;
let hits: string[];
let onlinePdf = '';
let offlinePdf = '';

beforeAll(async () => {
  hits = [];
  upstream = createServer((request, response) => {
    const url = request.url ?? '';
    hits.push(url);
    const route = routes.find(
      (candidate) => candidate.match(url) || candidate.match(decodeURIComponent(url)),
    );
    const canned = route?.respond ?? { status: 404, body: '{"error":"not found"}' };
    response.writeHead(canned.status, {
      'content-type': canned.headers?.['content-type'] ?? 'application/json',
    });
    response.end(canned.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const sources = {
    ALEXANDRIA_SOURCES: 'openalex,semantic_scholar,crossref',
    ALEXANDRIA_SOURCE_URLS: `openalex=${base}/openalex,semantic_scholar=${base}/s2,crossref=${base}/crossref`,
    ALEXANDRIA_CONTACT_EMAIL: 'team@example.org',
    ALEXANDRIA_SOURCE_TIMEOUT_MS: '5000',
    // the real default is 1 request/s; the replay server has no such limit
    ALEXANDRIA_SEMANTIC_SCHOLAR_RPS: '100',
  };
  online = await createTestApp(sources);
  checking = await createTestApp(sources);
  offline = await createTestApp();
  if (pasaMissing) return;
  pasa = readFileSync(join(sharedData, 'pdfs', 'pasa_2501.10120.pdf'));
  const added = await uploadPdf(online, online.key, 'pasa.pdf', pasa);
  expect(added.statusCode).toBe(200);
  onlinePdf = added.json()[0].pdf_id;
  const addedOffline = await uploadPdf(offline, offline.key, 'pasa.pdf', pasa);
  expect(addedOffline.statusCode).toBe(200);
  offlinePdf = addedOffline.json()[0].pdf_id;
}, 120_000);

afterAll(async () => {
  await online?.close();
  await checking?.close();
  await offline?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const chemistryEntry = (body: ReferencesResult) =>
  body.references.find((reference) =>
    /^Augmenting large language models with chemistry tools/.test(reference.title ?? ''),
  );

describe('POST /api/verify_references online', () => {
  const bib = `
@article{bran2024wrongyear,
  title = {Augmenting large language models with chemistry tools},
  author = {Bran, Andres M. and Cox, Sam and Schilter, Oliver and Baldassari, Carlo and White, Andrew D. and Schwaller, Philippe},
  journal = {Nature Machine Intelligence},
  year = {2021},
}
@article{bran2023chemcrow,
  title = {ChemCrow: Augmenting large-language models with chemistry tools},
  author = {Bran, Andres M. and Cox, Sam and White, Andrew D. and Schwaller, Philippe},
  journal = {arXiv preprint arXiv:2304.05376},
  year = {2023},
}
@misc{bran2023arxiv,
  title = {ChemCrow: Augmenting large-language models with chemistry tools},
  author = {Bran, Andres M. and Cox, Sam and White, Andrew D. and Schwaller, Philippe},
  year = {2023},
  eprint = {2304.05376},
  archivePrefix = {arXiv},
  primaryClass = {physics.chem-ph},
}
@article{invented2024,
  title = {Chemistry Agents Without Tools: Retrieval Is All You Need for Synthesis Planning},
  author = {Moreau, Camille and Okonkwo, Chidi},
  journal = {Nature Machine Intelligence},
  year = {2024},
}
`;

  it('finds preprints’ published versions and checks fields against the sources’ records', async () => {
    const before = hits.length;
    const response = await checking.app.inject({
      method: 'POST',
      url: '/api/verify_references',
      headers: { ...withKey(checking.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ text: bib }),
    });
    expect(response.statusCode, response.body).toBe(200);
    const { results, counts, hint } = response.json();
    expect(results.map((result: { key: string; status: string }) => [result.key, result.status])).toEqual([
      ['bran2024wrongyear', 'mismatch'],
      ['bran2023chemcrow', 'preprint_now_published'],
      ['bran2023arxiv', 'preprint_now_published'],
      ['invented2024', 'not_found'],
    ]);
    // No identifier: found by searching its title in the sources; the year is wrong.
    expect(results[0].fields).toEqual(['year']);
    expect(results[0].paper.doi).toBe('10.1038/s42256-024-00832-8');
    const searched = hits.slice(before).map((url) => decodeURIComponent(url));
    for (const source of ['/openalex/works?', '/s2/graph/v1/paper/search?', '/crossref/works?']) {
      expect(
        searched.some((url) => url.startsWith(source) && chemistry.test(url)),
        source,
      ).toBe(true);
    }
    // By its arXiv id: Semantic Scholar's record of the work is the published article.
    expect(results[1].preprint).toBeNull();
    expect(results[1].published.doi).toBe('10.1038/s42256-024-00832-8');
    // arXiv's own BibTeX (eprint + archivePrefix): the same by the eprint id.
    expect(results[2].published.doi).toBe('10.1038/s42256-024-00832-8');
    expect(counts).toEqual({ exists: 0, mismatch: 1, not_found: 1, preprint_now_published: 2 });
    expect(hint).toContain('not found in the local index or the federated sources');
  }, 60_000);
});

describe('GET /api/references online', () => {
  it.skipIf(pasaMissing)(
    'links an entry the index lacks through the sources, with the same checks, and stores the links',
    async () => {
      const before = hits.length;
      const response = await online.app.inject({
        url: `/api/references?pdf_id=${encodeURIComponent(onlinePdf)}`,
        headers: withKey(online.key),
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as ReferencesResult;
      expect(body.references.length).toBeGreaterThanOrEqual(30);
      const entry = chemistryEntry(body);
      expect(entry?.paper?.doi).toBe('10.1038/s42256-024-00832-8');
      expect(entry?.paper_id).toBe('DOI:10.1038/s42256-024-00832-8');
      expect(entry?.match_confidence).toBeGreaterThan(0.9);
      // PaSa also cites the work's arXiv preprint ("Chemcrow: … arXiv:2304.05376"): linked by its
      // arXiv id to the same record (Semantic Scholar knows the id). The sources answered every other
      // title with nothing: nothing else is linked, and nothing is left pending.
      const linked = body.references.filter((reference) => reference.paper);
      expect(linked.map((reference) => reference.paper?.doi)).toEqual([
        '10.1038/s42256-024-00832-8',
        '10.1038/s42256-024-00832-8',
      ]);
      const chemcrow = body.references.find((reference) => reference.arxiv === '2304.05376');
      expect(chemcrow?.title).toMatch(/^Chemcrow/i);
      expect(chemcrow?.match_confidence).toBe(1);
      // The record the sources gave is kept in the index (as /api/paper keeps it), so whichever entry
      // is linked second may find it there.
      expect(body.hint).toMatch(
        /2 linked \([01] to records of the local index, [12] through the federated sources\)/,
      );
      expect(body.hint).not.toMatch(/ask again/);
      // The entries the index lacks were searched in every source.
      const asked = hits.slice(before);
      for (const source of ['/openalex/works?', '/s2/graph/v1/paper/search?', '/crossref/works?']) {
        expect(asked.filter((url) => url.startsWith(source)).length, source).toBeGreaterThan(20);
      }
      // The links are stored with the index version they leave (the resolver kept the record it
      // resolved in the index), not pending, so the next read does not link the list again.
      const sha = createHash('sha256').update(pasa).digest('hex');
      const stored = await online.container.stores.blobs.get(
        `references/${sha.slice(0, 2)}/${sha}/pdf-r1.json`,
      );
      const saved = JSON.parse(Buffer.from(stored ?? new Uint8Array()).toString('utf8'));
      expect(saved).toMatchObject({
        version: `r1:${await online.container.stores.index.dataVersion()}:online`,
        pending: false,
      });
      expect(saved.links.filter((link: unknown) => link !== null)).toHaveLength(2);
      // A second read asks no source again.
      const again = hits.length;
      const second = await online.app.inject({
        url: `/api/references?pdf_id=${encodeURIComponent(onlinePdf)}`,
        headers: withKey(online.key),
      });
      expect(chemistryEntry(second.json())?.paper?.doi).toBe('10.1038/s42256-024-00832-8');
      expect(hits.length).toBe(again);
    },
    60_000,
  );

  it.skipIf(pasaMissing)('offline, links only to the local index and asks no source', async () => {
    const before = hits.length;
    const response = await offline.app.inject({
      url: `/api/references?pdf_id=${encodeURIComponent(offlinePdf)}`,
      headers: withKey(offline.key),
    });
    expect(response.statusCode).toBe(200);
    const body = response.json() as ReferencesResult;
    expect(chemistryEntry(body)?.paper).toBeNull();
    expect(body.references.filter((reference) => reference.paper)).toHaveLength(0);
    expect(body.hint).toContain('0 linked to records of the local index');
    expect(hits.length).toBe(before);
  });
});

describe('POST /api/verify_references online with a PDF', () => {
  it.skipIf(pasaMissing)(
    'checks a PDF’s list with the sources too',
    async () => {
      const response = await online.app.inject({
        method: 'POST',
        url: '/api/verify_references',
        headers: { ...withKey(online.key), 'content-type': 'application/json' },
        payload: JSON.stringify({ pdf_id: onlinePdf }),
      });
      expect(response.statusCode, response.body).toBe(200);
      const { results } = response.json();
      const entry = results.find((result: { title: string | null }) =>
        /^Augmenting large language models with chemistry tools/.test(result.title ?? ''),
      );
      expect(['exists', 'mismatch']).toContain(entry.status);
      expect(entry.paper.doi).toBe('10.1038/s42256-024-00832-8');
      // Its arXiv citation is a preprint whose published version the sources know.
      const chemcrow = results.find((result: { title: string | null }) =>
        /^Chemcrow/i.test(result.title ?? ''),
      );
      expect(chemcrow.status).toBe('preprint_now_published');
      expect(chemcrow.published.doi).toBe('10.1038/s42256-024-00832-8');
      const offlineCheck = await offline.app.inject({
        method: 'POST',
        url: '/api/verify_references',
        headers: { ...withKey(offline.key), 'content-type': 'application/json' },
        payload: JSON.stringify({ pdf_id: offlinePdf }),
      });
      expect(offlineCheck.json().counts.not_found).toBe(offlineCheck.json().results.length);
    },
    60_000,
  );
});
