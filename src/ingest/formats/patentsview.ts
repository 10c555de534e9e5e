import type { FormatReader, IngestItem } from '../ingest-item.js';
import { buildPaper, cleanText, normalizeDate, toInteger } from './paper-builder.js';
import { type CompanionRows, CompanionTable } from './patentsview-companion.js';
import { readTsvRows } from './tsv-rows.js';
import { patentNumber } from './uspto-xml.js';

type Input = AsyncIterable<string | Uint8Array>;

/** Optional tables read with the patent table (PatentsView's `g_*` bulk downloads). */
export interface PatentsViewCompanions {
  /** `g_inventor_disambiguated.tsv`: inventors, in `inventor_sequence` order. */
  inventors?: Input;
  /** `g_assignee_disambiguated.tsv`: organisations or individual assignees. */
  assignees?: Input;
  /** `g_patent_abstract.tsv`: abstracts (newer releases keep them out of `g_patent.tsv`). */
  abstracts?: Input;
  /** `g_application.tsv`: filing dates. */
  applications?: Input;
}

/** File names of the companion tables next to a patent table, by role. */
export const patentsViewCompanionFiles: Record<keyof PatentsViewCompanions, string> = {
  inventors: 'g_inventor_disambiguated.tsv',
  assignees: 'g_assignee_disambiguated.tsv',
  abstracts: 'g_patent_abstract.tsv',
  applications: 'g_application.tsv',
};

/** Which PatentsView table a header row belongs to. */
export function patentsViewTable(header: string[]): 'patents' | keyof PatentsViewCompanions | null {
  const has = (column: string) => header.includes(column);
  if (has('patent_title') || (has('title') && (has('number') || has('patent_id')))) return 'patents';
  if (has('disambig_inventor_name_last') || has('inventor_name_last')) return 'inventors';
  if (has('disambig_assignee_organization') || has('assignee_organization')) return 'assignees';
  if (has('patent_abstract') && has('patent_id')) return 'abstracts';
  if (has('filing_date') && has('patent_id')) return 'applications';
  return null;
}

/** Reads `g_patent.tsv` alone (the registry's reader; see `readPatentsView` for the companions). */
export const readPatentsViewTable: FormatReader = (input) => readPatentsView(input, {});

/**
 * PatentsView granted-patent tables (TSV as published: a header row, `csv.QUOTE_NONNUMERIC`
 * quoting). The patent table gives number, type, date, title, kind (and the abstract in releases
 * before 2023); the companion tables, joined by `patent_id` in one streaming pass, add inventors,
 * assignees, abstracts and filing dates. Withdrawn patents are rejected.
 */
export async function* readPatentsView(
  input: Input,
  companions: PatentsViewCompanions,
): AsyncGenerator<IngestItem> {
  const rows = readTsvRows(input)[Symbol.asyncIterator]();
  const first = await rows.next();
  if (first.done) return;
  const header = first.value.fields.map((column) => column.trim());
  const table = patentsViewTable(header);
  if (table !== 'patents') {
    const what = table ? `the PatentsView ${table} table` : 'not a PatentsView patent table';
    yield {
      ok: false,
      reason: `${what}: ingest g_patent.tsv, which reads its companion tables`,
      location: 'line 1',
    };
    return;
  }
  const joined = await openCompanions(companions);
  for (;;) {
    const next = await rows.next();
    if (next.done) break;
    const location = `line ${next.value.line}`;
    const row = Object.fromEntries(header.map((column, index) => [column, next.value.fields[index] ?? '']));
    if (next.value.fields.length !== header.length) {
      yield {
        ok: false,
        reason: `row has ${next.value.fields.length} fields, the header ${header.length}`,
        location,
      };
      continue;
    }
    yield await mapPatent(row, joined, location);
  }
}

async function openCompanions(
  companions: PatentsViewCompanions,
): Promise<Partial<Record<keyof PatentsViewCompanions, CompanionTable>>> {
  const tables: Partial<Record<keyof PatentsViewCompanions, CompanionTable>> = {};
  for (const [role, input] of Object.entries(companions) as [
    keyof PatentsViewCompanions,
    Input | undefined,
  ][]) {
    if (!input) continue;
    const rows = readTsvRows(input)[Symbol.asyncIterator]();
    const header = await rows.next();
    if (!header.done)
      tables[role] = new CompanionTable(
        rows,
        header.value.fields.map((column) => column.trim()),
      );
  }
  return tables;
}

async function mapPatent(
  row: Record<string, string>,
  companions: Partial<Record<keyof PatentsViewCompanions, CompanionTable>>,
  location: string,
): Promise<IngestItem> {
  const id = cleanText(row.patent_id) ?? cleanText(row.number) ?? cleanText(row.id);
  if (!id) return { ok: false, reason: 'row has no patent_id', location };
  const [inventors, assignees, abstracts, applications] = await Promise.all([
    companions.inventors?.take(id) ?? [],
    companions.assignees?.take(id) ?? [],
    companions.abstracts?.take(id) ?? [],
    companions.applications?.take(id) ?? [],
  ]);
  if (row.withdrawn === '1' || row.withdrawn?.toLowerCase() === 'true') {
    return { ok: false, reason: `patent ${id} was withdrawn`, location };
  }
  const number = patentNumber('US', id);
  const kind = cleanText(row.wipo_kind) ?? cleanText(row.kind);
  const paper = buildPaper(
    {
      title: cleanText(row.patent_title) ?? cleanText(row.title),
      authors: sequenceOrder(inventors, 'inventor_sequence').map(inventorName),
      abstract:
        cleanText(row.patent_abstract) ?? cleanText(row.abstract) ?? cleanText(abstracts[0]?.patent_abstract),
      publication_date: normalizeDate(row.patent_date ?? row.date),
      venue: 'USPTO',
      type: 'patent',
      url: `https://patents.google.com/patent/${number}${kind ?? ''}`,
      identifiers: { patent_number: number },
      patent_number: number,
      kind,
      filing_date: normalizeDate(applications[0]?.filing_date),
      assignees: sequenceOrder(assignees, 'assignee_sequence')
        .map(assigneeName)
        .filter((name): name is string => name !== null),
    },
    { source: 'patentsview' },
  );
  return typeof paper === 'string'
    ? { ok: false, reason: `patent ${id}: ${paper}`, location }
    : { ok: true, paper, location };
}

function sequenceOrder(rows: CompanionRows, column: string): CompanionRows {
  return [...rows].sort((a, b) => (toInteger(a[column]) ?? 0) - (toInteger(b[column]) ?? 0));
}

function inventorName(row: Record<string, string>): string | null {
  const first = row.disambig_inventor_name_first ?? row.inventor_name_first ?? '';
  const last = row.disambig_inventor_name_last ?? row.inventor_name_last ?? '';
  return cleanText(`${first} ${last}`);
}

function assigneeName(row: Record<string, string>): string | null {
  const organisation = cleanText(row.disambig_assignee_organization) ?? cleanText(row.assignee_organization);
  if (organisation) return organisation;
  return cleanText(
    `${row.disambig_assignee_individual_name_first ?? ''} ${row.disambig_assignee_individual_name_last ?? ''}`,
  );
}
