import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ReplayGuard } from '../../../src/core/master/replay-guard';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const T0 = 1_796_216_183_000;

/** A guard on a clock the test moves; ttl 300 s as brine's default request_server_ttl. */
function guardAt(ttlSeconds = 300, maxRemembered?: number) {
  const clock = { now: T0 };
  const guard = new ReplayGuard(ttlSeconds, () => clock.now, maxRemembered);
  return { guard, clock };
}

describe('ReplayGuard', () => {
  it('lets a fresh request through once and refuses the same id and nonce again', () => {
    const { guard } = guardAt();
    expect(guard.check('web1', 'a'.repeat(32), T0 / 1000)).toBeUndefined();
    expect(guard.check('web1', 'a'.repeat(32), T0 / 1000)).toMatch(/nonce was already used/);
    // The same nonce from another minion, or another nonce from the same one, is no replay.
    expect(guard.check('web2', 'a'.repeat(32), T0 / 1000)).toBeUndefined();
    expect(guard.check('web1', 'b'.repeat(32), T0 / 1000)).toBeUndefined();
  });

  it('refuses a ts more than the ttl away, in the past or the future, and a ts that is no number', () => {
    const { guard } = guardAt();
    expect(guard.check('web1', 'n1', T0 / 1000 - 301)).toMatch(/request_server_ttl \(300 s\)/);
    expect(guard.check('web1', 'n2', T0 / 1000 + 301)).toMatch(/away from the master's clock/);
    expect(guard.check('web1', 'n3', Number.NaN)).toMatch(/request_server_ttl/);
    expect(guard.size).toBe(0);
  });

  it('remembers a nonce for as long as its ts is accepted, also when the minion clock runs ahead', () => {
    const { guard, clock } = guardAt();
    // The minion's clock is 300 s ahead: its ts stays acceptable until 600 s from now.
    const ts = T0 / 1000 + 300;
    expect(guard.check('web1', 'ahead', ts)).toBeUndefined();
    clock.now = T0 + 600_000;
    expect(guard.check('web1', 'ahead', ts)).toMatch(/already used/);
    clock.now = T0 + 600_001;
    expect(guard.check('web1', 'ahead', ts)).toMatch(/away from the master's clock/);
  });

  it('forgets nonces once their ts is stale, whatever the uptime', () => {
    const { guard, clock } = guardAt(10);
    for (let i = 0; i < 1000; i++) {
      clock.now += 10; // 100 requests a second for 10 s
      expect(guard.check(`m${i % 50}`, `n${i}`, clock.now / 1000)).toBeUndefined();
    }
    expect(guard.size).toBe(1000);
    // 10 s later still remembered: each ts is acceptable until ts + ttl.
    clock.now += 9_000;
    guard.check('late', 'x', clock.now / 1000);
    expect(guard.size).toBeGreaterThan(1);
    // After ts + ttl and at most a bucket (ttl / 4) more, every one of them is gone.
    clock.now += 10_000 + 2_500;
    guard.check('later', 'y', clock.now / 1000);
    expect(guard.size).toBe(1);
  });

  it('keeps at most maxRemembered nonces, dropping the oldest first', () => {
    const { guard, clock } = guardAt(300, 10_000);
    let most = 0;
    for (let i = 0; i < 50_000; i++) {
      clock.now += 1;
      guard.check('m', `n${i}`, clock.now / 1000);
      most = Math.max(most, guard.size);
    }
    expect(most).toBe(10_000);
    // The newest are still refused as replays; the oldest were let go.
    expect(guard.check('m', 'n49999', clock.now / 1000)).toMatch(/already used/);
    expect(guard.check('m', 'n0', clock.now / 1000)).toBeUndefined();
  });

  it('does nothing with a ttl of 0 (request_server_ttl off)', () => {
    const { guard } = guardAt(0);
    expect(guard.check('web1', 'n', 0)).toBeUndefined();
    expect(guard.check('web1', 'n', 0)).toBeUndefined();
    expect(guard.size).toBe(0);
  });

  // At 10,000 minions and a job every few seconds the guard sits at its cap of 500,000 nonces.
  it('holds 8 bytes a slot, twice as many slots as nonces: 32 KiB for a small master, at most 8 MiB at the cap of 500,000', () => {
    const held = () => {
      gc();
      gc(); // a second pass frees what the first only found (weak references, finalizers)
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const ids = Array.from({ length: 10_000 }, (_, i) => `bench-${i}`);
    const nonces = Array.from({ length: 1_200_000 }, () => randomBytes(16).toString('hex'));
    const before = held();
    const { guard, clock } = guardAt();
    let refused = 0;
    // A small master: a thousand requests within the ttl.
    for (let i = 0; i < 1000; i++) if (guard.check(ids[i % 10_000], nonces[i], T0 / 1000) !== undefined) refused++;
    expect(guard.slots).toBe(4096);
    // A fleet of 10,000 at 4,000 requests a second for 300 s: past the cap.
    for (let i = 1000; i < nonces.length; i++) {
      if (i % 4 === 0) clock.now += 1;
      if (guard.check(ids[i % 10_000], nonces[i], clock.now / 1000) !== undefined) refused++;
    }
    const atCap = held();
    expect(refused).toBe(0);
    expect(guard.size).toBeLessThanOrEqual(500_000);
    expect(guard.size).toBeGreaterThanOrEqual(250_000);
    expect(guard.slots).toBeLessThanOrEqual(2 ** 20);
    const MiB = 1024 * 1024;
    expect((atCap - before) / MiB).toBeLessThan(8.5);
    // The newest 250,000 are all still refused as replays.
    for (let i = nonces.length - 250_000; i < nonces.length; i += 997) {
      expect(guard.check(ids[i % 10_000], nonces[i], clock.now / 1000)).toMatch(/already used/);
    }
  });

  it('always remembers at least the newest half of its cap once at it, and gives the memory back when the pace drops', () => {
    const { guard, clock } = guardAt(300, 10_000);
    for (let i = 0; i < 60_000; i++) {
      clock.now += 1;
      expect(guard.check('m', `n${i}`, clock.now / 1000)).toBeUndefined();
      if (i >= 20_000 && i % 101 === 0) {
        for (const back of [1, 2_500, 4_999]) expect(guard.check('m', `n${i - back}`, clock.now / 1000)).toMatch(/already used/);
      }
    }
    expect(guard.slots).toBeGreaterThanOrEqual(2 * 8192);
    // Quiet for longer than the ttl: the old generations go with their last live key.
    clock.now += 400_000;
    guard.check('m', 'after', clock.now / 1000);
    expect(guard.size).toBe(1);
    expect(guard.slots).toBeLessThanOrEqual(8192);
  });

  it('starts new generations and drops old ones, refusing every replay still within the ttl', () => {
    // 200 requests a second for 100 s with a cap of 4,000: generations of 2,000 come and go.
    const { guard, clock } = guardAt(10, 4000);
    const sent: Array<{ id: string; nonce: string; ts: number }> = [];
    for (let i = 0; i < 20_000; i++) {
      clock.now += 5;
      const request = { id: `m${i % 300}`, nonce: `n${i}`, ts: clock.now / 1000 };
      expect(guard.check(request.id, request.nonce, request.ts)).toBeUndefined();
      sent.push(request);
      // A replay of a request of 1 to 9 s ago: its ts is still accepted, and it is refused.
      if (i % 97 === 0 && i >= 1800) {
        const old = sent[i - 200 * (1 + (i % 9))];
        expect(guard.check(old.id, old.nonce, old.ts)).toMatch(/already used/);
      }
      expect(guard.size).toBeLessThanOrEqual(4000);
    }
  });
});
