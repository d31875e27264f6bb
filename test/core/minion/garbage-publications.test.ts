/**
 * A minion under 20,000 garbage publications (random bytes, jobs sealed with another key, a job
 * whose target is 100 kB): unreadable publications do not each cost a sign-in (and at most 16 wait
 * for one), no ERROR is logged, and the next real job still runs. (The RSS bound is not asserted
 * here: in one process the fake master's own sends are counted with the minion's.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPublication } from '../../../src/core/channel';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { createLogging } from '../../../src/core/log';
import { Minion, type MinionSettings } from '../../../src/core/minion/job-loop';
import { encode } from '../../../src/core/protocol/msgpack';
import { freePort } from '../../support/ports';
import { keyPem } from '../protocol/wire-vectors';
import { FakeMaster } from './fake-master';

let root: string | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  if (root) rmSync(root, { recursive: true, force: true });
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

describe('garbage publications', () => {
  it('cost the minion bounded memory and sign-ins, and the next job runs', async () => {
    root = mkdtempSync(join(tmpdir(), 'brine-garbage-'));
    const pki = join(root, 'pki');
    mkdirSync(pki, { recursive: true, mode: 0o700 });
    writeFileSync(join(pki, 'minion.pem'), keyPem('web1.pem'), { mode: 0o600 });
    writeFileSync(join(pki, 'minion.pub'), keyPem('web1.pub'));
    const ports = { retPort: await freePort(), pubPort: await freePort() };
    const master = new FakeMaster(ports);
    await master.start();
    cleanups.push(() => master.stop());
    const lines: string[] = [];
    // Only the lines the test looks at are kept: 20,000 warnings held here would count as the minion's.
    const keep = (t: string) => /\[ERROR|Ignored job/.test(t) && lines.push(t);
    const logger = createLogging({ level: 'info', console: true, stderr: { write: keep } }).getLogger('salt.minion');
    const settings: MinionSettings = {
      id: 'web1',
      master: '127.0.0.1',
      master_port: ports.retPort,
      pki_dir: pki,
      keysize: 2048,
      acceptance_wait_time: 1,
      auth_timeout: 5,
      recon_default: 100,
      recon_max: 200,
      return_retry_timer: 1,
      return_retry_tries: 3,
    };
    const minion = new Minion(settings, { run: async () => ({ return: true, retcode: 0, success: true }) }, { all: () => ({}) }, logger);
    cleanups.push(() => minion.stop());
    await minion.start();
    await master.publishUntilReturned({
      fun: 'test.ping',
      arg: [],
      tgt: 'web1',
      tgt_type: 'glob',
      jid: '20260101000000000001',
      ret: '',
      user: 'root',
    });
    const random = rng(16);
    const otherKey = Crypticle.generateKeyString();
    // Built before measuring: the garbage's own bytes are the sender's, not the minion's.
    const frames: Buffer[] = [];
    for (let i = 0; i < 20_000; i++) {
      if (i % 2 === 0) {
        frames.push(Buffer.from(Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256))));
      } else {
        frames.push(
          buildPublication(otherKey, master.masterPem, {
            fun: 'test.ping',
            arg: [],
            tgt: '*',
            tgt_type: 'glob',
            jid: `2026010100000${String(i).padStart(7, '0')}`,
            ret: '',
          }),
        );
      }
    }
    const signInsBefore = master.authTimes.length;
    const started = performance.now();
    for (const frame of frames) await master.publishRaw([frame]);
    await master.publishRaw([encode({ enc: 'aes', load: Buffer.alloc(64), sig: Buffer.alloc(0) })]);
    // A real job with a 100 kB target: ignored with a warning, not an ERROR and a stack.
    await master.publish({
      fun: 'test.ping',
      arg: [],
      tgt: 'a*['.repeat(34_000),
      tgt_type: 'glob',
      jid: '20260101000000000002',
      ret: '',
      user: 'root',
    });
    await master.publishUntilReturned({
      fun: 'test.ping',
      arg: [],
      tgt: 'web1',
      tgt_type: 'glob',
      jid: '20260101000000000003',
      ret: '',
      user: 'root',
    });
    const seconds = (performance.now() - started) / 1000;

    // One sign-in per 5 s of garbage at most (plus the one in flight), not one per frame.
    expect(master.authTimes.length - signInsBefore).toBeLessThanOrEqual(Math.ceil(seconds / 5) + 2);
    expect(lines.join('')).not.toContain('[ERROR');
    expect(lines.join('')).toMatch(/Ignored job 20260101000000000002: its target cannot be matched/);
  }, 120_000);
});
