/**
 * Salt's grains_refresh_every: the minion daemon computes its grains again every N minutes and,
 * when they changed, refreshes its pillar (which carries them to the master). Driven with
 * vitest's fake clock: the minutes pass without waiting.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { grainsRefresher } from '../../src/cli/minion-runtime';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A runtime whose grains change at the refreshes listed in `changesAt` (1-based). */
function runtime(changesAt: number[]) {
  let refreshes = 0;
  let grains: Record<string, unknown> = { os: 'Debian', n: 0 };
  return {
    grains: () => grains,
    refreshGrains: async () => {
      refreshes++;
      if (changesAt.includes(refreshes)) grains = { ...grains, n: refreshes };
    },
    get refreshes() {
      return refreshes;
    },
  };
}

describe('grains_refresh_every', () => {
  it('refreshes every N minutes and tells of a change only when the grains moved', async () => {
    const rt = runtime([2]);
    const changed = vi.fn(async () => undefined);
    const refresher = grainsRefresher(5, rt, changed, { error: () => undefined });
    refresher.start();
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(rt.refreshes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect([rt.refreshes, changed.mock.calls.length]).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect([rt.refreshes, changed.mock.calls.length]).toEqual([3, 1]);
    refresher.stop();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(rt.refreshes).toBe(3);
  });

  it('does nothing at 0, and logs a failed refresh instead of throwing', async () => {
    const idle = runtime([]);
    grainsRefresher(0, idle, async () => undefined, { error: () => undefined }).start();
    await vi.advanceTimersByTimeAsync(24 * 60 * 60_000);
    expect(idle.refreshes).toBe(0);
    const errors: string[] = [];
    const failing = { grains: () => ({}), refreshGrains: async () => Promise.reject(new Error('grain provider broke')) };
    const refresher = grainsRefresher(1, failing, async () => undefined, { error: (m) => errors.push(m) });
    refresher.start();
    await vi.advanceTimersByTimeAsync(60_000);
    refresher.stop();
    expect(errors).toEqual(['Refreshing the grains failed: grain provider broke']);
  });
});
