import type { PaperSource } from '../../../ports/paper-source.js';
import type { PatentSource } from '../../../ports/patent-source.js';
import type { UpstreamClient } from './upstream-client.js';

/** How politely a source is asked and how long its answers are kept (docs/decisions/0005). */
export interface SourcePolicy {
  /** Least spacing between two requests to the source, in ms. */
  minIntervalMs: number;
  /** How long an answer is cached, in seconds. */
  cacheTtlSeconds: number;
}

/** The settings of the `sources` config section a source may read (contact address, its keys). */
export interface SourceSettings {
  contactEmail?: string | undefined;
  openAlexApiKey?: string | undefined;
  semanticScholarApiKey?: string | undefined;
  semanticScholarRequestsPerSecond: number;
  ncbiApiKey?: string | undefined;
  patentsViewApiKey?: string | undefined;
}

/** What a source module gets to build its adapter. */
export interface SourceContext {
  settings: SourceSettings;
  /** `{ baseUrl }` when a mirror or a loopback fake is configured for this source, else `{}`. */
  baseUrl: { baseUrl?: string };
  /** The source's resilient client: its policy's spacing unless `minIntervalMs` is given; extra headers. */
  client(options?: { headers?: Record<string, string>; minIntervalMs?: number }): UpstreamClient;
}

/** The adapter a module built, by the role it plays. */
export type BuiltSource =
  | { role: 'papers'; source: PaperSource }
  | { role: 'patents'; source: PatentSource }
  /** Open PDFs by DOI for papers found elsewhere (Unpaywall): never searched. */
  | { role: 'open-access'; source: PaperSource };

/**
 * One upstream source, as its folder declares it: its name (as `ALEXANDRIA_SOURCES` spells it), its
 * politeness policy, and how to build its adapter. A new source is a folder with such a module and
 * one line in `source-modules.ts`.
 */
export interface SourceModule {
  name: string;
  policy: SourcePolicy;
  /** The setting the source cannot work without and that is not set (its variable's name), if any. */
  missing?(settings: SourceSettings): string | undefined;
  /** The adapter, or undefined when the source's requirements are not met (a key, a contact address). */
  create(context: SourceContext): BuiltSource | undefined;
}
