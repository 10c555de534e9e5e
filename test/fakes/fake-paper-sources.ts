import { identifierKey, type PaperIdentifier } from '../../src/domain/identifiers.js';
import { emptyPaper, identityKeys, type Paper } from '../../src/domain/paper.js';
import type { SearchRequest, SearchResult } from '../../src/domain/search.js';
import type {
  PaperSource,
  SourceCallOptions,
  SourcePage,
  SourceQuery,
} from '../../src/ports/paper-source.js';
import type { PaperLookup, PaperSearch } from '../../src/services/services.js';

/** A paper record for tests: title plus whatever fields matter to the test. */
export function testPaper(title: string, fields: Partial<Paper> = {}): Paper {
  return { ...emptyPaper(title), ...fields };
}

/** A local index stand-in: pages over fixed lists and records the requests it got. */
export class FakeLocalSearch implements PaperSearch, PaperLookup {
  readonly requests: SearchRequest[] = [];

  constructor(
    private readonly papers: Paper[] = [],
    private readonly options: {
      scores?: number[];
      total?: number;
      patents?: Paper[];
      fail?: boolean;
      /** Records `findByIdentifier` knows (matched by identity keys). */
      known?: Paper[];
    } = {},
  ) {}

  async searchPapers(request: SearchRequest): Promise<SearchResult> {
    return this.page(this.papers, request);
  }

  async searchPatents(request: SearchRequest): Promise<SearchResult> {
    return this.page(this.options.patents ?? [], request);
  }

  async findByIdentifier(identifier: PaperIdentifier): Promise<Paper | null> {
    const wanted = identifierKey(identifier);
    return this.options.known?.find((paper) => identityKeys(paper).includes(wanted)) ?? null;
  }

  private page(papers: Paper[], request: SearchRequest): SearchResult {
    this.requests.push(request);
    if (this.options.fail) throw new Error('index unavailable');
    const slice = papers.slice(request.offset, request.offset + request.limit);
    const result: SearchResult = {
      papers: slice,
      total: this.options.total ?? papers.length,
      nextOffset: null,
      hint: '',
    };
    if (this.options.scores)
      result.scores = this.options.scores.slice(request.offset, request.offset + request.limit);
    return result;
  }
}

/**
 * A scripted upstream source: answers after `delayMs` (fake latency), fails, or hangs forever
 * while ignoring its abort signal (the worst case the federation deadline must bound).
 */
export class ScriptedSource implements PaperSource {
  readonly lookupTypes = [] as const;
  readonly queries: SourceQuery[] = [];

  constructor(
    readonly name: string,
    private readonly behaviour: { papers?: Paper[]; delayMs?: number; fail?: boolean; hang?: boolean },
  ) {}

  async search(query: SourceQuery, _options?: SourceCallOptions): Promise<SourcePage> {
    this.queries.push(query);
    if (this.behaviour.hang) return new Promise(() => {});
    if (this.behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, this.behaviour.delayMs));
    if (this.behaviour.fail) throw new Error(`${this.name} exploded`);
    const papers = this.behaviour.papers ?? [];
    return { papers: papers.slice(0, query.limit), total: papers.length };
  }
}
