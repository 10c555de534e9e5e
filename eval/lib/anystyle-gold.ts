import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabelledReference } from '../../src/bibliography/reference-labeller.js';
import { tokenize } from '../../src/bibliography/reference-labeller.js';

/**
 * AnyStyle's labelled references (`eval/references/anystyle-gold.xml`, BSD 2-clause) and the fixed
 * tuning/reporting split of decision 0048: FNV-1a of the reference's text, even → tuning.
 */

export const goldPath = join(import.meta.dirname, '..', 'references', 'anystyle-gold.xml');

export interface GoldSpan {
  label: string;
  text: string;
}

export interface GoldReference {
  /** The spans' texts joined by one space, whitespace collapsed. */
  text: string;
  spans: GoldSpan[];
  split: 'tuning' | 'reporting';
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => entities[name] ?? '');
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function readGold(path = goldPath): GoldReference[] {
  const xml = readFileSync(path, 'utf8');
  return [...xml.matchAll(/<sequence>([\s\S]*?)<\/sequence>/g)].map((sequence) => {
    const spans = [...(sequence[1] ?? '').matchAll(/<([a-z-]+)>([\s\S]*?)<\/\1>/g)]
      .map((span) => ({
        label: span[1] ?? '',
        text: decode(span[2] ?? '')
          .replace(/\s+/g, ' ')
          .trim(),
      }))
      .filter((span) => span.text.length > 0);
    const text = spans.map((span) => span.text).join(' ');
    return { text, spans, split: fnv1a(text) % 2 === 0 ? 'tuning' : 'reporting' };
  });
}

/** A gold reference as tokens and one label per token. */
export function labelled(reference: GoldReference): LabelledReference {
  const tokens = tokenize(reference.text);
  const labels = reference.spans.flatMap((span) => tokenize(span.text).map(() => span.label));
  return { tokens, labels };
}
