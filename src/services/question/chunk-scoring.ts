import type { Passage } from './passages.js';

/** What a section heading says the section is. */
export type SectionKind =
  | 'front' // abstract, introduction
  | 'background' // related work, background, previous work
  | 'methods' // method, approach, model, data, setup
  | 'results' // results, experiments, evaluation, analysis, discussion
  | 'closing' // conclusion, summary, future work, limitations
  | 'back' // acknowledgements, funding, contributions, competing interests, ethics
  | 'references' // the reference list
  | 'other'; // a heading that names none of these, or no heading

/**
 * How passage scores become chunk scores (after fusion; every step is scale-free, so it applies to
 * fused, BM25 or dense scores alike).
 */
export interface ChunkScoring {
  /**
   * Passage windows: a passage's score plus this share of the better of its two neighbours in the
   * same chunk (an answer often sits just after the sentence that names the question's terms). 0 = off.
   */
  neighbourWeight: number;
  /** A chunk scores as its best passage plus this share of its second best. 0 = the best passage alone. */
  secondWeight: number;
  /** Factors on a passage's score by its section kind (absent = 1). */
  sectionPriors: Partial<Record<SectionKind, number>>;
  /** The reference list is never ranked above any other passage (unless the document is nothing else). */
  excludeReferences: boolean;
}

/**
 * The service's chunk scoring, chosen by measurement (`npm run eval -- reader-qa pdf-qa`;
 * docs/decisions/0012-question-ranking.md): the introduction, abstract and related work count 0.85
 * of their score and the conclusion 0.925 (they restate what the body says, and readers' questions
 * match their summaries), the reference list is never ranked; no passage windows, a chunk scores as
 * its best passage.
 */
export const defaultChunkScoring: ChunkScoring = {
  neighbourWeight: 0,
  secondWeight: 0,
  sectionPriors: { front: 0.85, background: 0.85, closing: 0.925 },
  excludeReferences: true,
};

/** The section heading in front of a passage (`splitPassages` puts it on the passage's first line). */
export function passageHeading(passage: Passage): string | undefined {
  const newline = passage.text.indexOf('\n');
  return newline > 0 ? passage.text.slice(0, newline) : undefined;
}

const kinds: Array<[SectionKind, RegExp]> = [
  ['references', /^(references?|bibliography|literature cited|works cited|citations)$/],
  [
    'back',
    /^(acknowledge?ments?|funding|author contributions?|competing interests?|conflicts? of interests?|ethics statement|declarations?|data availability|availability of data and materials)\b/,
  ],
  ['front', /\b(abstract|introduction|overview|motivation)\b/],
  ['background', /\b(related works?|background|previous works?|prior works?|literature review)\b/],
  ['closing', /\b(conclusions?|concluding remarks|summary|future work|limitations?)\b/],
  [
    'results',
    /\b(results?|experiments?|experimental|evaluations?|analysis|analyses|discussion|findings|ablations?|performance|error analysis|case study)\b/,
  ],
  [
    'methods',
    /\b(methods?|methodology|approach|models?|datasets?|data|materials|implementation|setup|architecture|procedures?|design)\b/,
  ],
];

/**
 * The kind of a section from its heading: numbering dropped, lower case; a nested heading
 * ("Experiments — Dataset") is read from its last part, then its first.
 */
export function sectionKind(heading: string | undefined): SectionKind {
  if (!heading) return 'other';
  const parts = heading.split(' — ').map((part) =>
    part
      .toLowerCase()
      .replace(/^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[ivx]{1,5}\.|[a-h]\.)\s+/, '')
      .replace(/[:.]\s*$/, '')
      .trim(),
  );
  for (const part of [parts[parts.length - 1], parts[0]]) {
    if (!part) continue;
    for (const [kind, pattern] of kinds) if (pattern.test(part)) return kind;
  }
  return 'other';
}

// A prepared document keeps its passage array for every question: its kinds are read once.
const kindsOf = new WeakMap<readonly Passage[], SectionKind[]>();

function sectionKinds(passages: readonly Passage[]): SectionKind[] {
  let cached = kindsOf.get(passages);
  if (!cached) {
    cached = passages.map((passage) => sectionKind(passageHeading(passage)));
    kindsOf.set(passages, cached);
  }
  return cached;
}

/**
 * Per-passage scores after section priors and windows, then one score per chunk (its best
 * passage, plus `secondWeight` × its second best) with the index of that best passage.
 */
export function scoreChunks(
  passages: readonly Passage[],
  fused: Float32Array,
  scoring: ChunkScoring = defaultChunkScoring,
): Map<number, { score: number; passage: number }> {
  const adjusted = Float64Array.from(fused);
  const priors = scoring.sectionPriors;
  const hasPriors = Object.keys(priors).length > 0;
  const references = new Uint8Array(passages.length);
  if (hasPriors || scoring.excludeReferences) {
    const sections = sectionKinds(passages);
    passages.forEach((_, index) => {
      const kind = sections[index] as SectionKind;
      if (kind === 'references') references[index] = 1;
      const factor = priors[kind];
      if (factor !== undefined) adjusted[index] = (adjusted[index] as number) * factor;
    });
  }
  if (scoring.neighbourWeight > 0) {
    const base = Float64Array.from(adjusted);
    passages.forEach((passage, index) => {
      const before = passages[index - 1]?.chunk === passage.chunk ? (base[index - 1] as number) : undefined;
      const after = passages[index + 1]?.chunk === passage.chunk ? (base[index + 1] as number) : undefined;
      const neighbour = Math.max(before ?? Number.NEGATIVE_INFINITY, after ?? Number.NEGATIVE_INFINITY);
      if (Number.isFinite(neighbour))
        adjusted[index] = (base[index] as number) + scoring.neighbourWeight * neighbour;
    });
  }
  const excluded = scoring.excludeReferences && !references.every((flag) => flag === 1);
  const chunks = new Map<number, { best: number; second: number; passage: number; fenced: boolean }>();
  passages.forEach((passage, index) => {
    const score = adjusted[index] as number;
    // A reference passage counts for its chunk only when the chunk has nothing else.
    const fenced = excluded && references[index] === 1;
    const current = chunks.get(passage.chunk);
    if (!current || (current.fenced && !fenced)) {
      chunks.set(passage.chunk, { best: score, second: Number.NaN, passage: index, fenced });
    } else if (fenced && !current.fenced) {
      return;
    } else if (score > current.best) {
      current.second = current.best;
      current.best = score;
      current.passage = index;
    } else if (Number.isNaN(current.second) || score > current.second) current.second = score;
  });
  const result = new Map<number, { score: number; passage: number }>();
  for (const [chunk, { best, second, passage, fenced }] of chunks) {
    const extra = scoring.secondWeight > 0 && !Number.isNaN(second) ? scoring.secondWeight * second : 0;
    // A chunk of the reference list alone goes below every other chunk, in its own order.
    result.set(chunk, { score: best + extra - (fenced ? 1e9 : 0), passage });
  }
  return result;
}
