import { describe, expect, it } from 'vitest';
import { pastAnswerMark } from './agent-step-rules.js';

describe('pastAnswerMark', () => {
  it('is past the mark once the run has reached the answer-after mark', () => {
    expect(pastAnswerMark(44_999, [], { answerAfterMs: 45_000 })).toBe(false);
    expect(pastAnswerMark(45_000, [], { answerAfterMs: 45_000 })).toBe(true);
  });

  it('forecasts the next step by the longest step so far', () => {
    const budgets = { answerAfterMs: 45_000, answerByMs: 50_000 };
    // 30 s in, the longest step 18 s: a step would end at 48 s, before the answer-by point.
    expect(pastAnswerMark(30_000, [12_000, 18_000], budgets)).toBe(false);
    // 33 s in: it would end at 51 s.
    expect(pastAnswerMark(33_000, [12_000, 18_000], budgets)).toBe(true);
    expect(pastAnswerMark(33_000, [18_000, 4_000], budgets)).toBe(true);
  });

  it('holds nothing back before the first step, or without an answer-by point', () => {
    expect(pastAnswerMark(40_000, [], { answerAfterMs: 45_000, answerByMs: 50_000 })).toBe(false);
    expect(pastAnswerMark(40_000, [30_000], { answerAfterMs: 45_000 })).toBe(false);
    expect(pastAnswerMark(40_000, [30_000], {})).toBe(false);
  });
});
