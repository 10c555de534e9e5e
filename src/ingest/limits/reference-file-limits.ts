import { AppError } from '../../domain/errors.js';
import { measureBibtex } from './bibtex-expansion.js';
import { inputLimits } from './input-limits.js';
import { jsonDepthExceeds } from './json-nesting.js';

/**
 * Refuses a reference file (a project import) that would cost more to parse than any real one:
 * BibTeX whose `@string` macros expand a value past `fieldChars` or the whole file past
 * `requestExpandedChars`, more than `importEntries` entries, or CSL-JSON nested deeper than
 * `jsonDepth`. Runs on the raw text before any parser sees it; every refusal names `file`.
 */
export function assertReferenceFileWithinLimits(text: string, format: 'bibtex' | 'ris' | 'csl'): void {
  if (format === 'csl') {
    if (jsonDepthExceeds(text, inputLimits.jsonDepth)) {
      throw new AppError(
        'unprocessable',
        `The CSL-JSON file is nested deeper than ${inputLimits.jsonDepth} levels; a CSL item needs about 5`,
        { param: 'file' },
      );
    }
    return;
  }
  if (format !== 'bibtex') return;
  const expansion = measureBibtex(text);
  if (expansion.entries > inputLimits.importEntries) {
    throw tooLarge(`At most ${inputLimits.importEntries} entries per import (got ${expansion.entries})`);
  }
  const largest = expansion.largest;
  if (largest && largest.length > inputLimits.fieldChars) {
    throw tooLarge(
      `The ${largest.where} expands to ${describe(largest.length)} characters once @string macros are resolved (at most ${inputLimits.fieldChars})`,
    );
  }
  if (expansion.total > inputLimits.requestExpandedChars) {
    throw tooLarge(
      `The file expands to ${describe(expansion.total)} characters once @string macros are resolved (at most ${inputLimits.requestExpandedChars})`,
    );
  }
}

function tooLarge(message: string): AppError {
  return new AppError('payload_too_large', message, { param: 'file' });
}

function describe(length: number): string {
  return Number.isFinite(length) && length < 1e15 ? String(length) : 'more than 10^15';
}
