// The Porter (1980) stemmer, as BM25 baselines such as Lucene's EnglishAnalyzer and Pyserini use it:
// "resistant" and "resistance" both become "resist", "evolved" and "evolving" "evolv". Written from the
// published algorithm (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980).

const step2: Array<[string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['abli', 'able'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const step3: Array<[string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const step4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

function isConsonant(word: string, index: number): boolean {
  const letter = word[index];
  if (letter === 'a' || letter === 'e' || letter === 'i' || letter === 'o' || letter === 'u') return false;
  if (letter === 'y') return index === 0 || !isConsonant(word, index - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel–consonant sequences of `stem`. */
function measure(stem: string): number {
  let count = 0;
  let index = 0;
  while (index < stem.length && isConsonant(stem, index)) index += 1;
  while (index < stem.length) {
    while (index < stem.length && !isConsonant(stem, index)) index += 1;
    if (index >= stem.length) break;
    while (index < stem.length && isConsonant(stem, index)) index += 1;
    count += 1;
  }
  return count;
}

const hasVowel = (stem: string) => [...stem].some((_, index) => !isConsonant(stem, index));
const endsWithDoubleConsonant = (word: string) =>
  word.length >= 2 && word.at(-1) === word.at(-2) && isConsonant(word, word.length - 1);
/** *o: ends consonant–vowel–consonant, the last not w, x or y. */
const endsCvc = (word: string) =>
  word.length >= 3 &&
  isConsonant(word, word.length - 3) &&
  !isConsonant(word, word.length - 2) &&
  isConsonant(word, word.length - 1) &&
  !'wxy'.includes(word.at(-1) as string);

/** Replaces the longest listed suffix when the remaining stem's measure passes `condition`. */
function replaceSuffix(
  word: string,
  rules: Array<[string, string]>,
  condition: (stem: string) => boolean,
): string {
  const rule = rules.filter(([suffix]) => word.endsWith(suffix)).sort((a, b) => b[0].length - a[0].length)[0];
  if (!rule) return word;
  const stem = word.slice(0, word.length - rule[0].length);
  return condition(stem) ? stem + rule[1] : word;
}

/** The Porter stem of a lower-case English word (words of one or two letters are kept). */
export function porterStem(input: string): string {
  if (input.length <= 2) return input;
  let word = input;
  // Step 1a: plurals.
  if (word.endsWith('sses')) word = word.slice(0, -2);
  else if (word.endsWith('ies')) word = word.slice(0, -2);
  else if (!word.endsWith('ss') && word.endsWith('s')) word = word.slice(0, -1);
  // Step 1b: -ed, -ing.
  if (word.endsWith('eed')) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
  } else {
    const suffix = word.endsWith('ed') ? 'ed' : word.endsWith('ing') ? 'ing' : undefined;
    if (suffix && hasVowel(word.slice(0, -suffix.length))) {
      word = word.slice(0, -suffix.length);
      if (word.endsWith('at') || word.endsWith('bl') || word.endsWith('iz')) word += 'e';
      else if (endsWithDoubleConsonant(word) && !'lsz'.includes(word.at(-1) as string))
        word = word.slice(0, -1);
      else if (measure(word) === 1 && endsCvc(word)) word += 'e';
    }
  }
  // Step 1c: y → i after a vowel.
  if (word.endsWith('y') && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;
  // Steps 2 and 3: derivational suffixes.
  word = replaceSuffix(word, step2, (stem) => measure(stem) > 0);
  word = replaceSuffix(word, step3, (stem) => measure(stem) > 0);
  // Step 4: strip a suffix when enough stem remains (-ion only after s or t).
  const suffix = step4.filter((candidate) => word.endsWith(candidate)).sort((a, b) => b.length - a.length)[0];
  if (suffix) {
    const stem = word.slice(0, word.length - suffix.length);
    if (measure(stem) > 1 && (suffix !== 'ion' || stem.endsWith('s') || stem.endsWith('t'))) word = stem;
  }
  // Step 5: final -e and -ll.
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) word = stem;
  }
  if (measure(word) > 1 && endsWithDoubleConsonant(word) && word.endsWith('l')) word = word.slice(0, -1);
  return word;
}
