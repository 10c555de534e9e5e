import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tinyPdf } from '../fakes/tiny-pdf.js';
import { connectMcp, toolText } from './mcp-client.js';
import { finished, serverListening } from './server-process.js';

/**
 * Starts `alexandria <args>` as a child process with `env` added to the environment (stdout and
 * stderr piped). Each caller decides which `alexandria` and which Node: the repository's bin, or a
 * copy installed with `npm install -g` run by another Node.
 */
export type LaunchCli = (args: string[], env: Record<string, string>) => ChildProcess;

/** Three records of a BibTeX dump, in our own words; the second is the one searched for. */
const bibtex = `@article{okafor2021delta,
  title = {Sediment Budgets of Tide-Dominated River Deltas},
  author = {Okafor, Ada and Lindqvist, Per},
  journal = {Journal of Coastal Studies},
  year = {2021},
  abstract = {We compare sediment budgets of six tide-dominated deltas over two decades of survey data.},
}
@article{moreau2019bees,
  title = {Optic Flow Odometry in Foraging Honeybees},
  author = {Moreau, Claire and Tanaka, Ren},
  journal = {Animal Navigation},
  year = {2019},
  abstract = {Honeybees judge how far they have flown from the image motion they see, not from the energy they spend.},
}
@article{haddad2020glacier,
  title = {Meltwater Pulses from Retreating Alpine Glaciers},
  author = {Haddad, Samir},
  journal = {Cryosphere Letters},
  year = {2020},
  abstract = {Summer meltwater pulses grew as four alpine glaciers retreated.},
}
`;

/** A four-page PDF, one subject per page; page 2 holds the answer to the question asked of it. */
const fieldNotes = [
  [
    'Field notes on four natural systems',
    'River deltas grow where a river drops its sediment faster than waves and tides remove it.',
    'Tide-dominated deltas form long channels lined with mud flats and mangrove forests.',
    'Dams upstream starve a delta of sand, and its shoreline then retreats year after year.',
    'Where the sea level rises faster than sediment arrives, the delta plain drowns slowly.',
    'Engineers now open gates in levees so that floods can spread mud over sinking marshes.',
    'Surveys by boat and by satellite track how far the coastline moves after each season.',
    'Fishing villages on a delta depend on the same channels that carry the sediment seaward.',
  ],
  [
    'Honeybee navigation',
    'A forager returning to the hive reports the direction of a food source with its waggle dance.',
    'Honeybees measure the distance to a food source by the optic flow they experience in flight.',
    'Bees trained in a narrow patterned tunnel overestimate distance because the image moves fast.',
    'The duration of the waggle run grows with the distance the dancer believes it has flown.',
    'Recruits that follow the dance search near the indicated place and then rely on scent.',
    'On cloudy days foragers still keep their heading from the polarised light of the sky.',
    'Colonies moved to an unfamiliar landscape relearn their landmarks within a few days.',
  ],
  [
    'Alpine glaciers',
    'Alpine glaciers lose mass when summer melting exceeds the snowfall of the previous winter.',
    'Meltwater from a retreating glacier first swells the river, then dwindles as the ice disappears.',
    'Debris that covers the lower tongue of a glacier insulates the ice and slows its melting.',
    'Lakes dammed by moraines may burst and send floods down valleys that were long considered safe.',
    'Stakes drilled into the ice each spring show how many metres of it melt by the autumn.',
    'Photographs from a century ago let researchers compare the extent of the ice with today.',
  ],
  [
    'Volcanic soils',
    'Soils formed on volcanic ash hold water well and are rich in phosphorus bound to minerals.',
    'Farmers on the slopes of active volcanoes accept the risk for the fertility of the ground.',
    'Fresh ash falls can bury crops, yet within a few years the same fields yield more than before.',
    'Coffee and tea plantations thrive on the weathered ash of old eruptions in the tropics.',
    'Heavy rain on loose ash triggers mudflows that follow river valleys far from the crater.',
  ],
];

/**
 * What a person does with a fresh install, through the command line and the HTTP service it
 * starts, in `root` (an empty folder): ingests a BibTeX dump into the search index and a PDF into
 * the default project, serves, searches the index, reads the PDF's first chunk, asks the PDF a
 * question (the real embedding model ranks the passages), asks it again over MCP, and stops the
 * server with SIGTERM. Asserts each step; `children` collects the processes for the caller to kill.
 */
export async function cliJourney(
  launch: LaunchCli,
  root: string,
  children: Set<ChildProcess>,
): Promise<void> {
  const start = (args: string[], env: Record<string, string> = {}) => {
    const child = launch(args, {
      ALEXANDRIA_DATA_DIR: join(root, 'data'),
      ALEXANDRIA_HOST: '127.0.0.1',
      ALEXANDRIA_PORT: '0',
      ALEXANDRIA_LOG_LEVEL: 'warn',
      ...env,
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  await writeFile(join(root, 'records.bib'), bibtex);
  await mkdir(join(root, 'pdfs'));
  await writeFile(
    join(root, 'pdfs', 'field-notes.pdf'),
    tinyPdf(fieldNotes, 'Field notes on four natural systems'),
  );

  const version = await finished(start(['--version']));
  expect(version.stdout.trim(), version.stderr).toMatch(/^\d+\.\d+\.\d+$/);
  const records = await finished(start(['ingest', join(root, 'records.bib')]));
  expect(records.code, records.stderr).toBe(0);
  expect(records.stdout).toContain('bibtex, 3 records, 0 rejected');
  const pdfs = await finished(start(['ingest', join(root, 'pdfs')]));
  expect(pdfs.code, pdfs.stderr).toBe(0);
  expect(pdfs.stdout).toMatch(/Filed 1 PDF .*: 1 added, 0 unchanged, 0 failed\./);

  const key = 'journey-key-0123456789abcdef';
  const server = start(['serve'], { ALEXANDRIA_API_KEYS: `default:${key}` });
  const { url } = await serverListening(server);
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return response.json() as Promise<unknown>;
  };
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  const page = await fetch(`${url}/`);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(await page.text()).toContain('<script');

  const found = (await get(`/api/abstracts?query=${encodeURIComponent('honeybee optic flow')}`)) as Array<{
    title: string;
  }>;
  expect(found[0]?.title).toBe('Optic Flow Odometry in Foraging Honeybees');

  const project = (await get('/api/projects/gpt')) as { papers: Array<{ title: string; pdf_id: string }> };
  expect(project.papers.map((paper) => paper.title)).toEqual(['Field notes on four natural systems']);
  const pdfId = encodeURIComponent(project.papers[0]?.pdf_id ?? '');
  const text = (await get(`/api/fulltext?pdf_id=${pdfId}&chunk=1`)) as { chunks: Array<{ chunk: string }> };
  expect(text.chunks[0]?.chunk).toContain('River deltas grow where a river drops its sediment');

  const question = 'How do bees judge how far away the food is?';
  const answer = (await get(`/api/question?pdf_id=${pdfId}&question=${encodeURIComponent(question)}`)) as {
    chunks: Array<{ passage?: { text: string; pages: number[] } }>;
  };
  expect(answer.chunks[0]?.passage?.text).toContain('optic flow');
  expect(answer.chunks[0]?.passage?.pages).toContain(2);
  expect(answer.chunks[0]?.passage?.text).not.toContain('volcanic');

  const mcp = await connectMcp(url, key, 'cli-journey');
  try {
    const asked = await mcp.callTool({
      name: 'ask_pdf',
      arguments: { pdf_id: project.papers[0]?.pdf_id, question },
    });
    expect(toolText(asked)).toContain('optic flow');
  } finally {
    await mcp.close();
  }

  server.kill('SIGTERM');
  expect(await new Promise((resolve) => server.once('exit', resolve))).toBe(0);
}
