import { createRequire } from 'node:module';
import type { plugins as CitationPlugins } from '@citation-js/core';

const require = createRequire(import.meta.url);
let loaded: typeof CitationPlugins | undefined;

/**
 * citation-js's plugin registry with its BibTeX, RIS and CSL plugins, loaded on first use: a process
 * that never reads or writes a citation file (most CLI commands, most workers) does not pay for
 * loading them at start (about 0.2 s of CPU, decision 0061). The packages are CommonJS, so the load is
 * synchronous and every caller stays synchronous.
 */
export function citationPlugins(): typeof CitationPlugins {
  if (!loaded) {
    const core = require('@citation-js/core') as { plugins: typeof CitationPlugins };
    require('@citation-js/plugin-bibtex');
    require('@citation-js/plugin-ris');
    require('@citation-js/plugin-csl');
    loaded = core.plugins;
  }
  return loaded;
}
