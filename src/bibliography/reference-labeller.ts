/**
 * A linear-chain sequence labeller for printed references: each whitespace-separated token of a
 * reference gets a label (author, title, date, journal, volume, pages, …) from a linear model over
 * the token's features and the label before it, decoded with Viterbi. The weights are learnt by an
 * averaged structured perceptron (Collins 2002) from AnyStyle's labelled references
 * (`scripts/train-reference-model.ts`, decision 0048); this module holds the features, the decoder
 * and the trainer, and nothing learnt by hand.
 */

/** One token of a reference: its text and where it starts in the reference. */
export interface Token {
  text: string;
  start: number;
}

/** The learnt model as stored: labels, per-feature weights (label index, weight pairs), transitions. */
export interface LabellerModel {
  labels: string[];
  /** feature → [labelIndex, weight, labelIndex, weight, …] (zero weights left out). */
  weights: Record<string, number[]>;
  /** transitions[previous + 1][current]; row 0 is the start of the reference. */
  transitions: number[][];
}

export function tokenize(text: string): Token[] {
  return [...text.matchAll(/\S+/g)].map((match) => ({ text: match[0], start: match.index ?? 0 }));
}

const months =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)$/;
const markers: Record<string, string> = {
  in: 'in',
  'in:': 'in',
  pp: 'pp',
  'pp.': 'pp',
  'p.': 'pp',
  pages: 'pp',
  vol: 'vol',
  'vol.': 'vol',
  volume: 'vol',
  no: 'no',
  'no.': 'no',
  nr: 'no',
  'nr.': 'no',
  ed: 'ed',
  'ed.': 'ed',
  eds: 'ed',
  'eds.': 'ed',
  '(ed.)': 'ed',
  '(eds.)': 'ed',
  '(ed.),': 'ed',
  '(eds.),': 'ed',
  edited: 'ed',
  editor: 'ed',
  editors: 'ed',
  and: 'and',
  '&': 'and',
  et: 'etal',
  'al.': 'etal',
  'al.,': 'etal',
  press: 'press',
  'press,': 'press',
  'press.': 'press',
  university: 'univ',
  journal: 'journal',
  proceedings: 'proc',
  'proc.': 'proc',
  conference: 'proc',
  transl: 'trans',
  'trans.': 'trans',
  translated: 'trans',
  doi: 'doi',
  'doi:': 'doi',
  isbn: 'isbn',
  'isbn:': 'isbn',
  available: 'url',
  retrieved: 'url',
  accessed: 'url',
};

/** The shape of a word: A for capitals, a for small letters, 9 for digits, runs collapsed. */
function shapeOf(word: string): string {
  return word
    .replace(/\p{Lu}/gu, 'A')
    .replace(/\p{Ll}/gu, 'a')
    .replace(/\p{N}/gu, '9')
    .replace(/(.)\1+/g, '$1$1')
    .slice(0, 8);
}

/** Letters and digits of a word, lower case (the word without its punctuation). */
function coreOf(word: string): string {
  return word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** Token-level facts, computed once per token and reused by its neighbours' features. */
interface TokenFacts {
  core: string;
  shape: string;
  last: string;
  first: string;
  kind: string;
}

/** Facts of words seen before: references repeat their words ("and", "In", "pp.", "2019,"). */
const factsCache = new Map<string, TokenFacts>();

function factsOf(word: string): TokenFacts {
  const known = factsCache.get(word);
  if (known) return known;
  const facts = computeFacts(word);
  if (factsCache.size >= 50_000) factsCache.clear();
  factsCache.set(word, facts);
  return facts;
}

function computeFacts(word: string): TokenFacts {
  const core = coreOf(word);
  const last = /[^\p{L}\p{N}]$/u.test(word) ? word.slice(-1) : '_';
  const first = /^[^\p{L}\p{N}]/u.test(word) ? word.charAt(0) : '_';
  let kind = 'word';
  if (/^(?:https?:|www\.)/i.test(word)) kind = 'url';
  else if (/10\.\d{4,9}\//.test(word)) kind = 'doi';
  else if (/^\W*(?:1[5-9]|20)\d{2}[a-z]?\W*$/.test(word)) kind = 'year';
  else if (/(?:1[5-9]|20)\d{2}/.test(word) && !/\d{5}/.test(word)) kind = 'hasyear';
  else if (/^\W*\d+\s*[-–—]+\s*\d+\W*$/.test(word)) kind = 'range';
  else if (/^\W*\p{L}?\d+\p{L}?\W*$/u.test(word)) kind = core.length <= 2 ? 'num2' : 'num';
  else if (/^\W*[ivxlcdm]+\W*$/i.test(word) && core.length <= 5 && core === core.toLowerCase())
    kind = 'roman';
  else if (/^\p{Lu}\.(?:-?\p{Lu}\.)*,?$/u.test(word)) kind = 'initial';
  else if (/^\p{Lu}{1,3},?$/u.test(word)) kind = 'caps';
  else if (months.test(core)) kind = 'month';
  else if (/^\p{Lu}/u.test(word)) kind = 'cap';
  else if (/^\p{Ll}/u.test(word)) kind = 'low';
  else if (/^\W*\p{Lu}/u.test(word)) kind = 'pcap';
  return { core, shape: shapeOf(word), last, first, kind };
}

/** The features of every token of a reference. */
export function featuresOf(tokens: readonly Token[]): string[][] {
  const facts = tokens.map((token) => factsOf(token.text));
  const n = tokens.length;
  const out: string[][] = [];
  let segment = 0;
  let quoted = false;
  let yearSeen = false;
  for (let i = 0; i < n; i += 1) {
    const word = tokens[i]?.text ?? '';
    const f = facts[i] as TokenFacts;
    const previous = facts[i - 1];
    const next = facts[i + 1];
    const lower = word.toLowerCase();
    const marker = markers[lower] ?? markers[f.core];
    if (/^["“‘«]/.test(word)) quoted = true;
    const features = [
      'b',
      `w=${f.core}`,
      `r=${lower}`,
      `s=${f.shape}`,
      `k=${f.kind}`,
      `e=${f.last}`,
      `f=${f.first}`,
      `p3=${f.core.slice(0, 3)}`,
      `x3=${f.core.slice(-3)}`,
      `x2=${f.core.slice(-2)}`,
      `ke=${f.kind}|${f.last}`,
      `pos=${Math.min(i, 5)}`,
      `rel=${Math.floor((i / n) * 8)}`,
      `seg=${Math.min(segment, 6)}`,
      `segk=${Math.min(segment, 6)}|${f.kind}`,
      `q=${quoted}`,
      `ys=${yearSeen}`,
      `ysk=${yearSeen}|${f.kind}`,
      `pw=${previous?.core ?? '<s>'}`,
      `pe=${previous?.last ?? '<s>'}`,
      `pk=${previous?.kind ?? '<s>'}`,
      `pkk=${previous?.kind ?? '<s>'}|${f.kind}`,
      `pek=${previous?.last ?? '<s>'}|${f.kind}`,
      `nw=${next?.core ?? '</s>'}`,
      `nk=${next?.kind ?? '</s>'}`,
      `nf=${next?.first ?? '</s>'}`,
      `pp=${facts[i - 2]?.core ?? '<s>'}`,
      `nn=${facts[i + 2]?.kind ?? '</s>'}`,
      `end=${n - i <= 3 ? n - i : 'far'}`,
    ];
    if (marker) features.push(`m=${marker}`);
    const previousMarker = i > 0 ? (markers[(tokens[i - 1]?.text ?? '').toLowerCase()] ?? null) : null;
    if (previousMarker) features.push(`pm=${previousMarker}`);
    if (/[()]/.test(word)) features.push(`paren=${/^\(/.test(word)}|${/\)\W*$/.test(word)}`);
    if (/[”"’»]\W*$/.test(word)) features.push('closequote');
    if (/:$/.test(word)) features.push('colon');
    out.push(features);
    if (/[”"»]\W*$/.test(word)) quoted = false;
    if (f.kind === 'year' || f.kind === 'hasyear') yearSeen = true;
    // A field boundary: a word ending in "." (not an initial or a short abbreviation), ":" or a closing quote.
    if (/(?:[\p{L}\p{N}]{3,}|[)\]])[.:]$|[”"]\W*$|[?!]$/u.test(word)) segment += 1;
  }
  return out;
}

/** A model laid out for decoding: dense weight rows and one flat transition table. */
interface CompiledModel {
  count: number;
  weights: Map<string, Float64Array>;
  /** transitions[(previous + 1) * count + current]; previous −1 is the start. */
  transitions: Float64Array;
}

const compiled = new WeakMap<LabellerModel, CompiledModel>();

function compile(model: LabellerModel): CompiledModel {
  const known = compiled.get(model);
  if (known) return known;
  const count = model.labels.length;
  const weights = new Map<string, Float64Array>();
  for (const [feature, pairs] of Object.entries(model.weights)) {
    const row = new Float64Array(count);
    for (let k = 0; k < pairs.length; k += 2) row[pairs[k] as number] = pairs[k + 1] as number;
    weights.set(feature, row);
  }
  const transitions = new Float64Array((count + 1) * count);
  model.transitions.forEach((row, p) => {
    row.forEach((value, y) => {
      transitions[p * count + y] = value;
    });
  });
  const result = { count, weights, transitions };
  compiled.set(model, result);
  return result;
}

/** Scores of every label for every token (the features' weights summed). */
function emissions(model: CompiledModel, features: string[][]): Float64Array[] {
  const { count, weights } = model;
  return features.map((tokenFeatures) => {
    const scores = new Float64Array(count);
    for (const feature of tokenFeatures) {
      const row = weights.get(feature);
      if (!row) continue;
      for (let y = 0; y < count; y += 1) scores[y] = (scores[y] as number) + (row[y] as number);
    }
    return scores;
  });
}

/** The best label sequence (label indexes) under the model. */
function viterbi(model: CompiledModel, scores: Float64Array[]): number[] {
  const { count, transitions } = model;
  const n = scores.length;
  if (n === 0) return [];
  const best = new Float64Array(n * count);
  const back = new Int32Array(n * count);
  const first = scores[0] as Float64Array;
  for (let y = 0; y < count; y += 1) best[y] = (first[y] as number) + (transitions[y] as number);
  for (let i = 1; i < n; i += 1) {
    const row = scores[i] as Float64Array;
    const previous = (i - 1) * count;
    for (let y = 0; y < count; y += 1) {
      let top = Number.NEGATIVE_INFINITY;
      let arg = 0;
      for (let p = 0; p < count; p += 1) {
        const value = (best[previous + p] as number) + (transitions[(p + 1) * count + y] as number);
        if (value > top) {
          top = value;
          arg = p;
        }
      }
      best[i * count + y] = top + (row[y] as number);
      back[i * count + y] = arg;
    }
  }
  const last = (n - 1) * count;
  let y = 0;
  for (let k = 1; k < count; k += 1) if ((best[last + k] as number) > (best[last + y] as number)) y = k;
  const path = [y];
  for (let i = n - 1; i > 0; i -= 1) {
    y = back[i * count + y] as number;
    path.push(y);
  }
  return path.reverse();
}

/** The label of every token of `tokens`. */
export function labelTokens(model: LabellerModel, tokens: readonly Token[]): string[] {
  const ready = compile(model);
  const path = viterbi(ready, emissions(ready, featuresOf(tokens)));
  return path.map((index) => model.labels[index] ?? 'note');
}

/** One labelled reference for training: its tokens and their labels. */
export interface LabelledReference {
  tokens: Token[];
  labels: string[];
}

/**
 * An averaged structured perceptron over `references`: `epochs` passes in an order shuffled by
 * `seed`, weights averaged over every step, weights below `prune` in size left out.
 */
export function trainLabeller(
  references: readonly LabelledReference[],
  options: { epochs: number; seed: number; prune?: number },
): LabellerModel {
  const labels = [...new Set(references.flatMap((reference) => reference.labels))].sort();
  const count = labels.length;
  const indexOf = new Map(labels.map((label, index) => [label, index]));
  const weights = new Map<string, Float64Array>();
  const sums = new Map<string, Float64Array>();
  const transitions = Array.from({ length: count + 1 }, () => new Float64Array(count));
  const transitionSums = Array.from({ length: count + 1 }, () => new Float64Array(count));
  let step = 1;
  const update = (feature: string, label: number, delta: number) => {
    let weight = weights.get(feature);
    let sum = sums.get(feature);
    if (!weight || !sum) {
      weight = new Float64Array(count);
      sum = new Float64Array(count);
      weights.set(feature, weight);
      sums.set(feature, sum);
    }
    weight[label] = (weight[label] as number) + delta;
    sum[label] = (sum[label] as number) + step * delta;
  };
  const current = (): LabellerModel => ({
    labels,
    weights: Object.fromEntries(
      [...weights].map(([feature, values]) => [
        feature,
        [...values].flatMap((value, index) => (value !== 0 ? [index, value] : [])),
      ]),
    ),
    transitions: transitions.map((row) => [...row]),
  });
  const prepared = references.map((reference) => ({
    features: featuresOf(reference.tokens),
    gold: reference.labels.map((label) => indexOf.get(label) ?? 0),
  }));
  let state = options.seed >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  for (let epoch = 0; epoch < options.epochs; epoch += 1) {
    const order = [...prepared.keys()];
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const at of order) {
      const { features, gold } = prepared[at] as (typeof prepared)[number];
      const scores = features.map((tokenFeatures) => {
        const row = new Float64Array(count);
        for (const feature of tokenFeatures) {
          const weight = weights.get(feature);
          if (weight) for (let y = 0; y < count; y += 1) row[y] = (row[y] as number) + (weight[y] as number);
        }
        return row;
      });
      const flat = new Float64Array((count + 1) * count);
      transitions.forEach((row, p) => {
        flat.set(row, p * count);
      });
      const guess = viterbi({ count, weights: new Map(), transitions: flat }, scores);
      for (let i = 0; i < gold.length; i += 1) {
        const right = gold[i] as number;
        const wrong = guess[i] as number;
        const previousRight = i === 0 ? 0 : (gold[i - 1] as number) + 1;
        const previousWrong = i === 0 ? 0 : (guess[i - 1] as number) + 1;
        if (right !== wrong) {
          for (const feature of features[i] as string[]) {
            update(feature, right, 1);
            update(feature, wrong, -1);
          }
        }
        if (right !== wrong || previousRight !== previousWrong) {
          const rightRow = transitions[previousRight] as Float64Array;
          const wrongRow = transitions[previousWrong] as Float64Array;
          rightRow[right] = (rightRow[right] as number) + 1;
          wrongRow[wrong] = (wrongRow[wrong] as number) - 1;
          const rightSum = transitionSums[previousRight] as Float64Array;
          const wrongSum = transitionSums[previousWrong] as Float64Array;
          rightSum[right] = (rightSum[right] as number) + step;
          wrongSum[wrong] = (wrongSum[wrong] as number) - step;
        }
      }
      step += 1;
    }
  }
  // Averaged weights: w − Σ(t·Δ)/T.
  const prune = options.prune ?? 0;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  for (const [feature, weight] of weights) {
    const sum = sums.get(feature) as Float64Array;
    for (let y = 0; y < count; y += 1) {
      const averaged = round((weight[y] as number) - (sum[y] as number) / step);
      weight[y] = Math.abs(averaged) < prune ? 0 : averaged;
    }
  }
  for (let p = 0; p <= count; p += 1) {
    const row = transitions[p] as Float64Array;
    const sum = transitionSums[p] as Float64Array;
    for (let y = 0; y < count; y += 1) row[y] = round((row[y] as number) - (sum[y] as number) / step);
  }
  const model = current();
  for (const [feature, pairs] of Object.entries(model.weights))
    if (pairs.length === 0) delete model.weights[feature];
  return model;
}
