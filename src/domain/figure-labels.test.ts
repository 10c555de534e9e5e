import { describe, expect, it } from 'vitest';
import { captionLabel, captionWords, labelKind } from './figure-labels.js';

describe('captionLabel', () => {
  it('reads the label a caption prints, as printed', () => {
    expect(captionLabel('Figure 6. Binding of DNA plasmid')).toBe('Figure 6');
    expect(captionLabel('Fig. S2 | Robustness')).toBe('Fig. S2');
    expect(captionLabel('FIG 1 A. baumannii encodes more ARGs')).toBe('FIG 1');
    expect(captionLabel('Table 3: Results')).toBe('Table 3');
    expect(captionLabel('TABLE IV Ablations')).toBe('TABLE IV');
    expect(captionLabel('Extended Data Fig. 2 | Gating strategy')).toBe('Extended Data Fig. 2');
    expect(captionLabel('Supplementary Figure 4.')).toBe('Supplementary Figure 4');
    expect(captionLabel('Abb. 3 Aufbau des Versuchs')).toBe('Abb. 3');
    expect(captionLabel('Figure 1A shows')).toBe('Figure 1A');
    expect(captionLabel('Figure 3.2: Thesis numbering')).toBe('Figure 3.2');
  });

  it('reads no label from text that only starts like one', () => {
    expect(captionLabel('Table is shown below')).toBeUndefined();
    expect(captionLabel('Figures 3 and 4 show')).toBeUndefined();
    expect(captionLabel('Table of contents')).toBeUndefined();
    expect(captionLabel('figure 3, the line')).toBeUndefined();
  });

  it('tells tables from figures and strips the label from the caption words', () => {
    expect(labelKind('Table 3')).toBe('table');
    expect(labelKind('Supplementary Table S1')).toBe('table');
    expect(labelKind('Fig. S2')).toBe('figure');
    expect(captionWords('Figure 3: A plot of rivers.')).toBe('A plot of rivers.');
    expect(captionWords('Fig. S2 | Robustness')).toBe('Robustness');
    expect(captionWords('No label here')).toBe('No label here');
  });
});
