/**
 * When salt-minion turns V8's optimizing compiler on (src/cli/minion-runtime.ts): a job that keeps
 * the event loop busy does, one that waits does not. The loop's real busy time (its utilization,
 * from libuv), over windows of CHECK_MS (the minion's are a second).
 */
import { describe, expect, it } from 'vitest';
import { optimizingWhenBusy } from '../../src/cli/minion-runtime';

const CHECK_MS = 100;

/** Spins the CPU in slices, yielding between them, until `stop()` says so or 10 s pass. */
async function busyUntil(stop: () => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!stop() && Date.now() < deadline) {
    const slice = Date.now() + 20;
    while (Date.now() < slice) Math.sqrt(Math.random());
    await new Promise((resolve) => setImmediate(resolve));
  }
  return 'spun';
}

describe('optimizingWhenBusy', () => {
  it('turns the optimizer on once a job keeps the loop busy half of a check, once only', async () => {
    let calls = 0;
    const result = await optimizingWhenBusy(
      () => busyUntil(() => calls > 0),
      () => calls++,
      CHECK_MS,
    );
    expect(result).toBe('spun');
    expect(calls).toBe(1);
  });

  it('leaves it off for a job that only waits, and returns its value', async () => {
    let calls = 0;
    const result = await optimizingWhenBusy(
      () => new Promise((resolve) => setTimeout(() => resolve('waited'), 4 * CHECK_MS)),
      () => calls++,
      CHECK_MS,
    );
    expect(result).toBe('waited');
    expect(calls).toBe(0);
  });

  it('judges a job that held the event loop past a check when it ends', async () => {
    let calls = 0;
    await optimizingWhenBusy(
      async () => {
        const until = Date.now() + 3 * CHECK_MS;
        while (Date.now() < until) Math.sqrt(Math.random());
      },
      () => calls++,
      CHECK_MS,
    );
    expect(calls).toBe(1);
  });

  it("passes a job's failure on", async () => {
    await expect(
      optimizingWhenBusy(
        () => Promise.reject(new Error('job failed')),
        () => undefined,
        CHECK_MS,
      ),
    ).rejects.toThrow('job failed');
  });
});
