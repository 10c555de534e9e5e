/**
 * The part of citation-js 0.8 (`@citation-js/core` + the BibTeX, RIS and CSL plugins) that
 * Alexandria uses. The packages ship no type declarations.
 */
declare module '@citation-js/core' {
  /** A CSL-JSON item (https://citationstyles.org/): only the fields we read or write are typed. */
  export interface CslName {
    family?: string;
    given?: string;
    literal?: string;
    suffix?: string;
    'dropping-particle'?: string;
    'non-dropping-particle'?: string;
  }
  export interface CslDate {
    'date-parts'?: Array<Array<number | string>>;
    raw?: string;
    literal?: string;
  }
  export interface CslItem {
    id?: string | number;
    type?: string;
    title?: string;
    author?: CslName[];
    issued?: CslDate;
    'event-date'?: CslDate;
    'container-title'?: string;
    'collection-title'?: string;
    publisher?: string;
    DOI?: string;
    URL?: string;
    PMID?: string;
    PMCID?: string;
    ISSN?: string;
    number?: string;
    abstract?: string;
    note?: string;
    'citation-key'?: string;
    [field: string]: unknown;
  }

  export interface ChainOptions {
    /** Parse the input as exactly this type (no guessing: a URL-looking string is never fetched). */
    forceType?: string;
    /** Stop at this intermediate type instead of CSL-JSON. */
    target?: string;
    generateGraph?: boolean;
    maxChainLength?: number;
  }

  export class Cite {
    constructor(data: CslItem[] | CslItem, options?: { forceType?: string });
    data: CslItem[];
    format(format: 'bibtex' | 'biblatex' | 'ris' | 'data', options?: Record<string, unknown>): string;
  }

  export const plugins: {
    input: {
      chain(input: unknown, options?: ChainOptions): unknown;
      list(): string[];
    };
    output: { list(): string[] };
    config: { get(name: string): Record<string, unknown> };
  };

  const core: { Cite: typeof Cite; plugins: typeof plugins };
  export default core;
}

declare module '@citation-js/plugin-bibtex' {}
declare module '@citation-js/plugin-ris' {}
declare module '@citation-js/plugin-csl' {}
