import { describe, expect, it } from 'vitest';
import { isMultipleChoice, verdictQuestion } from './question-kind.js';

describe('questions that need a verdict', () => {
  it('finds the yes/no question a message asks, after a colon or comma too, without its format instructions', () => {
    expect(verdictQuestion('Does aspirin reduce stroke risk? Answer yes, no or maybe first.')).toBe(
      'Does aspirin reduce stroke risk?',
    );
    expect(verdictQuestion('Adjuvant radiation of stage III thymoma: is it necessary?')).toBe(
      'Adjuvant radiation of stage III thymoma: is it necessary?',
    );
    expect(verdictQuestion('In older patients, does early mobilisation shorten the stay?')).toBe(
      'In older patients, does early mobilisation shorten the stay?',
    );
    expect(verdictQuestion('Is it true that statins prevent dementia?')).toBe(
      'Is it true that statins prevent dementia?',
    );
    expect(verdictQuestion('Can you tell me whether dropout helps small models?')).toBe(
      'Can you tell me whether dropout helps small models?',
    );
    expect(verdictQuestion('Is there evidence that exercise improves sleep?')).toBe(
      'Is there evidence that exercise improves sleep?',
    );
  });

  it('gives none to open questions and requests phrased as yes/no questions', () => {
    expect(verdictQuestion('Can you find recent papers on retrieval-augmented generation?')).toBeUndefined();
    expect(verdictQuestion('Could you list datasets for dialogue state tracking?')).toBeUndefined();
    expect(verdictQuestion('Are there any surveys of neural machine translation?')).toBeUndefined();
    expect(verdictQuestion('Do you have papers about protein folding?')).toBeUndefined();
    expect(verdictQuestion('Which antibiotics did the strain resist?')).toBeUndefined();
    expect(verdictQuestion('Summarise the findings on BERT fine-tuning.')).toBeUndefined();
    expect(verdictQuestion('Can statins prevent dementia')).toBeUndefined();
    expect(verdictQuestion('Is layer normalisation applied before or after attention?')).toBeUndefined();
  });

  it('gives none to a multiple-choice question, but lettered lines alone do not make one', () => {
    expect(
      verdictQuestion('Is the effect due to which of these?\n(A) heat\n(B) light\n(C) pH'),
    ).toBeUndefined();
    expect(
      verdictQuestion(
        'Does pretraining help? My notes so far:\nA. It did in our runs.\nB. It did not on the small set.',
      ),
    ).toBe('Does pretraining help?');
  });
});

describe('multiple-choice questions', () => {
  it('recognises lettered options after a question that asks to pick one', () => {
    expect(isMultipleChoice('Which gene is it?\nA) FLC\nB. SOC1')).toBe(true);
    expect(isMultipleChoice('The strain resisted:\n(A) heat\n(B) light\nChoose the correct option.')).toBe(
      true,
    );
  });

  it('needs options in order after a question that asks to pick one', () => {
    expect(isMultipleChoice('Does exercise improve sleep?')).toBe(false);
    expect(isMultipleChoice('Which one?\n(A) heat')).toBe(false);
    expect(isMultipleChoice('Which one?\n(B) heat\n(C) light')).toBe(false);
    // An outline, or a list of points to summarise, is not a question.
    expect(isMultipleChoice('Summarise these points:\nA. Transformers scale.\nB. RNNs do not.')).toBe(false);
    expect(isMultipleChoice('My notes\nA. baumannii grew fast.\nB. subtilis did not.')).toBe(false);
  });
});
