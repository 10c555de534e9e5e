import type { Paper } from '../domain/paper.js';

/**
 * What a format reader yields for each record of an input: a paper (or patent) ready to index, or a
 * rejection with its reason. `location` says where in the input (`line 12`, `byte 40960`, `record 3`)
 * so a bad record can be found and fixed.
 */
export type IngestItem =
  | { ok: true; paper: Paper; location: string }
  | { ok: false; reason: string; location: string };

/** A streaming reader of one input format: constant memory, never throws for one bad record. */
export type FormatReader = (input: AsyncIterable<string | Uint8Array>) => AsyncIterable<IngestItem>;
