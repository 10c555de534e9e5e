import { describe, expect, it } from 'vitest';
import { mixedEvidenceNote, stanceOf, verdictConflict } from './verdict-consistency.js';

const bert = 'Is BERT fine-tuning unstable on small datasets?';

describe('stanceOf', () => {
  it('reads whether a sentence affirms or denies the claim, negations and opposites counted', () => {
    expect(stanceOf(bert, 'This indicates that BERT fine-tuning is unstable.')).toBe('affirms');
    expect(stanceOf(bert, 'BERT fine-tuning is not unstable when trained for more epochs.')).toBe('denies');
    expect(stanceOf(bert, 'Fine-tuning BERT is stable once bias correction is used.')).toBe('denies');
    expect(stanceOf(bert, "BERT fine-tuning isn't stable on small datasets.")).toBe('affirms');
    expect(
      stanceOf(
        'Does metformin reduce cancer incidence in diabetic patients?',
        'Metformin did not reduce cancer incidence in a cohort of 8,000 patients [Smith et al., 2019](https://doi.org/10.1/x).',
      ),
    ).toBe('denies');
    expect(
      stanceOf(
        'Double reading of barium enemas: is it necessary?',
        'Double reading was necessary to find 8% of the polyps.',
      ),
    ).toBe('affirms');
  });

  it('takes no stance from a sentence about the topic that does not state the predicate, or hedges', () => {
    expect(
      stanceOf(bert, 'Fine-tuning BERT on small datasets shows high variance across random seeds.'),
    ).toBeUndefined();
    expect(stanceOf(bert, 'BERT fine-tuning may be unstable on small datasets.')).toBeUndefined();
    expect(stanceOf(bert, 'It is unclear whether BERT fine-tuning is unstable.')).toBeUndefined();
    expect(stanceOf(bert, 'Random restarts are a common remedy.')).toBeUndefined();
  });
});

describe('verdictConflict', () => {
  it('finds the sentence of a "No" answer that asserts the claim (issue 35)', () => {
    const answer =
      'No. Fine-tuning BERT on small datasets shows high variance across random restarts [Dodge et al., 2020](https://arxiv.org/abs/2002.06305). This indicates that BERT fine-tuning is unstable.';
    const conflict = verdictConflict(bert, 'no', answer);
    expect(conflict).toEqual({
      verdict: 'no',
      sentence: 'This indicates that BERT fine-tuning is unstable.',
      stance: 'affirms',
    });
    expect(mixedEvidenceNote(conflict as NonNullable<typeof conflict>)).toBe(
      '\n\n*(The evidence is mixed: this answer opens with "No", but it also says "This indicates that BERT fine-tuning is unstable.".)*\n',
    );
  });

  it('finds the sentence of a "Yes" answer that denies the claim', () => {
    const question = 'Does intermittent fasting reduce body weight in adults with obesity?';
    const answer =
      'Yes. In a 12-month trial, intermittent fasting did not reduce body weight more than daily calorie restriction [Trepanowski et al., 2017](https://doi.org/10.1001/jamainternmed.2017.0936).';
    expect(verdictConflict(question, 'yes', answer)?.stance).toBe('denies');
  });

  it('leaves consistent answers, maybe answers and hedged answers alone', () => {
    expect(
      verdictConflict(
        bert,
        'yes',
        'Yes. BERT fine-tuning is unstable on small datasets, with failed runs in 10 of 25 seeds.',
      ),
    ).toBeUndefined();
    expect(
      verdictConflict(bert, 'no', 'No, BERT fine-tuning is stable when trained longer with bias correction.'),
    ).toBeUndefined();
    expect(
      verdictConflict(bert, 'maybe', 'Maybe. This indicates that BERT fine-tuning is unstable.'),
    ).toBeUndefined();
    expect(
      verdictConflict(
        bert,
        'no',
        'No. Some runs may be unstable, but BERT fine-tuning on small datasets mostly converges.',
      ),
    ).toBeUndefined();
  });
});
