/**
 * A real salt-minion process under 20,000 garbage publications from a fake master's publish port
 * (random bytes, jobs sealed with another key, a job whose target is 100 kB, an empty aes load):
 * its RSS, read from /proc, stays within 20 MB of what it was idle; unreadable publications do
 * not each cost a sign-in; drops are counted in a few log lines, not one each; no ERROR; and
 * real jobs sent between the garbage all run. The minion runs in its own process so that the
 * fake master's memory is not counted with its own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPublication } from '../../../src/core/channel';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { encode } from '../../../src/core/protocol/msgpack';
import { freePort } from '../../support/ports';
import { settledRssMiB } from '../../support/memory';
import { FakeMaster, spawnMinionBehind } from './fake-master';

const GARBAGE = 20_000;
const BOUND_MB = 20;
/** Garbage sent between two real jobs: under the sockets' high-water marks, so none is dropped unread. */
const BATCH = 1000;

const root = mkdtempSync(join(tmpdir(), 'brine-garbage-'));
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  rmSync(root, { recursive: true, force: true });
});

/** A seeded generator (mulberry32): the same garbage every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ping = (jid: string) => ({ fun: 'test.ping', arg: [], tgt: 'web1', tgt_type: 'glob', jid, ret: '', user: 'root' });

describe('a minion process under garbage publications', () => {
  it(`keeps its RSS within ${BOUND_MB} MB of idle after ${GARBAGE} of them, and runs every real job`, async () => {
    const ports = { retPort: await freePort(), pubPort: await freePort() };
    const master = new FakeMaster(ports);
    await master.start();
    cleanups.push(() => master.stop());
    const minion = spawnMinionBehind(root, ports.retPort);
    cleanups.push(() => minion.stop());
    const pid = minion.child.pid!;

    // Garbage built before measuring: random bytes, and jobs the master signed but sealed with
    // another AES key (100 distinct ones, so the fake master signs only 100 times).
    const random = rng(16);
    const otherKey = Crypticle.generateKeyString();
    const sealed = Array.from({ length: 100 }, (_, i) =>
      buildPublication(otherKey, master.masterPem, { ...ping(`2026010100000${String(i).padStart(7, '0')}`), tgt: '*' }),
    );
    const frames = Array.from({ length: GARBAGE }, (_, i) =>
      i % 2 === 0
        ? Buffer.from(Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256)))
        : sealed[(i >> 1) % sealed.length],
    );

    // Idle: signed in, one job run (its modules loaded).
    await master.publishUntilReturned(ping('20260101000000000001'));
    const idle = await settledRssMiB(pid);

    const signInsBefore = master.authTimes.length;
    const started = performance.now();
    for (let at = 0; at < frames.length; at += BATCH) {
      for (const frame of frames.slice(at, at + BATCH)) await master.publishRaw([frame]);
      // A real job after each batch: it runs, and once it returns the minion has read the batch.
      await master.publishUntilReturned(ping(`2026010200000${String(at).padStart(7, '0')}`));
    }
    await master.publishRaw([encode({ enc: 'aes', load: Buffer.alloc(64), sig: Buffer.alloc(0) })]);
    // A real job with a 100 kB target: ignored with a warning, not an ERROR and a stack.
    await master.publish({ ...ping('20260101000000000002'), tgt: 'a*['.repeat(34_000) });
    await master.publishUntilReturned(ping('20260101000000000003'));
    const seconds = (performance.now() - started) / 1000;
    const after = await settledRssMiB(pid);
    process.stderr.write(
      `minion RSS: idle ${idle.toFixed(1)} MB, after ${after.toFixed(1)} MB (+${(after - idle).toFixed(1)}); garbage ${seconds.toFixed(1)} s\n`,
    );

    expect(after - idle).toBeLessThan(BOUND_MB);
    // One sign-in per 5 s of garbage at most (plus the one in flight), not one per frame.
    expect(master.authTimes.length - signInsBefore).toBeLessThanOrEqual(Math.ceil(seconds / 5) + 2);
    expect(minion.log).not.toContain('[ERROR');
    expect(minion.log).toMatch(/Ignored job 20260101000000000002: its target cannot be matched/);
    // Drops are told with a count, once a minute: not 20,000 lines.
    expect(minion.log).toMatch(/Dropped 1 publication\(s\) since the last report; the last was could not be read/);
    expect(minion.count('Dropped ')).toBeLessThanOrEqual(Math.ceil(seconds / 60) + 1);
  }, 120_000);
});
