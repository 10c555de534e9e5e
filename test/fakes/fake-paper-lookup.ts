import { identifierKey, type PaperIdentifier } from '../../src/domain/identifiers.js';
import { identityKeys, type Paper } from '../../src/domain/paper.js';
import type { PaperLookup } from '../../src/services/services.js';

/** A PaperLookup over a fixed list of records, matched by their identity keys; records its calls. */
export class FakePaperLookup implements PaperLookup {
  readonly calls: PaperIdentifier[] = [];
  constructor(private readonly papers: Paper[] = []) {}

  add(paper: Paper): void {
    this.papers.push(paper);
  }

  async findByIdentifier(identifier: PaperIdentifier): Promise<Paper | null> {
    this.calls.push(identifier);
    const key = identifierKey(identifier);
    return this.papers.find((paper) => identityKeys(paper).includes(key)) ?? null;
  }
}
