import { describe, expect, it } from 'vitest';
import { pruneElements } from './xml-prune.js';

describe('pruneElements', () => {
  it('removes every element of the names, self-closing ones too, and keeps the rest', () => {
    const xml = '<a><b x="1">drop<c/></b><keep>k</keep><b>again</b><bb>stays</bb><d/><d>x</d></a>';
    expect(pruneElements(xml, ['b', 'd'])).toBe('<a><keep>k</keep><bb>stays</bb></a>');
    expect(pruneElements(xml, ['absent'])).toBe(xml);
  });
});
