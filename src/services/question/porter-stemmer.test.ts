import { describe, expect, it } from 'vitest';
import { porterStem } from './porter-stemmer.js';

// Pairs from Porter's paper and his published sample vocabulary.
const expected: Record<string, string> = {
  caresses: 'caress',
  ponies: 'poni',
  cats: 'cat',
  feed: 'feed',
  agreed: 'agre',
  plastered: 'plaster',
  bled: 'bled',
  motoring: 'motor',
  sing: 'sing',
  conflated: 'conflat',
  troubled: 'troubl',
  sized: 'size',
  hopping: 'hop',
  falling: 'fall',
  filing: 'file',
  happy: 'happi',
  sky: 'sky',
  relational: 'relat',
  conditional: 'condit',
  rational: 'ration',
  digitizer: 'digit',
  vietnamization: 'vietnam',
  operator: 'oper',
  decisiveness: 'decis',
  hopefulness: 'hope',
  sensibiliti: 'sensibl',
  triplicate: 'triplic',
  formative: 'form',
  electrical: 'electr',
  goodness: 'good',
  allowance: 'allow',
  inference: 'infer',
  adjustable: 'adjust',
  replacement: 'replac',
  adoption: 'adopt',
  communism: 'commun',
  effective: 'effect',
  probate: 'probat',
  rate: 'rate',
  controll: 'control',
  roll: 'roll',
  generalizations: 'gener',
  oscillators: 'oscil',
};

describe('porterStem', () => {
  it('stems Porter’s sample words as published', () => {
    const actual = Object.fromEntries(Object.keys(expected).map((word) => [word, porterStem(word)]));
    expect(actual).toEqual(expected);
  });

  it('brings the word families of scientific questions together', () => {
    expect(porterStem('resistant')).toBe(porterStem('resistance'));
    expect(porterStem('evolved')).toBe(porterStem('evolving'));
    expect(porterStem('compaction')).toBe(porterStem('compacts'));
  });
});
