/**
 * The minion's job loop (Minion) against a real master over the in-memory transport: no sockets.
 * One master and two minions serve the whole file; each minion's executor records what it ran.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalClient, type MinionReturn, type Publication } from '../../../src/core/client/local-client';
import { loadMasterConfig, loadMinionConfig } from '../../../src/core/config';
import { createLogging } from '../../../src/core/log';
import { Master } from '../../../src/core/master/master';
import { Minion, type JobExecutor, type JobLoad, type MinionGrains } from '../../../src/core/minion/job-loop';
import type { JobResult } from '../../../src/core/protocol/loads';
import { MemoryTransport } from '../../../src/core/transport/memory';
import type { ConnectionOptions, Transport } from '../../../src/core/transport/types';
import { minionSettings } from '../../../src/cli/minion-runtime';
import { ensureMinionKeys } from '../../../src/core/minion/minion-keys';
import { findCachedJob } from '../../../src/core/minion/cached-jobs';
import { decode } from '../../../src/core/protocol/msgpack';

const log = createLogging({ level: 'critical', console: false }).getLogger('test');
const root = mkdtempSync(join(tmpdir(), 'brine-jobloop-'));
const net = new MemoryTransport();

/** Grains the test may change behind the minion's back (no change event) or with one. */
class Grains implements MinionGrains {
  private listeners: Array<() => void> = [];
  /** Copies handed out: a target check that needs no grains takes none. */
  copies = 0;
  constructor(public values: Record<string, unknown>) {}
  all(): Record<string, unknown> {
    this.copies++;
    return structuredClone(this.values);
  }
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
  set(values: Record<string, unknown>, notify: boolean): void {
    Object.assign(this.values, values);
    if (notify) this.listeners.forEach((l) => l());
  }
}

interface TestMinion {
  minion: Minion;
  grains: Grains;
  ran: JobLoad[];
  /** Jobs whose afterReturn ran, in order. */
  returned: string[];
  /** Resolves when afterReturn has run for a jid. */
  afterReturnOf(jid: string): Promise<void>;
}

let master: Master;
let client: LocalClient;
const minions = new Map<string, TestMinion>();
const stops: Array<() => unknown> = [];

async function startMinion(
  id: string,
  grainValues: Record<string, unknown>,
  config: Record<string, unknown> = {},
  transport: Transport = net,
): Promise<TestMinion> {
  const dir = join(root, 'minions', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'minion'), stringify({ root_dir: dir, id, master: '127.0.0.1', keysize: 1024, ...config }));
  const grains = new Grains({ id, ...grainValues });
  const ran: JobLoad[] = [];
  const returned: string[] = [];
  const waiters = new Map<string, () => void>();
  const executor: JobExecutor = {
    run: async (job): Promise<JobResult> => {
      ran.push(job);
      if (job.fun === 'grains.setval') grains.set({ [String(job.arg[0])]: job.arg[1] }, true);
      if (job.fun === 'test.fail') return { return: 'it broke', retcode: 1, success: false, out: 'highstate' };
      return { return: job.fun === 'test.ping' ? true : { args: job.arg }, retcode: 0, success: true };
    },
    afterReturn: async (job) => {
      returned.push(job.jid);
      waiters.get(job.jid)?.();
    },
  };
  const minion = new Minion(minionSettings(loadMinionConfig(dir).config), executor, grains, log, { transport });
  await minion.start();
  stops.push(() => minion.stop());
  const afterReturnOf = (jid: string) =>
    returned.includes(jid) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(jid, resolve));
  return { minion, grains, ran, returned, afterReturnOf };
}

/**
 * A minion of this file's master that a test drives itself: its config written (`config` over the
 * usual), built but not started, its log captured from `level` up. `logged(text)` resolves once a
 * line holding `text` has been written.
 */
function ownMinion(
  id: string,
  config: Record<string, unknown>,
  level: string,
  options: { executor?: JobExecutor; random?: () => number } = {},
) {
  const dir = join(root, 'minions', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'minion'), stringify({ root_dir: dir, id, master: '127.0.0.1', keysize: 1024, ...config }));
  const settings = minionSettings(loadMinionConfig(dir).config);
  const lines: string[] = [];
  let wake: () => void = () => undefined;
  const log = createLogging({ level, console: true, stderr: { write: (l: string) => (lines.push(l), wake(), true) } }).getLogger(
    'salt.minion',
  );
  const logged = async (text: string) => {
    while (!lines.some((l) => l.includes(text))) await new Promise<void>((resolve) => (wake = resolve));
  };
  const executor = options.executor ?? { run: async () => ({ return: true, retcode: 0, success: true }) };
  const minion = new Minion(settings, executor, new Grains({ id }), log, { transport: net, random: options.random });
  return { minion, settings, lines, logged };
}

beforeAll(async () => {
  const etc = join(root, 'etc', 'master');
  mkdirSync(etc, { recursive: true });
  writeFileSync(
    join(etc, 'master'),
    stringify({ root_dir: root, interface: '127.0.0.1', auto_accept: true, keysize: 1024, worker_threads: 1 }),
  );
  const { config } = loadMasterConfig(etc);
  master = new Master(config, log, { transport: net });
  await master.start();
  for (const [id, g] of [
    ['web1', { role: 'web' }],
    ['db1', { role: 'db' }],
  ] as const)
    minions.set(id, await startMinion(id, g));
  client = await LocalClient.connect(config, { transport: net });
});
afterAll(async () => {
  client.close();
  for (const stop of stops.reverse()) await stop();
  await master.stop();
  rmSync(root, { recursive: true, force: true });
});

async function collect(pub: Publication): Promise<MinionReturn[]> {
  const out: MinionReturn[] = [];
  for await (const r of client.returns(pub, 10_000)) out.push(r);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

describe("the minion's job loop", () => {
  it('signs in, and announces its grains, so the master can target by them', async () => {
    expect(master.keys.list('accepted')).toEqual(['db1', 'web1']);
    const pub = await client.publish({ tgt: 'role:db', tgtType: 'grain', fun: 'test.ping', arg: [] });
    expect(pub.minions).toEqual(['db1']);
    expect((await collect(pub)).map((r) => [r.id, r.return])).toEqual([['db1', true]]);
  });

  it('runs a publication for it and sends the return (retcode, success, out), then runs its returners', async () => {
    const web1 = minions.get('web1')!;
    const pub = await client.publish({ tgt: 'web1', tgtType: 'glob', fun: 'test.fail', arg: ['a', 1] });
    const rets = await collect(pub);
    expect(rets).toEqual([
      { id: 'web1', jid: pub.jid, fun: 'test.fail', return: 'it broke', retcode: 1, success: false, out: 'highstate' },
    ]);
    expect(web1.ran.at(-1)).toMatchObject({ jid: pub.jid, fun: 'test.fail', arg: ['a', 1], tgt: 'web1', tgt_type: 'glob', user: 'root' });
    await web1.afterReturnOf(pub.jid);
    expect(web1.returned.at(-1)).toBe(pub.jid);
  });

  it('ignores a publication not targeted to it', async () => {
    const web1 = minions.get('web1')!;
    const db1 = minions.get('db1')!;
    const before = web1.ran.length;
    const forDb = await client.publish({ tgt: 'db*', tgtType: 'glob', fun: 'test.ping', arg: [] });
    expect((await collect(forDb)).map((r) => r.id)).toEqual(['db1']);
    // Publications reach a minion in order: once it has run the next job, it has seen (and
    // skipped) the one for db1.
    const forAll = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
    expect((await collect(forAll)).map((r) => r.id)).toEqual(['db1', 'web1']);
    expect(web1.ran.slice(before).map((j) => j.jid)).toEqual([forAll.jid]);
    expect(db1.ran.map((j) => j.jid)).toContain(forDb.jid);
  });

  it("matches targets against its own current grains, not the master's idea of them", async () => {
    const web1 = minions.get('web1')!;
    const before = web1.ran.length;
    // The grains change without telling anyone: the master still expects web1 for role:web.
    web1.grains.set({ role: 'cache' }, false);
    const stale = await client.publish({ tgt: 'role:web', tgtType: 'grain', fun: 'test.ping', arg: [] });
    expect(stale.minions).toEqual(['web1']);
    const next = await client.publish({ tgt: 'web1', tgtType: 'glob', fun: 'test.ping', arg: [] });
    await collect(next);
    expect(web1.ran.slice(before).map((j) => j.jid)).toEqual([next.jid]);
    web1.grains.set({ role: 'web' }, false);
  });

  it('checks an id target (glob, list, pcre) without copying its grains, and a grain target with them', async () => {
    const web1 = minions.get('web1')!;
    const before = web1.grains.copies;
    for (const [tgt, tgtType] of [
      ['web*', 'glob'],
      ['web1,nobody', 'list'],
      ['^web', 'pcre'],
    ] as const) {
      expect((await collect(await client.publish({ tgt, tgtType, fun: 'test.ping', arg: [] }))).map((r) => r.id)).toEqual(['web1']);
    }
    expect(web1.grains.copies).toBe(before);
    await collect(await client.publish({ tgt: 'role:web', tgtType: 'grain', fun: 'test.ping', arg: [] }));
    expect(web1.grains.copies).toBe(before + 1);
  });

  it('sends grains a job changed before its return, so the next grain target finds it', async () => {
    const db1 = minions.get('db1')!;
    await collect(await client.publish({ tgt: 'db1', tgtType: 'glob', fun: 'grains.setval', arg: ['tier', 'gold'] }));
    expect(db1.grains.values.tier).toBe('gold');
    const pub = await client.publish({ tgt: 'tier:gold', tgtType: 'grain', fun: 'test.ping', arg: [] });
    expect(pub.minions).toEqual(['db1']);
    expect((await collect(pub)).map((r) => r.id)).toEqual(['db1']);
  });
});

describe("the minion's cache_jobs", () => {
  it("keeps each return under cachedir/minion_jobs/<jid>/return.p as Salt's minion does, for saltutil.find_cached_job", async () => {
    const cached = await startMinion('cached1', {}, { cache_jobs: true });
    const cachedir = join(root, 'minions', 'cached1', 'var', 'cache', 'salt', 'minion');
    const pub = await client.publish({
      tgt: 'cached1',
      tgtType: 'glob',
      fun: 'test.fail',
      arg: ['a', 1],
      metadata: { ticket: 7 },
    });
    expect(await collect(pub)).toHaveLength(1);
    const file = join(cachedir, 'minion_jobs', pub.jid, 'return.p');
    const ret = decode(readFileSync(file)) as Record<string, unknown>;
    // Salt's ret: its keys in Salt's order, without the load's cmd, id and _stamp.
    expect(Object.keys(ret)).toEqual(['success', 'return', 'retcode', 'out', 'jid', 'fun', 'fun_args', 'user', 'metadata']);
    expect(ret).toEqual({
      success: false,
      return: 'it broke',
      retcode: 1,
      out: 'highstate',
      jid: pub.jid,
      fun: 'test.fail',
      fun_args: ['a', 1],
      user: 'root',
      metadata: { ticket: 7 },
    });
    expect(findCachedJob(cachedir, pub.jid, true)).toEqual(ret);
    expect(findCachedJob(cachedir, '20200101000000000000', true)).toBe(
      `Local jobs cache directory ${join(cachedir, 'minion_jobs', '20200101000000000000')} not found`,
    );
    expect(findCachedJob(cachedir, '../../etc', true)).toMatch(/^Local jobs cache directory .* not found$/);
    // A salt-call's own return (jid "req") is cached under a jid of its own.
    await cached.minion.sendReturn(
      { fun: 'test.ping', arg: [], jid: 'req', tgt: 'cached1', tgt_type: 'glob', ret: '' },
      { return: true, retcode: 0, success: true },
    );
    const jids = readdirSync(join(cachedir, 'minion_jobs')).filter((j) => j !== pub.jid);
    expect(jids).toHaveLength(1);
    expect(jids[0]).toMatch(/^\d{20}$/);
    expect(findCachedJob(cachedir, jids[0], true)).toMatchObject({ jid: jids[0], fun: 'test.ping', return: true });
  });

  it('writes nothing without it, and find_cached_job says to turn it on', async () => {
    await startMinion('uncached1', {});
    const cachedir = join(root, 'minions', 'uncached1', 'var', 'cache', 'salt', 'minion');
    const pub = await client.publish({ tgt: 'uncached1', tgtType: 'glob', fun: 'test.ping', arg: [] });
    expect(await collect(pub)).toHaveLength(1);
    expect(existsSync(join(cachedir, 'minion_jobs'))).toBe(false);
    expect(findCachedJob(cachedir, pub.jid, false)).toBe(
      'Local jobs cache directory not found; you may need to enable cache_jobs on this minion',
    );
  });
});

describe("the minion's connections", () => {
  it('runs its startup_states once up and returns them to the master as a job of its own', async () => {
    const returned = new Promise<Record<string, unknown>>((resolve) => {
      const off = master.onEvent((tag, data) => {
        if (!/^salt\/job\/\d{20}\/ret\/boot1$/.test(tag)) return;
        off();
        resolve(data);
      });
    });
    const boot = await startMinion('boot1', {}, { startup_states: 'sls', sls_list: ['base1', 'base2'] });
    expect(await returned).toMatchObject({ fun: 'state.sls', fun_args: [['base1', 'base2']], return: { args: [['base1', 'base2']] } });
    expect(boot.ran.map((j) => [j.fun, j.jid])).toEqual([['state.sls', 'req']]);
  });

  it('with rejected_retry keeps signing in while its key is rejected, and starts once the master deletes it', async () => {
    const { minion, settings, lines, logged } = ownMinion('rej1', { rejected_retry: true, acceptance_wait_time: 0.05 }, 'error');
    stops.push(() => minion.stop());
    // Its key, made as the minion makes it, is rejected on the master before it starts.
    master.keys.registerPending('rej1', ensureMinionKeys(settings.pki_dir, 1024).publicPem);
    master.keys.reject(['rej1']);
    const started = minion.start();
    await logged('The Salt Minion will attempt to re-authenicate.');
    expect(lines.join('')).toContain("The Salt Master has rejected this minion's public key.\nTo repair this issue, delete the public key");
    master.keys.delete(['rej1']);
    await started;
    expect(master.keys.state('rej1')).toBe('accepted');
  });

  it('runs at most process_count_max jobs at once: the next waits for a slot, saying so, then runs', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const first = new Promise<void>((resolve) => (entered = resolve));
    const started: string[] = [];
    const executor: JobExecutor = {
      run: async (job) => {
        started.push(String(job.arg[0]));
        if (job.arg[0] === 'slow') {
          entered();
          await released;
        }
        return { return: job.arg[0], retcode: 0, success: true };
      },
    };
    const { minion, logged } = ownMinion('busy1', { process_count_max: 1 }, 'warning', { executor });
    stops.push(() => minion.stop());
    await minion.start();
    const slow = await client.publish({ tgt: 'busy1', tgtType: 'glob', fun: 'test.echo', arg: ['slow'] });
    await first;
    const quick = await client.publish({ tgt: 'busy1', tgtType: 'glob', fun: 'test.echo', arg: ['quick'] });
    await logged(`Maximum number of processes reached while executing jid ${quick.jid}, waiting...`);
    expect(started).toEqual(['slow']);
    release();
    // One event stream: read in the order they come (slow's return first, then quick's).
    expect((await collect(slow)).map((r) => r.return)).toEqual(['slow']);
    expect((await collect(quick)).map((r) => r.return)).toEqual(['quick']);
    expect(started).toEqual(['slow', 'quick']);
  });

  it('waits random_startup_delay before it signs in, saying so, and stop() cuts the wait short', async () => {
    const { minion, lines, logged } = ownMinion('late1', { random_startup_delay: 600 }, 'info', { random: () => 0.5 });
    const started = minion.start();
    await logged('Minion sleeping');
    expect(lines.join('')).toContain('Minion sleeping for 300 seconds due to configured startup_delay between 0 and 600 seconds');
    await minion.stop();
    // The wait ends with stop(): start() settles (without signing in) instead of waiting 300 s.
    await started.catch(() => undefined);
    expect(master.keys.state('late1')).toBeUndefined();
  });

  it("have Salt's tcp_keepalive and tcp_keepalive_idle, both of them, and no keepalive when it is off", async () => {
    const seen: string[] = [];
    const record = (kind: string, options?: ConnectionOptions) => seen.push(`${kind} ${JSON.stringify(options?.keepAlive ?? null)}`);
    const recording: Transport = Object.assign(Object.create(net) as Transport, {
      subscribeClient: (options?: ConnectionOptions) => (record('subscribe', options), net.subscribeClient(options)),
      requestClient: (address: string, options?: ConnectionOptions) => (record('request', options), net.requestClient(address, options)),
    });
    await startMinion('keepalive1', {}, { tcp_keepalive_idle: 120 }, recording);
    await startMinion('keepalive2', {}, { tcp_keepalive: false }, recording);
    expect(seen).toEqual(['request {"idleSeconds":120}', 'subscribe {"idleSeconds":120}', 'request null', 'subscribe null']);
  });
});
