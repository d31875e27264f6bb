/**
 * freePort in a vitest worker: each worker has its own block of ports, and the files it runs one
 * after another (each a fresh module) go on through it where the last one stopped, as do the
 * child processes of a test that share its counter.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { tempDirs } from '../support/temp-dirs';

const tmp = tempDirs('brine-ports-');
const runCounter = process.env.BRINE_TEST_PORTS;

/** scripts/free-port.ts as a new test file (or a child process) of this worker loads it. */
async function freshFreePort(): Promise<() => Promise<number>> {
  vi.resetModules();
  return (await import('../../scripts/free-port.js')).freePort;
}

beforeEach(() => {
  process.env.BRINE_TEST_PORTS = tmp();
});

afterEach(() => {
  process.env.BRINE_TEST_PORTS = runCounter;
});

it("a worker's next file does not start again at the ports its last file used", async () => {
  const earlier = await freshFreePort();
  const first = [await earlier(), await earlier()];
  const later = await freshFreePort();
  const next = await later();
  expect(first).not.toContain(next);
  expect(next).toBeGreaterThan(first[1]);
  // The worker's block, below Linux's ephemeral range.
  expect(next).toBeGreaterThanOrEqual(12_000);
  expect(next).toBeLessThan(32_768);
});

it("a test's child process and the test share the counter: neither hands out the other's port", async () => {
  const test = await freshFreePort();
  const a = await test();
  const child = await freshFreePort();
  const b = await child();
  const c = await test();
  expect(new Set([a, b, c]).size).toBe(3);
  expect(b).toBeGreaterThan(a);
  expect(c).toBeGreaterThan(b);
});
