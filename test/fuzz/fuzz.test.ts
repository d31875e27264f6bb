/**
 * The fuzz campaign (docs/security.md): generated and mutated frames at a running master's request
 * port and, through a fake master, at a minion's subscription, while real test.ping jobs run.
 *
 *   npm test       a short seeded campaign (BRINE_FUZZ_FRAMES defaults to 1,500)
 *   npm run fuzz   the long one: BRINE_FUZZ_FRAMES=100000 (BRINE_FUZZ_SEED to vary it)
 *
 * At the end: every single-frame request got an answer, every test.ping returned, the master's
 * pki dirs hold only valid ids, nothing outside the temporary root was touched, and the RSS
 * (master, minion and the fuzzer share this process) grew by less than the bound.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { LocalClient } from '../../src/core/client/local-client';
import { createLogging } from '../../src/core/log';
import { STATE_DIRS, KEY_STATES } from '../../src/core/master/key-store';
import { Minion } from '../../src/core/minion/job-loop';
import { isValidMinionId } from '../../src/core/protocol/minion-id';
import { MasterHarness } from '../support/master-harness';
import { freePort } from '../support/ports';
import { FakeMaster } from '../core/minion/fake-master';
import { keyPem } from '../core/protocol/wire-vectors';
import { frameSource, wireSeeds } from './frames';

const FRAMES = Number(process.env.BRINE_FUZZ_FRAMES ?? 1500);
const SEED = Number(process.env.BRINE_FUZZ_SEED ?? 20261203);
/** Master and minion together, in this process: what the campaign may add to its RSS. */
const RSS_BOUND = Number(process.env.BRINE_FUZZ_RSS_MB ?? 200) * 1024 * 1024;
const SYSTEM_DIRS = ['/etc/salt', '/var/cache/salt', '/var/run/salt', '/var/log/salt'];
const quiet = createLogging({ level: 'quiet', console: false });
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function systemDirsState(): string {
  return SYSTEM_DIRS.map((d) => (existsSync(d) ? `${d}:${statSync(d).mtimeMs}` : `${d}:absent`)).join(',');
}

/** Sends single-frame messages on one REQ socket, each waiting for its answer. */
async function requestWorker(address: string, messages: Buffer[], counts: { sent: number; answered: number }): Promise<void> {
  let sock = new zmq.Request({ linger: 0, receiveTimeout: 15_000, sendTimeout: 15_000 });
  sock.connect(address);
  try {
    for (const m of messages) {
      counts.sent++;
      try {
        await sock.send(m);
        await sock.receive();
        counts.answered++;
      } catch {
        sock.close(); // a REQ socket that timed out is stuck: the unanswered one is counted
        sock = new zmq.Request({ linger: 0, receiveTimeout: 15_000, sendTimeout: 15_000 });
        sock.connect(address);
      }
    }
  } finally {
    sock.close();
  }
}

describe(`fuzz campaign (${FRAMES} frames, seed ${SEED})`, () => {
  it(
    'the master answers every request and keeps running jobs; the minion survives its publications',
    async () => {
      const systemBefore = systemDirsState();
      const seeds = wireSeeds();
      expect(seeds.requests.length).toBeGreaterThan(5);
      expect(seeds.publications.length).toBeGreaterThan(0);

      const h = await MasterHarness.start({ max_pending_keys: 100, auth_rate_limit: 1000 });
      cleanups.push(() => h.stop());
      const minionRoot = mkdtempSync(join(tmpdir(), 'brine-fuzz-minion-'));
      cleanups.push(() => rmSync(minionRoot, { recursive: true, force: true }));
      const minion = new Minion(
        {
          id: 'web1',
          master: '127.0.0.1',
          master_port: h.settings.ret_port,
          pki_dir: join(minionRoot, 'pki'),
          keysize: 1024,
          acceptance_wait_time: 1,
          auth_timeout: 5,
          recon_default: 100,
          recon_max: 500,
          random_reauth_delay: 0,
          return_retry_timer: 2,
          return_retry_tries: 5,
        },
        { run: async (job) => ({ return: job.fun === 'test.ping', retcode: 0, success: true }) },
        { all: () => ({}) },
        quiet.getLogger('salt.minion'),
      );
      cleanups.push(() => minion.stop());
      const started = minion.start();
      // Accept web1 once its key is pending (the watch on minions_pre tells the master).
      const pending = join(h.settings.pki_dir, 'minions_pre', 'web1');
      await new Promise<void>((resolve) => {
        const check = () => (existsSync(pending) ? resolve() : setTimeout(check, 50));
        check();
      });
      h.master.keys.accept(['web1']);
      await started;
      const client = await LocalClient.connect({ ...h.settings, interface: '127.0.0.1' });
      cleanups.push(() => client.close());

      const rssBefore = process.memoryUsage().rss;
      const source = frameSource(SEED, seeds.requests);
      const masterFrames = Math.ceil(FRAMES * 0.8);
      const single: Buffer[] = [];
      const multi: Buffer[][] = [];
      const counts = { sent: 0, answered: 0, multi: 0 };
      const pings = { published: 0, returned: 0 };
      let stop = false;

      // Real jobs while the garbage flows: each test.ping must come back.
      const pinger = (async () => {
        while (!stop) {
          const pub = await client.publish({ tgt: 'web1', tgtType: 'glob', fun: 'test.ping', arg: [] });
          pings.published++;
          for await (const ret of client.returns(pub, 60_000)) if (ret.id === 'web1' && ret.return === true) pings.returned++;
        }
      })();

      // In batches, so a long campaign never holds all its frames at once.
      const dealer = new zmq.Dealer({ linger: 0 });
      dealer.connect(h.address);
      for (let done = 0; done < masterFrames;) {
        single.length = 0;
        multi.length = 0;
        const batch = Math.min(2000, masterFrames - done);
        for (let i = 0; i < batch; i++) {
          const frames = source.next();
          if (frames.length === 1) single.push(frames[0]);
          else multi.push(frames);
        }
        done += batch;
        // Multi-frame messages are not REQ's shape: the master drops them without an answer.
        for (const m of multi) {
          await dealer.send(m);
          counts.multi++;
        }
        const workers = 4;
        await Promise.all(
          Array.from({ length: workers }, (_, w) =>
            requestWorker(
              h.address,
              single.filter((_, i) => i % workers === w),
              counts,
            ),
          ),
        );
      }
      dealer.close();

      // The minion, through a fake master: mutated publications on its subscription.
      const fake = new FakeMaster({ retPort: await freePort(), pubPort: await freePort() });
      await fake.start();
      cleanups.push(() => fake.stop());
      const fakeRoot = mkdtempSync(join(tmpdir(), 'brine-fuzz-fake-'));
      cleanups.push(() => rmSync(fakeRoot, { recursive: true, force: true }));
      mkdirSync(join(fakeRoot, 'pki'), { mode: 0o700 });
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(fakeRoot, 'pki', 'minion.pem'), keyPem('web1.pem'), { mode: 0o600 });
      writeFileSync(join(fakeRoot, 'pki', 'minion.pub'), keyPem('web1.pub'));
      const victim = new Minion(
        {
          id: 'web1',
          master: '127.0.0.1',
          master_port: fake['options'].retPort,
          pki_dir: join(fakeRoot, 'pki'),
          keysize: 2048,
          acceptance_wait_time: 1,
          auth_timeout: 5,
          recon_default: 100,
          recon_max: 500,
          return_retry_timer: 1,
          return_retry_tries: 3,
        },
        { run: async () => ({ return: true, retcode: 0, success: true }) },
        { all: () => ({}) },
        quiet.getLogger('salt.minion'),
      );
      cleanups.push(() => victim.stop());
      await victim.start();
      const pubSource = frameSource(SEED + 1, seeds.publications);
      for (let i = 0; i < FRAMES - masterFrames; i++) await fake.publishRaw(pubSource.next());
      const after = await fake.publishUntilReturned({
        fun: 'test.ping',
        arg: [],
        tgt: 'web1',
        tgt_type: 'glob',
        jid: '20261203000000000001',
        ret: '',
        user: 'root',
      });
      expect(after.return).toBe(true);

      stop = true;
      await pinger;
      const grew = process.memoryUsage().rss - rssBefore;

      expect(counts.answered).toBe(counts.sent);
      expect(counts.sent + counts.multi).toBe(masterFrames);
      expect(pings.published).toBeGreaterThan(0);
      expect(pings.returned).toBe(pings.published);
      for (const state of KEY_STATES) {
        for (const name of readdirSync(join(h.settings.pki_dir, STATE_DIRS[state]))) {
          if (!name.startsWith('.tmp.')) expect(isValidMinionId(name)).toBe(true);
        }
      }
      expect(readdirSync(join(h.settings.pki_dir, 'minions_pre')).length).toBeLessThanOrEqual(100);
      expect(systemDirsState()).toBe(systemBefore);
      expect(grew).toBeLessThan(RSS_BOUND);
    },
    Math.max(120_000, FRAMES * 20),
  );
});
