import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { findFormat } from '../src/ingest/formats/index.js';
import type { FormatReader } from '../src/ingest/ingest-item.js';
import type { BenchReport, BenchRow } from './lib/report.js';

const data = join(import.meta.dirname, '..', '..', 'shared', 'data');
const fixtures = join(import.meta.dirname, '..', 'src', 'ingest', 'formats', '__fixtures__');

function text(path: string): string {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** Bodies of recorded 200 responses whose uri matches. */
function recorded(api: string, uri: RegExp): string[] {
  return text(join(data, 'upstream', api, 'interactions.jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { uri: string; status: number; body: string | null })
    .filter((interaction) => interaction.status === 200 && interaction.body && uri.test(interaction.uri))
    .map((interaction) => interaction.body as string);
}

/** The text repeated until it is at least `minimum` characters (real records, replicated). */
function grow(unit: string, minimum: number, separator = '\n'): string {
  const copies = Math.max(1, Math.ceil(minimum / unit.length));
  return Array.from({ length: copies }, () => unit).join(separator);
}

/** 64 KiB chunks of the text, as a decompressed file arrives in the pipeline. */
async function* chunks(body: string): AsyncGenerator<string> {
  for (let start = 0; start < body.length; start += 65_536) yield body.slice(start, start + 65_536);
}

async function measure(
  reader: FormatReader,
  body: string,
): Promise<{ records: number; seconds: number; cpuSeconds: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let records = 0;
  for await (const item of reader(chunks(body))) if (item.ok) records += 1;
  const used = process.cpuUsage(cpu);
  return {
    records,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

/** Baseline for line formats: splitting the same text into lines and `JSON.parse` of each, nothing else. */
function jsonParseBaseline(body: string): { records: number; seconds: number; cpuSeconds: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let records = 0;
  for (const line of body.split('\n')) {
    if (line.length > 0) {
      JSON.parse(line);
      records += 1;
    }
  }
  const used = process.cpuUsage(cpu);
  return {
    records,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

/**
 * Records/s of every format reader on real data (decompressed in memory, so disk and gzip are out):
 * the corpora as they are, and recorded API responses, PubMed efetch articles and USPTO documents
 * replicated to a few MB; each measured warm (second pass). Baseline, same run: `JSON.parse` per line of the same JSONL (the floor of
 * any JSONL reader). Goal: the JSONL path reads tens of thousands of records/s.
 */
export async function ingestFormatsBench(options: { quick: boolean }): Promise<BenchReport> {
  const size = options.quick ? 4_000_000 : 20_000_000;
  const acl = text(join(data, 'corpus/acl_anthology_2016_2022.jsonl.gz'));
  const pubmed = text(join(data, 'upstream/pubmed_eutils/responses/biopython/pubmed5.xml'));
  const pubmedArticle = pubmed.slice(
    pubmed.indexOf('<PubmedArticle>'),
    pubmed.indexOf('</PubmedArticleSet>'),
  );
  const usptoDocuments = ['xml2006/US07272630B2.xml', 'sgml/US06336130.xml', 'pap/US20010009014A1.xml']
    .map((file) => text(join(data, 'patents/uspto_xml', file)))
    .join('\n');
  const openAlexWorks = recorded('openalex', /api\.openalex\.org\/works\/https/)
    .filter((body) => body.includes('"authorships"'))
    .map((body) => JSON.stringify(JSON.parse(body)))
    .join('\n');
  const crossrefPages = recorded('crossref', /api\.crossref\.org\/works\?/)
    .filter((body) => body.includes('"work-list"'))
    .map((body) => JSON.stringify(JSON.parse(body)))
    .join('\n');
  const cases: { format: string; subject: string; body: string }[] = [
    { format: 'jsonl', subject: 'jsonl: ACL Anthology corpus (27,119 records)', body: acl },
    {
      format: 'jsonl',
      subject: 'jsonl: ML Anthology corpus',
      body: text(join(data, 'corpus/mlanthology_2024.jsonl.gz')),
    },
    {
      format: 'beir',
      subject: 'beir: SciFact corpus',
      body: text(join(data, 'eval/scifact/corpus.jsonl.gz')),
    },
    { format: 'openalex', subject: 'openalex: recorded works, replicated', body: grow(openAlexWorks, size) },
    {
      format: 'crossref',
      subject: 'crossref: recorded list pages, replicated',
      body: grow(crossrefPages, size),
    },
    {
      format: 'pubmed',
      subject: 'pubmed: efetch article, replicated',
      body: `<PubmedArticleSet>${grow(pubmedArticle, size)}</PubmedArticleSet>`,
    },
    {
      format: 'uspto',
      subject: 'uspto: 3 grant/application documents, replicated',
      body: grow(usptoDocuments, size),
    },
    {
      format: 'bibtex',
      subject: 'bibtex: fixture entries, replicated',
      body: grow(text(join(fixtures, 'references.bib')), size / 8),
    },
    {
      format: 'ris',
      subject: 'ris: fixture records, replicated',
      body: grow(text(join(fixtures, 'references.ris')), size / 8),
    },
  ];
  const rows: BenchRow[] = [];
  let aclRate = 0;
  let aclCpuRate = 0;
  let baselineCpuRate = 0;
  for (const [index, benchCase] of cases.entries()) {
    const format = findFormat(benchCase.format);
    if (!format) throw new Error(`no format ${benchCase.format}`);
    // The first pass warms the JIT up; the second is reported.
    await measure(format.read, benchCase.body);
    const result = await measure(format.read, benchCase.body);
    const rate = result.records / result.seconds;
    rows.push({
      subject: benchCase.subject,
      metrics: {
        records: result.records,
        MB: benchCase.body.length / 1e6,
        'records/s': rate,
        'records/cpu-s': result.records / result.cpuSeconds,
        'MB/s': benchCase.body.length / 1e6 / result.seconds,
      },
    });
    if (index === 0) {
      aclRate = rate;
      aclCpuRate = result.records / result.cpuSeconds;
      const baseline = jsonParseBaseline(benchCase.body);
      baselineCpuRate = baseline.records / baseline.cpuSeconds;
      rows.push({
        subject: 'baseline: JSON.parse per line, same ACL text',
        metrics: {
          records: baseline.records,
          MB: benchCase.body.length / 1e6,
          'records/s': baseline.records / baseline.seconds,
          'records/cpu-s': baselineCpuRate,
          'MB/s': benchCase.body.length / 1e6 / baseline.seconds,
        },
      });
    }
  }
  return {
    name: 'ingest-formats',
    rows,
    // CPU-time rates: the machine is shared, so wall-clock rates move with other people's load.
    summary: [
      `jsonl reader vs JSON.parse alone (CPU time): ${(aclCpuRate / baselineCpuRate).toFixed(2)}× of the floor`,
      `jsonl reader: ${Math.round(aclCpuRate)} records per CPU-second, ${Math.round(aclRate)} records/s wall (goal ≥ 20000 per CPU-second: ${aclCpuRate >= 20_000 ? 'met' : 'NOT met'})`,
    ],
  };
}
