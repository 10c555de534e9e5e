import { normalizeTitle } from '../../domain/identifiers.js';
import { identityKeys, type Paper, type PaperIdentifiers } from '../../domain/paper.js';
import { isPeerReviewed } from '../../domain/peer-review.js';

/** A record as one list (the local index or a source) returned it, with its 1-based rank there. */
export interface Candidate {
  paper: Paper;
  /** Name of the list: `index` for the local index, else the source name. */
  list: string;
  rank: number;
  /** Relevance score the list gave (local BM25, higher is better), when it has one. */
  score?: number;
}

/** Which record's fields win when records of the same paper disagree: the local index first. */
const metadataPreference = [
  'index',
  'openalex',
  'semantic_scholar',
  'crossref',
  'europepmc',
  'pubmed',
  'arxiv',
  'patentsview',
  'unpaywall',
];
/** Where an open PDF is most likely to be directly readable. */
const pdfPreference = ['index', 'arxiv', 'europepmc', 'openalex', 'unpaywall', 'semantic_scholar'];

function preferenceIndex(order: string[], list: string): number {
  const index = order.indexOf(list);
  return index === -1 ? order.length : index;
}

/**
 * Groups candidates that are the same paper: any shared strong identifier (DOI, arXiv, PMID,
 * PMCID, S2, corpus, ACL, MAG, OpenAlex, patent number) joins them; then groups with the same
 * normalised title and year join too, unless both carry DOIs and none is shared (two editions).
 */
export function groupCandidates(candidates: Candidate[]): Candidate[][] {
  const parent = candidates.map((_, index) => index);
  const find = (index: number): number => {
    let root = index;
    while (parent[root] !== root) root = parent[root] as number;
    parent[index] = root;
    return root;
  };
  const keysOf = candidates.map((candidate) => {
    const keys = identityKeys(candidate.paper);
    // Patent records may carry their number only at the top level.
    const number = candidate.paper.patent_number?.toUpperCase();
    if (number && !keys.includes(`patent:${number}`)) keys.unshift(`patent:${number}`);
    return keys;
  });
  const owner = new Map<string, number>();
  keysOf.forEach((keys, index) => {
    for (const key of keys) {
      if (key.startsWith('title:')) continue;
      const seen = owner.get(key);
      if (seen === undefined) owner.set(key, index);
      else parent[find(index)] = find(seen);
    }
  });
  const doisOf = new Map<number, Set<string>>();
  keysOf.forEach((keys, index) => {
    const root = find(index);
    const dois = doisOf.get(root) ?? new Set<string>();
    for (const key of keys) if (key.startsWith('doi:')) dois.add(key);
    doisOf.set(root, dois);
  });
  const titleOwner = new Map<string, number>();
  keysOf.forEach((keys, index) => {
    const titleKey = keys.find((key) => key.startsWith('title:'));
    // Very short titles ("Introduction", "Editorial") are too common to identify a paper.
    if (!titleKey || titleKey.split(' ').length < 3) return;
    const root = find(index);
    const other = titleOwner.get(titleKey);
    if (other === undefined) {
      titleOwner.set(titleKey, root);
      return;
    }
    const otherRoot = find(other);
    if (otherRoot === root) return;
    const mine = doisOf.get(root) ?? new Set();
    const theirs = doisOf.get(otherRoot) ?? new Set();
    const conflict = mine.size > 0 && theirs.size > 0 && ![...mine].some((doi) => theirs.has(doi));
    if (conflict) return;
    parent[root] = otherRoot;
    doisOf.set(otherRoot, new Set([...theirs, ...mine]));
  });
  const groups = new Map<number, Candidate[]>();
  candidates.forEach((candidate, index) => {
    const root = find(index);
    const group = groups.get(root) ?? [];
    group.push(candidate);
    groups.set(root, group);
  });
  return [...groups.values()];
}

/**
 * One record from several records of the same paper: metadata from the most trusted list, the best
 * `cited_by_count`, every identifier, `ss_id`, the most readable open PDF (`pdf_id: PDF_URL:…`),
 * and a reviewed type when any version was reviewed.
 */
export function mergeRecords(group: Candidate[]): Paper {
  const byMetadata = [...group].sort(
    (a, b) => preferenceIndex(metadataPreference, a.list) - preferenceIndex(metadataPreference, b.list),
  );
  const papers = byMetadata.map((candidate) => candidate.paper);
  const primary = papers[0] as Paper;
  if (papers.length === 1) return primary;
  const firstOf = <K extends keyof Paper>(key: K): Paper[K] | undefined =>
    papers.find((paper) => paper[key] !== null && paper[key] !== undefined && paper[key] !== '')?.[key];
  const identifiers: Record<string, string> = {};
  for (const paper of papers) {
    for (const [key, value] of Object.entries(paper.identifiers ?? {})) {
      if (value && identifiers[key] === undefined) identifiers[key] = value;
    }
  }
  const dois = papers.map((paper) => paper.doi).filter((doi): doi is string => Boolean(doi));
  const doi = dois.find((candidate) => !candidate.startsWith('10.48550/')) ?? dois[0] ?? null;
  if (doi) identifiers.doi = doi;
  const counts = papers
    .map((paper) => paper.cited_by_count)
    .filter((count): count is number => count !== null);
  const byPdf = [...group]
    .filter((candidate) => candidate.paper.pdf_url)
    .sort((a, b) => preferenceIndex(pdfPreference, a.list) - preferenceIndex(pdfPreference, b.list));
  const pdfUrl = byPdf[0]?.paper.pdf_url ?? null;
  const localPdfId = group.find((candidate) => candidate.list === 'index' && candidate.paper.pdf_id)?.paper
    .pdf_id;
  const types = papers.map((paper) => paper.type).filter((type): type is string => Boolean(type));
  const withAuthors = papers.find((paper) => paper.authors.length > 0);
  // Reference-file fields (0049) field by field; the names in parts only with the names they split.
  const bibliographic: Record<string, unknown> = {};
  for (const paper of papers) {
    for (const [key, value] of Object.entries(paper.bibliographic ?? {})) {
      if (key === 'author_names' && paper !== withAuthors) continue;
      if (value !== null && value !== undefined && bibliographic[key] === undefined)
        bibliographic[key] = value;
    }
  }
  const merged: Paper = {
    ...primary,
    title: primary.title || (firstOf('title') ?? ''),
    authors: withAuthors?.authors ?? [],
    abstract: firstOf('abstract') ?? null,
    publication_date: firstOf('publication_date') ?? null,
    year: firstOf('year') ?? null,
    cited_by_count: counts.length > 0 ? Math.max(...counts) : null,
    url: firstOf('url') ?? null,
    landing_page_url: firstOf('landing_page_url') ?? null,
    venue: firstOf('venue') ?? null,
    ss_id: firstOf('ss_id') ?? null,
    doi,
    type: types.find((type) => isPeerReviewed({ type })) ?? types[0] ?? null,
    pdf_url: pdfUrl,
    identifiers: identifiers as PaperIdentifiers,
    source: [...new Set(byMetadata.map((candidate) => candidate.paper.source ?? candidate.list))].join('+'),
  };
  if (Object.keys(bibliographic).length > 0) merged.bibliographic = bibliographic as Paper['bibliographic'];
  else delete merged.bibliographic;
  if (localPdfId) merged.pdf_id = localPdfId;
  else if (pdfUrl) merged.pdf_id = `PDF_URL:${pdfUrl}`;
  else delete merged.pdf_id;
  return merged;
}

/** Whether two records look like the same paper by title alone (used to drop self-matches). */
export function sameTitle(a: Paper, b: Paper): boolean {
  return normalizeTitle(a.title) === normalizeTitle(b.title);
}
