import type { CslItem, CslName } from '@citation-js/core';

/**
 * What citation-js's RIS reader leaves out, read from the tags themselves (decision 0049): editors
 * (`ED`, and `A2` of a chapter or conference paper), a journal article's publisher (`PB`), a
 * conference paper's proceedings (`T2`) and an arXiv accession number (`AN  - arXiv:…`). Filled
 * only where citation-js found nothing.
 */

type Tags = Map<string, string[]>;

/** The tags of each record (`TY` … `ER`), in file order, values trimmed. */
export function risRecordTags(text: string): Tags[] {
  const records: Tags[] = [];
  let current: Tags | null = null;
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Z][A-Z0-9]) {2}-(?: (.*))?$/.exec(line.replace(/^\uFEFF/, ''));
    if (!match) continue;
    const [, tag = '', value = ''] = match;
    if (tag === 'TY') current = new Map();
    if (!current) continue;
    if (tag === 'ER') {
      records.push(current);
      current = null;
      continue;
    }
    const trimmed = value.trim();
    if (trimmed) current.set(tag, [...(current.get(tag) ?? []), trimmed]);
  }
  return records;
}

function risName(value: string): CslName {
  const [family = '', given, suffix] = value.split(',').map((part) => part.trim());
  if (given === undefined) return { literal: family };
  return { family, given, ...(suffix ? { suffix } : {}) };
}

/** `item` with what its record's tags carry and citation-js did not read. */
export function withRisTags(item: CslItem, tags: Tags | undefined): CslItem {
  if (!tags) return item;
  const first = (...keys: string[]) => keys.map((key) => tags.get(key)?.[0]).find(Boolean);
  const filled: CslItem & { editor?: CslName[] } = { ...item };
  const type = tags.get('TY')?.[0];
  const editors = [
    ...(tags.get('ED') ?? []),
    ...(type === 'CHAP' || type === 'CONF' ? (tags.get('A2') ?? []) : []),
  ];
  const current = (item as { editor?: unknown }).editor;
  if (editors.length > 0 && !(Array.isArray(current) && current.length > 0))
    filled.editor = editors.map(risName);
  if (!filled.publisher) {
    const publisher = first('PB');
    if (publisher) filled.publisher = publisher;
  }
  if (!filled['container-title']) {
    const container = first('T2', 'JO', 'JF', 'BT');
    if (container) filled['container-title'] = container;
  }
  if (!filled.number) {
    const accession = first('AN');
    if (accession && /^arXiv:/i.test(accession)) filled.number = accession;
  }
  return filled;
}
