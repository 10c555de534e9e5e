import { describe, expect, it } from 'vitest';
import { FairLanes, FairSlots } from './fair-lanes.js';

describe('FairLanes', () => {
  it('serves the lane with the fewest running, longest waiting first; a lane rejoins at the back when its work ends', () => {
    const lanes = new FairLanes<string>();
    for (const item of ['a1', 'a2', 'a3']) lanes.push('a', item);
    expect(lanes.take()).toEqual({ lane: 'a', item: 'a1' });
    lanes.push('b', 'b1');
    lanes.push('c', 'c1');
    lanes.push('c', 'c2');
    // a has one running: b and c (none running) go first, in the order they came.
    expect(lanes.take()).toEqual({ lane: 'b', item: 'b1' });
    expect(lanes.take()).toEqual({ lane: 'c', item: 'c1' });
    // All lanes with work have one running now: a has waited longest.
    expect(lanes.take()).toEqual({ lane: 'a', item: 'a2' });
    lanes.done('c');
    expect(lanes.take()).toEqual({ lane: 'c', item: 'c2' });
    expect(lanes.running).toBe(4);
    expect(lanes.waiting).toBe(1);
    // Work taken in several turns stays at the head of its lane.
    expect(lanes.take(() => false)).toEqual({ lane: 'a', item: 'a3' });
    expect(lanes.remove('a3')).toBe(true);
    expect(lanes.take()).toBeUndefined();
    expect(lanes.remove('a3')).toBe(false);
  });
});

describe('FairSlots', () => {
  it('runs at most `limit` at once, answers every sharer of a failed run, and frees its slot', async () => {
    const slots = new FairSlots(2);
    const releases: Array<() => void> = [];
    let running = 0;
    let most = 0;
    const held = () =>
      new Promise<void>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve();
        });
      });
    const runs = [1, 2, 3, 4].map((n) => slots.run(`lane-${n % 2}`, held));
    const failing = slots.run('lane-x', async () => Promise.reject(new Error('broken PDF')), { key: 'k' });
    const sharer = slots.run('lane-y', async () => 'never runs: shares k', { key: 'k' });
    const failures = Promise.allSettled([failing, sharer]);
    // Two started at once; the shared key waits once, in both its lanes.
    expect(slots.size).toEqual({ waiting: 3, lanes: 4, running: 2 });
    while (releases.length > 0 || slots.size.running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(runs);
    const settled = await failures;
    expect(settled.map((outcome) => outcome.status === 'rejected' && String(outcome.reason))).toEqual([
      'Error: broken PDF',
      'Error: broken PDF',
    ]);
    expect(most).toBe(2);
    expect(slots.size).toEqual({ waiting: 0, lanes: 0, running: 0 });
    // The key is forgotten once answered: a new run with it runs again.
    expect(await slots.run('lane-x', async () => 'again', { key: 'k' })).toBe('again');
  });
});
