import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { retiredVariableNotices } from './retired-variables.js';

describe('retired variables', () => {
  it('ALEXANDRIA_PG_INDEX_LAYOUT still set is named as ignored, and the configuration still loads', () => {
    for (const value of ['inverted', 'tsvector']) {
      const environment = { ALEXANDRIA_PG_INDEX_LAYOUT: value };
      const [notice, ...rest] = retiredVariableNotices(environment);
      expect(rest).toEqual([]);
      expect(notice).toMatch(/^ALEXANDRIA_PG_INDEX_LAYOUT is ignored \(removed\): .*one layout, `inverted`/);
      expect(notice).toContain('docs/decisions/0058');
      expect(() => loadConfig(environment)).not.toThrow();
    }
  });

  it('says nothing when no retired variable is set', () => {
    expect(retiredVariableNotices({ ALEXANDRIA_PORT: '8080' })).toEqual([]);
  });
});
