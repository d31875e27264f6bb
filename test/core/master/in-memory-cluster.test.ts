/**
 * The master (Master, AuthService, JobService, RequestHandler), the minion's job loop and the
 * LocalClient together, over the in-memory transport: no sockets, no ports, no binaries.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalClient, type MinionReturn } from '../../../src/core/client/local-client';
import { loadMasterConfig, loadMinionConfig } from '../../../src/core/config';
import { BAD_LOAD_REPLY } from '../../../src/core/channel';
import { createLogging } from '../../../src/core/log';
import { Master } from '../../../src/core/master/master';
import { Minion, type JobExecutor, type MinionGrains } from '../../../src/core/minion/job-loop';
import type { JobLoad } from '../../../src/core/protocol/loads';
import type { PublicationOpener } from '../../../src/core/minion/channel-client';
import { sharedPublicationOpener } from '../../../bench/shared-publication';
import { MemoryTransport } from '../../../src/core/transport/memory';
import { eventBusAddress } from '../../../src/core/master/events';
import { decode } from '../../../src/core/protocol/msgpack';
import { minionSettings } from '../../../src/cli/minion-runtime';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const logging = createLogging({ level: 'critical', console: false });
const log = logging.getLogger('test');

/** Grains a test can change, with the change event the runtime's grains store gives. */
class TestGrains implements MinionGrains {
  private listeners: Array<() => void> = [];
  constructor(public values: Record<string, unknown>) {}
  all(): Record<string, unknown> {
    return structuredClone(this.values);
  }
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
  set(values: Record<string, unknown>): void {
    Object.assign(this.values, values);
    this.listeners.forEach((l) => l());
  }
}

async function cluster(ids: string[], options: { openPublication?: PublicationOpener } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'brine-memcluster-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const net = new MemoryTransport();
  const etc = join(root, 'etc', 'master');
  mkdirSync(etc, { recursive: true });
  writeFileSync(
    join(etc, 'master'),
    stringify({ root_dir: root, interface: '127.0.0.1', auto_accept: true, keysize: 1024, worker_threads: 1 }),
  );
  const { config: masterConfig } = loadMasterConfig(etc);
  const master = new Master(masterConfig, log, { transport: net });
  await master.start();
  cleanups.push(() => master.stop());

  const minions = new Map<string, { minion: Minion; grains: TestGrains; jobs: JobLoad[] }>();
  for (const id of ids) {
    const dir = join(root, 'minions', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'minion'), stringify({ root_dir: dir, id, master: '127.0.0.1', keysize: 1024 }));
    const { config } = loadMinionConfig(dir);
    const grains = new TestGrains({ id, role: 'web' });
    const jobs: JobLoad[] = [];
    const executor: JobExecutor = {
      run: async (job) => {
        jobs.push(job);
        if (job.fun === 'grains.setval') grains.set({ role: String((job.arg as unknown[])[1]) });
        return { return: job.fun === 'test.ping' ? true : `ran ${String(job.fun)}`, retcode: 0, success: true };
      },
    };
    const minion = new Minion(minionSettings(config), executor, grains, log, { transport: net, openPublication: options.openPublication });
    await minion.start();
    cleanups.push(() => minion.stop());
    minions.set(id, { minion, grains, jobs });
  }
  const client = await LocalClient.connect(masterConfig, { transport: net });
  cleanups.push(() => client.close());
  return { net, master, masterConfig, minions, client };
}

async function run(client: LocalClient, tgt: string, fun: string, arg: unknown[] = [], tgtType = 'glob'): Promise<MinionReturn[]> {
  const pub = await client.publish({ tgt, tgtType, fun, arg });
  const out: MinionReturn[] = [];
  for await (const ret of client.returns(pub, 10_000)) out.push(ret);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

describe('a master and minions over the in-memory transport', () => {
  it('signs minions in (auto_accept), publishes a job, collects every return', async () => {
    const { client, master } = await cluster(['web1', 'web2']);
    expect(master.keys.list('accepted')).toEqual(['web1', 'web2']);
    const rets = await run(client, '*', 'test.ping');
    expect(rets.map((r) => [r.id, r.return, r.retcode])).toEqual([
      ['web1', true, 0],
      ['web2', true, 0],
    ]);
  });

  it("minions given the bench's shared opener each run a job it opened once", async () => {
    const open = sharedPublicationOpener();
    const { client, minions } = await cluster(['web1', 'web2', 'web3'], { openPublication: open });
    const rets = await run(client, '*', 'test.ping');
    expect(rets.map((r) => [r.id, r.return])).toEqual([
      ['web1', true],
      ['web2', true],
      ['web3', true],
    ]);
    for (const { jobs } of minions.values()) expect(jobs.map((j) => j.jid)).toEqual([rets[0].jid]);
    expect([open.opened(), open.reused()]).toEqual([1, 2]);
  });

  it("a ping_interval ping reaches the master's bus as Salt's minion_ping event", async () => {
    const { net, masterConfig, minions } = await cluster(['web1']);
    const bus = net.eventSubscriber(eventBusAddress(masterConfig.sock_dir), ['minion_ping']);
    cleanups.push(() => bus.close());
    await bus.sync(5000);
    await minions.get('web1')!.minion.pingMaster();
    const event = await bus.next(5000);
    expect(event?.tag).toBe('minion_ping');
    expect(decode(event!.body)).toMatchObject({ cmd: '_minion_event', id: 'web1', tag: 'minion_ping', data: 'ping' });
  });

  it('the minion checks the target itself: a job for another minion is not run', async () => {
    const { client, minions } = await cluster(['web1', 'db1']);
    const rets = await run(client, 'db*', 'test.ping');
    expect(rets.map((r) => r.id)).toEqual(['db1']);
    expect(minions.get('web1')!.jobs).toEqual([]);
    expect(minions.get('db1')!.jobs.map((j) => j.fun)).toEqual(['test.ping']);
  });

  it('grains a job changed reach the master before its return, so the next grain target sees them', async () => {
    const { client } = await cluster(['web1', 'web2']);
    await expect(client.publish({ tgt: 'role:db', tgtType: 'grain', fun: 'test.ping', arg: [] })).rejects.toMatchObject({
      code: 'NO_MINIONS',
    });
    await run(client, 'web2', 'grains.setval', ['role', 'db']);
    const rets = await run(client, 'role:db', 'test.ping', [], 'grain');
    expect(rets.map((r) => r.id)).toEqual(['web2']);
  });

  it('answers bytes that are no Salt message with "bad load" and goes on serving', async () => {
    const { net, client, masterConfig } = await cluster(['web1']);
    const raw = net.requestClient(`tcp://127.0.0.1:${masterConfig.ret_port}`);
    cleanups.push(() => raw.close());
    expect(await raw.request(Buffer.from([0xc1, 0xff, 0x00]), 5000)).toEqual(BAD_LOAD_REPLY);
    expect((await run(client, '*', 'test.ping')).map((r) => r.id)).toEqual(['web1']);
  });

  it('a rejected key ends the minion (fatal) at its next sign-in', async () => {
    const { master, minions } = await cluster(['web1']);
    const { minion } = minions.get('web1')!;
    master.keys.reject(['web1'], ['accepted']);
    // A fresh sign-in now meets the rejected key.
    await expect(minion.channel.connect()).rejects.toMatchObject({ code: 'KEY_REJECTED' });
  });
});
