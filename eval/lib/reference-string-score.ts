import type { GoldReference } from './anystyle-gold.js';

/** The six scored fields of decision 0048. */
export const scoredFields = ['author', 'title', 'year', 'container', 'volume', 'pages'] as const;
export type ScoredField = (typeof scoredFields)[number];
export type FieldValues = Record<ScoredField, string | null>;

/** Letters and digits, lower case, accents removed, words kept apart by one space. */
function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The normalised form both sides are compared in (decision 0048, "Comparison"). */
export function normalise(field: ScoredField, text: string | null): string {
  if (!text) return '';
  let list = words(text);
  if (field === 'author') list = list.filter((word) => !['and', 'et', 'al', 'others'].includes(word));
  if ((field === 'title' || field === 'container') && list[0] === 'in') list = list.slice(1);
  if (field === 'volume' && (list[0] === 'vol' || list[0] === 'volume')) list = list.slice(1);
  if (field === 'pages' && (list[0] === 'pp' || list[0] === 'p' || list[0] === 'pages')) list = list.slice(1);
  if (field === 'year') return /\b(1[5-9]\d\d|20\d\d)/.exec(list.join(' '))?.[1] ?? '';
  return list.join('');
}

/** The gold values of a labelled reference: the first span of each field's label. */
export function goldValues(reference: GoldReference): FieldValues {
  const first = (...labels: string[]) =>
    labels.map((label) => reference.spans.find((span) => span.label === label)?.text).find(Boolean) ?? null;
  return {
    author: first('author'),
    title: first('title'),
    year: first('date'),
    container: first('journal', 'container-title'),
    volume: first('volume'),
    pages: first('pages'),
  };
}

/** Whether each field of `predicted` matches `gold` after normalisation. */
export function fieldHits(gold: FieldValues, predicted: FieldValues): Record<ScoredField, boolean> {
  return Object.fromEntries(
    scoredFields.map((field) => [
      field,
      normalise(field, gold[field]) === normalise(field, predicted[field]),
    ]),
  ) as Record<ScoredField, boolean>;
}
