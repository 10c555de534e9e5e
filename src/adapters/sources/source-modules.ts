import { arxivModule } from './arxiv/arxiv-module.js';
import { crossrefModule } from './crossref/crossref-module.js';
import { europePmcModule } from './europepmc/europepmc-module.js';
import { openAlexModule } from './openalex/openalex-module.js';
import { patentsViewModule } from './patentsview/patentsview-module.js';
import { pubmedModule } from './pubmed/pubmed-module.js';
import { semanticScholarModule } from './semantic-scholar/semantic-scholar-module.js';
import type { SourceModule } from './shared/source-module.js';
import { unpaywallModule } from './unpaywall/unpaywall-module.js';

/**
 * Every upstream source, in preference order (searches and look-ups ask them in this order). A new
 * source is a folder with its adapter and a `SourceModule`, plus its line here (and its name in
 * `src/config/sections/sources.ts`, which a test keeps equal to these).
 */
export const sourceModules: readonly SourceModule[] = [
  openAlexModule,
  semanticScholarModule,
  crossrefModule,
  europePmcModule,
  pubmedModule,
  arxivModule,
  unpaywallModule,
  patentsViewModule,
];
