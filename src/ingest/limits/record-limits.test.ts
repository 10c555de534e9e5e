import { describe, expect, it } from 'vitest';
import { emptyPaper } from '../../domain/paper.js';
import { inputLimits } from './input-limits.js';
import { jsonDepthExceeds } from './json-nesting.js';
import { recordLimitViolation } from './record-limits.js';

describe('recordLimitViolation', () => {
  it('accepts a real-sized record', () => {
    const paper = emptyPaper('Attention Is All You Need');
    paper.abstract = 'x'.repeat(10_000);
    paper.authors = Array.from({ length: 3000 }, (_, index) => `Author ${index}`);
    expect(recordLimitViolation(paper)).toBeNull();
  });

  it('names the field that is too long, with its size and the limit', () => {
    expect(recordLimitViolation(emptyPaper('t'.repeat(83_886_080)))).toBe(
      `title is 83886080 characters (at most ${inputLimits.titleChars})`,
    );
    const abstract = emptyPaper('Fine');
    abstract.abstract = 'a'.repeat(inputLimits.abstractChars + 1);
    expect(recordLimitViolation(abstract)).toMatch(/^abstract is 100001 characters/);
    const venue = emptyPaper('Fine');
    venue.venue = 'v'.repeat(5000);
    expect(recordLimitViolation(venue)).toMatch(/^venue is 5000 characters/);
    const identifier = emptyPaper('Fine');
    identifier.identifiers = { acl: 'a'.repeat(5000) };
    expect(recordLimitViolation(identifier)).toMatch(/^identifier acl is 5000/);
  });

  it('bounds the author list and the record as a whole', () => {
    const many = emptyPaper('Fine');
    many.authors = Array.from({ length: inputLimits.authors + 1 }, () => 'A B');
    expect(recordLimitViolation(many)).toBe(`record has 10001 authors (at most ${inputLimits.authors})`);
    const large = emptyPaper('Fine');
    large.authors = Array.from({ length: 400 }, () => 'n'.repeat(3000));
    expect(recordLimitViolation(large)).toMatch(/^record is 1200004 characters/);
  });
});

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonDepthExceeds('[{"issued":{"date-parts":[[2020]]}}]', 5)).toBe(false);
    expect(jsonDepthExceeds('[{"issued":{"date-parts":[[2020]]}}]', 4)).toBe(true);
    expect(jsonDepthExceeds(`[{"title":"${'['.repeat(1000)}\\"${'{'.repeat(1000)}"}]`, 3)).toBe(false);
  });

  it('stops early on a value nested a million deep', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const started = performance.now();
    expect(jsonDepthExceeds(text, inputLimits.jsonDepth)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
