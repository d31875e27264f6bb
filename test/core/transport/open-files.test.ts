/**
 * OpenFilesWatch: warns at 90 % of the open files limit, then at most once a minute; counts the
 * descriptors (a read of /proc/self/fd) at most every 10 s, estimating in between from the port's
 * connections; says nothing where the limit is unknown. The real /proc readers are checked on this
 * process.
 */
import { describe, expect, it } from 'vitest';
import { OpenFilesWatch, openFilesInUse, openFilesLimit } from '../../../src/core/transport/open-files';

/** A process with `others` descriptors besides the port's connections, on a clock of its own. */
function fakeProc(limit: number | undefined, others: number) {
  const state = { limit, others, connections: 0, now: 0, counts: 0 };
  const source = {
    limit: () => state.limit,
    inUse: () => (state.counts++, state.others + state.connections),
    now: () => state.now,
  };
  /** The port now holds `n` connections. */
  const connect = (watch: OpenFilesWatch, n: number) => {
    state.connections = n;
    watch.connected(n);
  };
  return { state, source, connect };
}

describe('OpenFilesWatch', () => {
  it('warns at 90 % of the limit, once a minute while it stays there', () => {
    const { state, source, connect } = fakeProc(1000, 100);
    const warnings: Array<[number, number]> = [];
    const watch = new OpenFilesWatch((inUse, limit) => warnings.push([inUse, limit]), source);
    for (let n = 1; n <= 799; n++) connect(watch, n);
    expect(warnings).toEqual([]);
    connect(watch, 800); // 900 in use: 90 %
    expect(warnings).toEqual([[900, 1000]]);
    state.now += 30_000;
    connect(watch, 850);
    expect(warnings).toHaveLength(1);
    state.now += 31_000;
    connect(watch, 860);
    expect(warnings).toEqual([
      [900, 1000],
      [960, 1000],
    ]);
  });

  it('counts the descriptors at most every 10 s, and reads a limit lowered at run time', () => {
    const { state, source, connect } = fakeProc(20_000, 50);
    const warnings: number[] = [];
    const watch = new OpenFilesWatch((inUse) => warnings.push(inUse), source);
    for (let n = 1; n <= 5000; n++) connect(watch, n);
    expect(state.counts).toBe(1);
    state.now += 10_000;
    connect(watch, 5001);
    expect(state.counts).toBe(2);
    // prlimit lowers it: seen within a second, and the estimate (connections + others) crosses it.
    state.limit = 5100;
    state.now += 1000;
    connect(watch, 5002);
    expect(warnings).toEqual([5052]);
    expect(state.counts).toBe(2);
  });

  it('says nothing where the limit is unknown', () => {
    const { source, connect } = fakeProc(undefined, 100);
    const warnings: number[] = [];
    const watch = new OpenFilesWatch((inUse) => warnings.push(inUse), source);
    for (let i = 1; i <= 100; i++) connect(watch, i * 1000);
    expect(warnings).toEqual([]);
  });

  it("reads this process's limit and descriptors from /proc", () => {
    const limit = openFilesLimit();
    const inUse = openFilesInUse();
    expect(limit).toBeGreaterThan(0);
    expect(inUse).toBeGreaterThan(2);
    expect(inUse).toBeLessThan(limit!);
  });
});
