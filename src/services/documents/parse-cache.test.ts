import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakePdf } from '../../../test/fakes/fake-pdf-extractor.js';
import { HeldPdfExtractor } from '../../../test/fakes/held-pdf-extractor.js';
import { FsBlobStore } from '../../adapters/fs/fs-blob-store.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { sha256Hex } from '../../platform/ids.js';
import { ParseCache } from './parse-cache.js';

/**
 * Issue 13, "one tenant stalls the others": parses went straight to the worker pool, whose queue is
 * first come first served, so a tenant uploading several large PDFs held every parse thread and
 * another tenant's one-page upload waited behind all of them. Now tenants take turns at the threads.
 */
let folder: string;
let run = 0;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-parse-turns-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A fresh cache (own blob folder) on a held extractor with `threads` parses at once. */
function setup(threads: number) {
  const extractor = new HeldPdfExtractor();
  const parses = new ParseCache({
    blobs: new FsBlobStore(join(folder, `blobs-${run++}`)),
    extractor,
    cache: new MemoryCache(),
    parserVersion: 'turns-1',
    concurrency: threads,
  });
  const parse = (lane: string, name: string, signal?: AbortSignal) => {
    const bytes = fakePdf([name, `Text of ${name}.`]);
    return parses.get(sha256Hex(bytes), async () => bytes, { lane, signal });
  };
  return { extractor, parses, parse };
}

describe('ParseCache turns between tenants', () => {
  it('starts another tenant’s parse when the first of a tenant’s four big parses ends, not after all four', async () => {
    const { extractor, parses, parse } = setup(2);
    const big = ['a1', 'a2', 'a3', 'a4'].map((name) => parse('tenant-a', name));
    await extractor.whenStarted(2);
    const small = parse('tenant-b', 'b1');
    await vi.waitFor(() => expect(parses.parsing).toEqual({ waiting: 3, lanes: 2, running: 2 }));
    expect(extractor.running).toHaveLength(2);

    const [first, second] = extractor.started as [string, string];
    extractor.finish(first);
    await extractor.whenStarted(3);
    expect(extractor.started[2]).toBe('b1');
    expect(extractor.running.sort()).toEqual(['b1', second].sort());
    extractor.finish('b1');
    expect((await small).chunks[1]?.text).toBe('Text of b1.');

    // Tenant A has both threads again.
    for (let count = 4; count <= 5; count++) {
      await extractor.whenStarted(count);
      extractor.finish(extractor.running[0] as string);
    }
    extractor.finish(extractor.running[0] as string);
    const texts = await Promise.all(big);
    expect(texts.map((text) => text.chunks[1]?.text)).toEqual(
      ['a1', 'a2', 'a3', 'a4'].map((n) => `Text of ${n}.`),
    );
    expect(extractor.started).toHaveLength(5);
    expect(parses.parsing).toEqual({ waiting: 0, lanes: 0, running: 0 });
  });

  it('parses the same bytes once for two tenants, in the turn of whichever comes first', async () => {
    const { extractor, parses, parse } = setup(1);
    const a1 = parse('tenant-a', 'a1');
    await extractor.whenStarted(1);
    const a2 = parse('tenant-a', 'a2');
    await vi.waitFor(() => expect(parses.parsing).toEqual({ waiting: 1, lanes: 1, running: 1 }));
    // Tenant A asks for the shared paper behind its own a2; then tenant B asks for it too.
    const sharedByA = parse('tenant-a', 'shared');
    await vi.waitFor(() => expect(parses.parsing).toEqual({ waiting: 2, lanes: 1, running: 1 }));
    const sharedByB = parse('tenant-b', 'shared');
    await vi.waitFor(() => expect(parses.parsing).toEqual({ waiting: 2, lanes: 2, running: 1 }));
    extractor.finish('a1');
    // B's turn comes before A's a2: the shared parse waits in both lanes and starts in B's.
    await extractor.whenStarted(2);
    expect(extractor.started).toEqual(['a1', 'shared']);
    extractor.finish('shared');
    const [fromA, fromB] = await Promise.all([sharedByA, sharedByB]);
    expect(fromA).toBe(fromB);
    expect(fromA.chunks[1]?.text).toBe('Text of shared.');
    await extractor.whenStarted(3);
    extractor.finish('a2');
    await Promise.all([a1, a2]);
    expect(extractor.started).toEqual(['a1', 'shared', 'a2']);
    // Parsed once: the next ask of either tenant is a lookup.
    expect((await parse('tenant-b', 'shared')).chunks[1]?.text).toBe('Text of shared.');
    expect(extractor.started).toHaveLength(3);
  });

  it('drops a waiting parse whose callers abort, keeps one another caller still waits for, and finishes a started one', async () => {
    const { extractor, parses, parse } = setup(1);
    const running = new AbortController();
    const first = parse('tenant-a', 'a1', running.signal);
    await extractor.whenStarted(1);

    const gone = new AbortController();
    const dropped = parse('tenant-a', 'a2', gone.signal);
    const halfA = new AbortController();
    const halfWanted = parse('tenant-a', 'half', halfA.signal);
    const halfByB = parse('tenant-b', 'half');
    const later = parse('tenant-a', 'a3');
    await vi.waitFor(() => expect(parses.parsing).toEqual({ waiting: 3, lanes: 2, running: 1 }));

    gone.abort(new Error('client went away'));
    await expect(dropped).rejects.toThrow('client went away');
    halfA.abort(new Error('A gave up'));
    await expect(halfWanted).rejects.toThrow('A gave up');
    // "half" still waits (for B), in both lanes.
    expect(parses.parsing).toEqual({ waiting: 2, lanes: 2, running: 1 });

    // The running parse's caller gives up: its wait ends now, the parse runs on and is kept.
    running.abort(new Error('timed out'));
    await expect(first).rejects.toThrow('timed out');
    extractor.finish('a1');
    await extractor.whenStarted(2);
    extractor.finish(extractor.running[0] as string);
    await extractor.whenStarted(3);
    extractor.finish(extractor.running[0] as string);
    await Promise.all([halfByB, later]);
    expect(extractor.started.sort()).toEqual(['a1', 'a3', 'half']);
    expect((await parse('tenant-a', 'a1')).chunks[1]?.text).toBe('Text of a1.');
    expect(extractor.started).toHaveLength(3);
    await expect(parse('tenant-a', 'a4', AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
