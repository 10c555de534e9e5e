import { describe, expect, it } from 'vitest';
import { isBibliographic, withoutBibliography } from './compose.js';

describe('bibliography entries', () => {
  it('are told apart from prose', () => {
    expect(
      isBibliographic(
        'Heredia VV, Thomson J, Nettleton D, Sun S. Glucose‐induced conformational changes in glucokinase mediate allosteric regulation: transient kinetic analysis.',
      ),
    ).toBe(true);
    expect(isBibliographic('Cell Rep. 2021;35:109967.')).toBe(true);
    expect(
      isBibliographic(
        'By examining enzyme kinetics, Heredia et al. found that p.T65I, p.Y215A and p.A456V mainly accelerate glucose binding.',
      ),
    ).toBe(false);
    expect(withoutBibliography('Results text.\n\n## References\n1. Smith J. A paper.')).toBe(
      'Results text.\n\n',
    );
  });
});
