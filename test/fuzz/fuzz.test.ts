/**
 * The fuzz campaign (docs/security.md): generated and mutated frames at a running master's request
 * port, at its local event sockets (the bus and the intake), and, through a fake master, at a
 * minion's subscription, while real test.ping jobs run.
 *
 *   npm test       a short seeded campaign (BRINE_FUZZ_FRAMES defaults to 1,500)
 *   npm run fuzz   the long one: BRINE_FUZZ_FRAMES=100000 (BRINE_FUZZ_SEED to vary it)
 *
 * The master and both minions are the real daemons, each in its own process, so that each one's
 * RSS is read from /proc and bounded on its own. At the end: every single-frame request got an
 * answer, every test.ping returned, the master's pki dirs hold only valid ids, nothing outside
 * the temporary roots was touched, and each process grew by less than its bound.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { Cluster } from '../../scripts/cluster';
import { LocalClient } from '../../src/core/client/local-client';
import { loadMasterConfig } from '../../src/core/config';
import { STATE_DIRS, KEY_STATES } from '../../src/core/master/key-store';
import { isValidMinionId } from '../../src/core/protocol/minion-id';
import { encode } from '../../src/core/protocol/msgpack';
import { frameEvent } from '../../src/core/transport/event-socket';
import { freePort } from '../support/ports';
import { FakeMaster, spawnMinionBehind } from '../core/minion/fake-master';
import { settledRssMiB } from '../support/memory';
import { frameSource, wireSeeds } from './frames';

const FRAMES = Number(process.env.BRINE_FUZZ_FRAMES ?? 1500);
const SEED = Number(process.env.BRINE_FUZZ_SEED ?? 20261203);
/** What the campaign may add to the master's RSS, and to each minion's (the 20 MB). */
const MASTER_RSS_MB = Number(process.env.BRINE_FUZZ_MASTER_RSS_MB ?? 100);
const MINION_RSS_MB = Number(process.env.BRINE_FUZZ_MINION_RSS_MB ?? 20);
const SYSTEM_DIRS = ['/etc/salt', '/var/cache/salt', '/var/run/salt', '/var/log/salt'];
const cleanups: Array<() => Promise<unknown> | unknown> = [];
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

      // The master with web1, and (meanwhile) the victim minion behind a fake master.
      const cluster = await Cluster.create({ max_pending_keys: 100, auth_rate_limit: 1000 });
      cleanups.push(() => cluster.stop());
      const fake = new FakeMaster({ retPort: await freePort(), pubPort: await freePort() });
      await fake.start();
      cleanups.push(() => fake.stop());
      const victimRoot = mkdtempSync(join(tmpdir(), 'brine-fuzz-victim-'));
      cleanups.push(() => rmSync(victimRoot, { recursive: true, force: true }));
      const victim = spawnMinionBehind(victimRoot, fake['options'].retPort, 'victim');
      cleanups.push(() => victim.stop());
      const ping = (jid: string) => ({ fun: 'test.ping', arg: [], tgt: 'web1', tgt_type: 'glob', jid, ret: '', user: 'root' });
      const victimReady = fake.publishUntilReturned(ping('20261203000000000000'));
      await cluster.startMaster();
      await cluster.startAccepted([{ id: 'web1' }]);
      await victimReady;
      const { config } = loadMasterConfig(cluster.masterDir);
      const client = await LocalClient.connect({ ...config, interface: '127.0.0.1' });
      cleanups.push(() => client.close());
      const address = `tcp://127.0.0.1:${cluster.retPort}`;
      const pids = { master: cluster.master!.child.pid!, minion: cluster.minions.get('web1')!.child.pid!, victim: victim.child.pid! };
      const idle = {
        master: await settledRssMiB(pids.master),
        minion: await settledRssMiB(pids.minion),
        victim: await settledRssMiB(pids.victim),
      };

      const source = frameSource(SEED, seeds.requests);
      const masterFrames = Math.ceil(FRAMES * 0.8);
      const single: Buffer[] = [];
      const multi: Buffer[][] = [];
      const counts = { sent: 0, answered: 0, multi: 0, eventConnections: 0 };
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
      dealer.connect(address);
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
              address,
              single.filter((_, i) => i % workers === w),
              counts,
            ),
          ),
        );
      }
      dealer.close();

      // The master's local event sockets: mutated event frames, subscriptions, syncs and noise
      // on the intake and on the bus, a few frames per connection, while the pings (which hear
      // their returns on this bus) go on.
      const eventSeeds = [
        frameEvent('salt/auth', encode({ id: 'web1', act: 'accept' })),
        frameEvent('fuzz/tag', encode({ list: [1, 'two'], map: { a: null } })),
        encode({ head: {}, body: { subscribe: ['salt/', ''] } }),
        encode({ head: {}, body: { sync: 'fuzz' } }),
      ];
      const eventSource = frameSource(SEED + 2, eventSeeds);
      for (const file of ['master_event_pull.ipc', 'master_event_pub.ipc']) {
        for (let c = 0; c < Math.ceil(FRAMES / 40); c++) {
          const socket = createConnection(join(config.sock_dir, file));
          socket.on('data', () => undefined);
          const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()).on('error', () => resolve()));
          socket.write(Buffer.concat(Array.from({ length: 10 }, () => Buffer.concat(eventSource.next()))));
          socket.end();
          await closed;
          counts.eventConnections++;
        }
      }

      // The victim, through the fake master: mutated publications on its subscription.
      const pubSource = frameSource(SEED + 1, seeds.publications);
      for (let i = 0; i < FRAMES - masterFrames; i++) await fake.publishRaw(pubSource.next());
      const after = await fake.publishUntilReturned(ping('20261203000000000001'));
      expect(after.return).toBe(true);

      stop = true;
      await pinger;
      const grew = {
        master: (await settledRssMiB(pids.master)) - idle.master,
        minion: (await settledRssMiB(pids.minion)) - idle.minion,
        victim: (await settledRssMiB(pids.victim)) - idle.victim,
      };
      process.stderr.write(
        `fuzz RSS growth (MB): master +${grew.master.toFixed(1)} of ${idle.master.toFixed(1)}, minion +${grew.minion.toFixed(1)} of ${idle.minion.toFixed(1)}, ` +
          `victim +${grew.victim.toFixed(1)} of ${idle.victim.toFixed(1)}\n`,
      );

      expect(counts.answered).toBe(counts.sent);
      expect(counts.sent + counts.multi).toBe(masterFrames);
      expect(counts.eventConnections).toBe(2 * Math.ceil(FRAMES / 40));
      expect(pings.published).toBeGreaterThan(0);
      expect(pings.returned).toBe(pings.published);
      for (const state of KEY_STATES) {
        for (const name of readdirSync(join(config.pki_dir, STATE_DIRS[state]))) {
          if (!name.startsWith('.tmp.')) expect(isValidMinionId(name)).toBe(true);
        }
      }
      expect(readdirSync(join(config.pki_dir, 'minions_pre')).length).toBeLessThanOrEqual(100);
      expect(systemDirsState()).toBe(systemBefore);
      expect(cluster.master!.log).not.toMatch(/\[(ERROR|CRITICAL)/);
      expect(grew.master).toBeLessThan(MASTER_RSS_MB);
      expect(grew.minion).toBeLessThan(MINION_RSS_MB);
      expect(grew.victim).toBeLessThan(MINION_RSS_MB);
    },
    Math.max(120_000, FRAMES * 20),
  );
});
