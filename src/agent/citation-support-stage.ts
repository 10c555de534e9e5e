import { contentTerms } from '../text/keywords.js';
import { removedCitationNote } from './citation-filter.js';
import type { CitationSupport } from './citation-support.js';
import { recordText } from './relevance.js';
import type { RetrievedSource, SourceLedger } from './source-ledger.js';

/**
 * What replaces the last citation of a sentence whose cited records all fail the support check: the
 * sentence stays as the model wrote it and reads as uncited (docs/agent.md).
 */
export const uncitedMarker = '[uncited: the cited paper does not support this]';

/** What the support check did to one answer. */
export interface SupportReport {
  /** Citations of retrieved records checked against what the run read of them. */
  checked: number;
  /** Citations dropped because the record's passage does not support their sentence. */
  dropped: number;
  /** Sentences left with no citation by those drops (each marked with `uncitedMarker`). */
  uncitedSentences: number;
  /** How support was judged: `lexical` when the embedding model was absent or failed. */
  judgedBy: 'embedding' | 'lexical';
}

const link = /\[([^\]\n]*)\]\(([^)\s]+)\)/g;
/** A link (skipped over), or the end of a sentence: `.`, `!` or `?` before white space, or a line break. */
const boundary = /\[[^\]\n]*\]\([^)\s]*\)|[.!?](?=\s)|\n/g;
/** The start of a link that has not arrived whole yet, at the end of the text. */
const partialLink = /\[[^\]\n]*(?:\](?:\([^)\s]*)?)?$/;
/** Text kept of what was sent, to find the sentence a citation belongs to. */
const recentLimit = 2000;
/** Most other records a cited one is compared with (the first retrieved). */
const maxOthers = 30;
/** Longest sentence held waiting for its end; past it, what is held is judged as it is. */
const maxHold = 1200;

/**
 * The support check on the answer as it streams, after the citation filter (whose output has only
 * complete links, each to a retrieved record or corrected to one). Text streams at once until a
 * sentence's first citation; from there the sentence is held until it ends, then each citation in it
 * is judged against what the run read of the record (its title, abstract and passages in the
 * ledger) and against the run's other records (the cited one must support the sentence best). An unsupported citation is dropped; a sentence left with none gets `uncitedMarker` where
 * its last citation stood. The model's words are never changed: only citations go.
 */
export class CitationSupportStage {
  private held = '';
  /** Ledger size when the passages were last handed to the judge to embed ahead. */
  private warmed = { records: 0, evidence: 0 };
  private recent = '';
  readonly report: SupportReport;
  /** Records with at least one citation kept, and records with one dropped. */
  readonly kept = new Set<RetrievedSource>();
  readonly dropped = new Set<RetrievedSource>();

  constructor(
    private readonly ledger: SourceLedger,
    private readonly judge: CitationSupport,
  ) {
    this.report = {
      checked: 0,
      dropped: 0,
      uncitedSentences: 0,
      judgedBy: judge.usesModel ? 'embedding' : 'lexical',
    };
  }

  /** Feeds the model's text; returns what can be sent now. */
  async push(text: string): Promise<string> {
    this.prepare();
    let buffer = this.held + text;
    this.held = '';
    let output = '';
    while (buffer.length > 0) {
      const next = firstCitation(buffer, this.ledger);
      if (next !== 0) {
        // A link may still be arriving: the text from its "[" waits for the rest.
        const open = next === -1 ? partialLink.exec(buffer)?.index : undefined;
        const stop = next !== -1 ? next : (open ?? buffer.length);
        const sent = buffer.slice(0, stop);
        output += sent;
        this.remember(sent);
        buffer = buffer.slice(stop);
        if (open !== undefined && buffer.length <= maxHold) {
          this.held = buffer;
          break;
        }
        if (next === -1 && open !== undefined) {
          output += buffer;
          this.remember(buffer);
          buffer = '';
        }
        continue;
      }
      let end = sentenceEnd(buffer);
      if (end === -1) {
        if (buffer.length <= maxHold) {
          this.held = buffer;
          break;
        }
        end = buffer.length;
      }
      output += await this.settle(buffer.slice(0, end));
      buffer = buffer.slice(end);
    }
    return output;
  }

  /**
   * Starts embedding the passages of records the run found since the last call, so the first
   * citation does not wait for them (the tool agent calls it after each tool call; `push` too).
   */
  prepare(): void {
    const evidence = this.ledger.evidence.length;
    if (this.ledger.size === this.warmed.records && evidence === this.warmed.evidence) return;
    this.warmed = { records: this.ledger.size, evidence };
    this.judge.warm(this.ledger.sources().map((source) => recordText(source, this.ledger.evidence)));
  }

  /** Ends the model's text: a sentence still held is judged and sent. */
  async end(): Promise<string> {
    const held = this.held;
    this.held = '';
    return held ? this.settle(held) : '';
  }

  /** Text the service writes itself (notes, an extractive answer): sent after what is held, unchecked. */
  async passThrough(text: string): Promise<string> {
    const held = await this.end();
    this.recent = '';
    return held + text;
  }

  /** Judges the citations of one sentence's held part and returns it with the unsupported ones dropped. */
  private async settle(segment: string): Promise<string> {
    const sentence = this.claimOf(segment);
    const verdicts = new Map<RetrievedSource, boolean>();
    let keptAny = false;
    let droppedAny = false;
    const parts: string[] = [];
    let last = 0;
    let lastDropped = -1;
    // The records this sentence cites are not measured against each other: a sentence citing two
    // papers keeps both when each supports it better than every record it does not cite.
    const citedHere = new Set(
      [...segment.matchAll(link)].map((match) => this.ledger.findByUrl(match[2] ?? '')).filter(Boolean),
    );
    for (const match of segment.matchAll(link)) {
      const source = this.ledger.findByUrl(match[2] ?? '');
      if (!source) continue;
      let supported = verdicts.get(source);
      if (supported === undefined) {
        const others = this.ledger
          .sources()
          .filter((other) => !citedHere.has(other))
          .slice(0, maxOthers)
          .map((other) => recordText(other, this.ledger.evidence));
        supported = (await this.judge.judge(sentence, recordText(source, this.ledger.evidence), others))
          .supported;
        verdicts.set(source, supported);
      }
      this.report.checked += 1;
      if (!this.judge.usesModel) this.report.judgedBy = 'lexical';
      parts.push(segment.slice(last, match.index));
      last = (match.index ?? 0) + match[0].length;
      if (supported) {
        keptAny = true;
        this.kept.add(source);
        parts.push(match[0]);
      } else {
        // A dropped citation right before punctuation takes the space before it along.
        if (/^[.,;:!?)]/.test(segment.slice(last)))
          parts[parts.length - 1] = (parts.at(-1) ?? '').replace(/[ \t]+$/, '');
        droppedAny = true;
        this.report.dropped += 1;
        this.dropped.add(source);
        lastDropped = parts.length;
        parts.push('');
      }
    }
    parts.push(segment.slice(last));
    if (droppedAny && !keptAny) {
      parts[lastDropped] = uncitedMarker;
      this.report.uncitedSentences += 1;
    }
    const output = droppedAny ? tidy(parts.join('')) : segment;
    this.remember(output);
    return output;
  }

  /** The sentence a held segment belongs to: its start already sent, or the one before a trailing citation. */
  private claimOf(segment: string): string {
    const start = lastSentence(this.recent);
    const own = withoutLinks(start + segment).trim();
    if (contentTerms(own).length >= 3) return own;
    const before = lastSentence(this.recent.replace(/[.!?\s]+$/, ''));
    return withoutLinks(`${before} ${own}`).trim();
  }

  private remember(text: string): void {
    this.recent = (this.recent + text).slice(-recentLimit);
  }
}

/** Index of the first link to a retrieved record, or -1. */
function firstCitation(text: string, ledger: SourceLedger): number {
  for (const match of text.matchAll(link)) {
    if (ledger.findByUrl(match[2] ?? '')) return match.index ?? -1;
  }
  return -1;
}

/** Index just past the end of the first sentence in `text` (links skipped), or -1 while it is open. */
function sentenceEnd(text: string): number {
  for (const match of text.matchAll(boundary)) {
    if (match[0].startsWith('[')) continue;
    return (match.index ?? 0) + 1;
  }
  return -1;
}

/** The text after the last sentence end of `text` (all of it when there is none). */
function lastSentence(text: string): string {
  let start = 0;
  for (const match of text.matchAll(boundary)) {
    if (match[0].startsWith('[')) continue;
    start = (match.index ?? 0) + 1;
  }
  return text.slice(start);
}

/** A sentence's words without its links and the citation filter's removal notes. */
function withoutLinks(text: string): string {
  return text.replaceAll(removedCitationNote, ' ').replace(link, ' ').replace(/\s+/g, ' ');
}

/** Separators a dropped citation leaves behind: "(; ", "; )", "; ;", "()". */
function tidy(text: string): string {
  return text
    .replace(/\(\s*(?:[;,]\s*)+/g, '(')
    .replace(/(?:\s*[;,])+\s*\)/g, ')')
    .replace(/;\s*;/g, ';')
    .replace(/\s*\(\s*\)/g, '');
}
