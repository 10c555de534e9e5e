import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { errorResult } from './tool-kit.js';

describe('errorResult', () => {
  it('cuts echoed input short, as the HTTP envelope does (issue 13: 70 KB messages)', () => {
    const echoed = 'x'.repeat(70_000);
    const result = errorResult(
      new AppError('invalid_request', `No project "${echoed}"`, { param: 'project' }),
    );
    const text = (result.content[0] as { text: string }).text;
    expect(text.length).toBeLessThan(1_000);
    expect(text.startsWith('No project "xxx')).toBe(true);
    expect(text).toContain('…');
    expect(result._meta).toMatchObject({ code: 'invalid_request', status: 400, param: 'project' });
  });
});
